package pdf

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/internal/fixture"
)

// One Reader per test binary: starting PDFium is the expensive part and
// -race makes it slower still.
var shared struct {
	once sync.Once
	r    *Reader
	err  error
}

func reader(t testing.TB) *Reader {
	t.Helper()
	shared.once.Do(func() { shared.r, shared.err = NewReader(context.Background(), Options{Workers: 2}) })
	if shared.err != nil {
		t.Fatalf("NewReader: %v", shared.err)
	}
	return shared.r
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.r != nil {
		if err := shared.r.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "closing reader:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func parseFixture(t *testing.T, name string) *document.Document {
	t.Helper()
	data := fixture.Read(t, name)
	doc, err := reader(t).Parse(context.Background(), name, data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return doc
}

type heading struct {
	text        string
	level, page int
}

func headingsOf(doc *document.Document) []heading {
	var hs []heading
	for _, b := range doc.Blocks {
		if b.Kind == document.Heading {
			hs = append(hs, heading{b.Text, b.Level, b.Page})
		}
	}
	return hs
}

// sectionOf returns the block containing needle with the heading it falls
// under.
func sectionOf(doc *document.Document, needle string) (document.Block, string, bool) {
	section := ""
	for _, b := range doc.Blocks {
		if b.Kind == document.Heading {
			section = b.Text
			continue
		}
		if strings.Contains(b.Text, needle) {
			return b, section, true
		}
	}
	return document.Block{}, "", false
}

func TestContract(t *testing.T) {
	doc := parseFixture(t, "contract.pdf")
	if doc.Pages != 14 || doc.Title != "Master Services Agreement" || doc.Format != "pdf" {
		t.Errorf("pages %d title %q format %q", doc.Pages, doc.Title, doc.Format)
	}
	hs := headingsOf(doc)
	for _, want := range []heading{
		{"1. Definitions and Interpretation", 1, 2},
		{"5. Fees and Payment Schedule", 1, 6},
		{"7. Late Payment Penalties", 1, 8},
		{"7.1 Interest on Overdue Amounts", 2, 8},
		{"7.2 Suspension of Services", 2, 8},
		{"12. Governing Law and Jurisdiction", 1, 13},
		{"Appendix A – Glossary (two columns)", 1, 14},
	} {
		if !containsHeading(hs, want) {
			t.Errorf("missing heading %+v in %+v", want, hs)
		}
	}
	if len(hs) != 18 {
		t.Errorf("%d headings, want the 18 bookmarks", len(hs))
	}
	b, section, ok := sectionOf(doc, "1.5% per month")
	if !ok || b.Page != 8 || section != "7.1 Interest on Overdue Amounts" {
		t.Errorf("interest clause: page %d under %q (found %v)", b.Page, section, ok)
	}
	b, section, ok = sectionOf(doc, "reconnection fee of €450")
	if !ok || b.Page != 8 || section != "7.2 Suspension of Services" {
		t.Errorf("suspension clause: page %d under %q", b.Page, section)
	}
	for _, bl := range doc.Blocks {
		if strings.Contains(bl.Text, "(Confidential)") || regexp.MustCompile(`Page \d+ of 14`).MatchString(bl.Text) {
			t.Errorf("running header/footer kept on page %d: %q", bl.Page, bl.Text)
		}
	}
	// Hyphenated line break inside "LEFTCOL-or-RIGHTCOL" keeps its hyphen.
	if _, _, ok := sectionOf(doc, "Statement of Work: LEFTCOL-or-RIGHTCOL marker 11."); !ok {
		t.Error("two-column glossary entry 11 not intact")
	}
}

func containsHeading(hs []heading, h heading) bool {
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}]+`)

// TestContractMatchesPdftotext compares the words with the output of
// poppler's pdftotext (testdata, running header and footer lines removed):
// at least 98% of its words must be found, in multiset terms.
func TestContractMatchesPdftotext(t *testing.T) {
	doc := parseFixture(t, "contract.pdf")
	golden, err := os.ReadFile("testdata/contract.pdftotext.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	total := 0
	running := regexp.MustCompile(`^(ACME Data Systems — Master Services Agreement \(Confidential\)|Page \d+ of 14)$`)
	for _, l := range strings.Split(string(golden), "\n") {
		if running.MatchString(strings.TrimSpace(strings.TrimLeft(l, "\f"))) {
			continue
		}
		for _, w := range wordRE.FindAllString(formats.CleanText(l), -1) {
			want[strings.ToLower(w)]++
			total++
		}
	}
	got := map[string]int{}
	for _, b := range doc.Blocks {
		for _, w := range wordRE.FindAllString(b.Text, -1) {
			got[strings.ToLower(w)]++
		}
	}
	found := 0
	for w, n := range want {
		found += min(n, got[w])
	}
	if recall := float64(found) / float64(total); recall < 0.98 {
		t.Errorf("word recall vs pdftotext = %.3f (%d/%d), want >= 0.98", recall, found, total)
	}
}

func TestBookmarksWithNumbersAndLabels(t *testing.T) {
	doc := parseFixture(t, "libtasn1.pdf")
	if doc.Pages != 36 {
		t.Errorf("pages = %d", doc.Pages)
	}
	for page, label := range map[int]string{1: "T-1", 3: "i", 4: "1", 11: "8", 36: "33"} {
		if doc.PageLabels[page] != label {
			t.Errorf("label of page %d = %q, want %q", page, doc.PageLabels[page], label)
		}
	}
	hs := headingsOf(doc)
	// The outline says "ASN.1 schema functions"; the page prints the
	// section number too, and that is kept.
	for _, want := range []heading{
		{"1 Introduction", 1, 4},
		{"4 Function reference", 1, 11},
		{"4.1 ASN.1 schema functions", 2, 11},
		{"4.3 DER functions", 2, 18},
		{"A.1 GNU Free Documentation License", 2, 27},
	} {
		if !containsHeading(hs, want) {
			t.Errorf("missing heading %+v", want)
		}
	}
}

func TestHeadingsFromFontsFixture(t *testing.T) {
	doc := parseFixture(t, "groff_man.pdf") // no outline
	hs := headingsOf(doc)
	for _, want := range []heading{{"NAME", 1, 1}, {"SYNOPSIS", 1, 1}, {"DESCRIPTION", 1, 1}, {"AUTHOR", 1, 4}, {"SEE ALSO", 1, 4}} {
		if !containsHeading(hs, want) {
			t.Errorf("missing heading %+v in %+v", want, hs)
		}
	}
	for _, b := range doc.Blocks {
		if strings.Contains(b.Text, "User Commands") || strings.Contains(b.Text, "GNU coreutils 9.1") && strings.Contains(b.Text, "2022") && len(b.Text) < 40 {
			t.Errorf("running header/footer kept: %q", b.Text)
		}
	}
	if b, section, ok := sectionOf(doc, "list directory contents"); !ok || section != "NAME" || !strings.HasPrefix(b.Text, "ls - list") {
		t.Errorf("NAME section: %q under %q", b.Text, section)
	}
}

func TestHeadingsFromFontsContract(t *testing.T) {
	// The same contract with its outline ignored: headings come from font
	// sizes and numbering, and the numbered glossary items (body size)
	// stay body text.
	r, err := NewReader(context.Background(), Options{Workers: 1, IgnoreBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	doc, err := r.Parse(context.Background(), "contract.pdf", fixture.Read(t, "contract.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	hs := headingsOf(doc)
	for _, want := range []heading{
		{"7. Late Payment Penalties", 1, 8},
		{"7.1 Interest on Overdue Amounts", 2, 8},
		{"Appendix A – Glossary (two columns)", 1, 14},
	} {
		if !containsHeading(hs, want) {
			t.Errorf("missing heading %+v in %+v", want, hs)
		}
	}
	for _, h := range hs {
		if strings.Contains(h.text, "Supplier") || strings.Contains(h.text, "marker") {
			t.Errorf("body text taken for a heading: %+v", h)
		}
	}
}

func TestGenerated(t *testing.T) {
	doc, err := reader(t).Parse(context.Background(), "handbook.pdf", handbookPDF())
	if err != nil {
		t.Fatal(err)
	}
	H, P := document.Heading, document.Paragraph
	want := []document.Block{
		{Kind: H, Level: 1, Text: "Overview", Page: 1},
		{Kind: P, Text: "This handbook explains how employees travel on company business. It applies to every office and every contractor.", Page: 1},
		{Kind: H, Level: 1, Text: "1. Booking Travel", Page: 1},
		{Kind: P, Text: "Flights are booked through the travel portal. 1. The traveller requests approval first. 2. The manager approves within two days.", Page: 1},
		{Kind: P, Text: "A new paragraph starts after a wider gap.", Page: 1},
		{Kind: H, Level: 2, Text: "1.1 Hotels", Page: 2},
		{Kind: P, Text: "The nightly hotel cap is 180 euros in most cities.", Page: 2},
		{Kind: H, Level: 1, Text: "2. Late Submission Penalties Apply When Claims Arrive After Ninety Days", Page: 3},
		{Kind: P, Text: "Claims submitted more than 90 days late are reimbursed at 50 percent.", Page: 3},
		{Kind: P, Text: "Questions go to the finance team.", Page: 4},
	}
	fixture.CompareBlocks(t, doc.Blocks, want)
	if doc.Title != "Travel Handbook" || doc.Pages != 4 {
		t.Errorf("title %q pages %d", doc.Title, doc.Pages)
	}
	wantLabels := map[int]string{1: "i", 2: "ii", 3: "1", 4: "2"}
	if fmt.Sprint(doc.PageLabels) != fmt.Sprint(wantLabels) {
		t.Errorf("labels = %v, want %v", doc.PageLabels, wantLabels)
	}
}

// TestBadInput checks every damaged or encrypted fixture: each gives a
// doc or a *formats.Error of the expected kind, never a panic.
func TestBadInput(t *testing.T) {
	tests := []struct {
		file string
		kind error // nil: parses, best effort
	}{
		{"enc_userpw.pdf", formats.ErrEncrypted},
		{"enc_ownerpw_only.pdf", nil},
		{"enc_rc4_nouserpw.pdf", nil},
		{"trunc60.pdf", formats.ErrCorrupt},
		{"trunc_tail.pdf", formats.ErrCorrupt},
		{"bitflip.pdf", formats.ErrCorrupt},
		{"bitflip_mild.pdf", nil},
		{"badxref.pdf", nil},
		{"garbage.pdf", formats.ErrCorrupt},
		{"empty.pdf", formats.ErrEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			doc, err := reader(t).Parse(context.Background(), tt.file, fixture.Read(t, tt.file))
			if tt.kind == nil {
				if err != nil {
					t.Fatalf("err = %v, want a document", err)
				}
				if _, section, ok := sectionOf(doc, "1.5% per month"); !ok || section != "7.1 Interest on Overdue Amounts" {
					t.Errorf("contract text not recovered (section %q)", section)
				}
				return
			}
			if !errors.Is(err, tt.kind) {
				t.Fatalf("err = %v, want %v", err, tt.kind)
			}
			if !strings.HasPrefix(err.Error(), tt.file+": ") {
				t.Errorf("message %q does not start with the file name", err)
			}
		})
	}
}

func TestTruncatedGenerated(t *testing.T) {
	data := handbookPDF()
	for _, cut := range []int{0, 9, 200, len(data) / 3, len(data) / 2, len(data) - 100, len(data) - 10} {
		doc, err := reader(t).Parse(context.Background(), "cut.pdf", data[:cut])
		if err != nil {
			var fe *formats.Error
			if !errors.As(err, &fe) {
				t.Errorf("cut %d: error %v is not a *formats.Error", cut, err)
			}
			continue
		}
		// PDFium rebuilds a missing xref table: whatever it returns must
		// be real text of the file.
		for _, b := range doc.Blocks {
			if b.Page < 1 || b.Page > 4 || !strings.ContainsFunc(b.Text, unicode.IsLetter) {
				t.Errorf("cut %d: odd block %+v", cut, b)
			}
		}
	}
}

func TestConcurrentAndCancel(t *testing.T) {
	r := reader(t)
	data := handbookPDF()
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			doc, err := r.Parse(context.Background(), "h.pdf", data)
			if err == nil && len(doc.Blocks) != 10 {
				err = fmt.Errorf("%d blocks", len(doc.Blocks))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Parse(ctx, "h.pdf", data); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestTooLarge(t *testing.T) {
	r, err := NewReader(context.Background(), Options{Workers: 1, MaxFileSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Parse(context.Background(), "big.pdf", handbookPDF()); !errors.Is(err, formats.ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
	r.Close()
	if _, err := r.Parse(context.Background(), "h.pdf", handbookPDF()); err == nil {
		t.Error("Parse after Close succeeded")
	}
}
