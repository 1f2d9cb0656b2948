package doc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/docx"
	"github.com/docmind/docmind/formats/internal/fixture"
)

// The .doc fixtures in testdata were written by LibreOffice 7.4
// (soffice --convert-to doc):
//   - contract.doc, handbook.doc, policy.doc from the shared fixtures
//     contract.docx, handbook.docx, policy.docx;
//   - sample.doc from sample.html (kept beside it): headings, a page
//     break, a hyperlink, a table and a nested table, non-ASCII text;
//   - revisions.doc from revisions.docx (kept beside it): a tracked
//     deletion and insertion, a footnote, a header, a PAGE field, hyphen
//     characters, section breaks (new page, then continuous);
//   - sheet.xls from a two-line CSV.
//
// LibreOffice stores all text as UTF-16; build_test.go makes documents
// with Word's compressed 8-bit text and other structures by hand.

var (
	H = document.Heading
	P = document.Paragraph
	T = document.Table
)

// parseFile parses testdata/name with parse (not Parse, whose recovery
// would hide a panic).
func parseFile(t *testing.T, name string) *document.Document {
	t.Helper()
	d, err := parse(context.Background(), name, fixture.Local(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// normalize collapses white space in the blocks' texts.
func normalize(blocks []document.Block) []document.Block {
	out := make([]document.Block, len(blocks))
	for i, b := range blocks {
		lines := strings.Split(b.Text, "\n")
		for j, l := range lines {
			lines[j] = strings.Join(strings.Fields(l), " ")
		}
		b.Text = strings.Join(lines, "\n")
		out[i] = b
	}
	return out
}

// TestMatchesDOCX compares each converted fixture with what the DOCX
// parser reads from the original: same blocks (kind, heading level,
// text, table rows, page), same title and page count.
func TestMatchesDOCX(t *testing.T) {
	for _, name := range []string{"contract", "handbook", "policy"} {
		t.Run(name, func(t *testing.T) {
			want, err := docx.Parse(context.Background(), name+".docx", fixture.Read(t, name+".docx"))
			if err != nil {
				t.Fatal(err)
			}
			got := parseFile(t, name+".doc")
			if got.Title != want.Title || got.Pages != want.Pages {
				t.Errorf("title %q pages %d, want %q %d", got.Title, got.Pages, want.Title, want.Pages)
			}
			var headings int
			for _, b := range want.Blocks {
				if b.Kind == H {
					headings++
				}
			}
			if headings < 5 {
				t.Fatalf("original has only %d headings", headings)
			}
			fixture.CompareBlocks(t, normalize(got.Blocks), normalize(want.Blocks))
		})
	}
}

// TestRevisionsMatchDOCX compares revisions.doc with the DOCX parser's
// reading of the revisions.docx it was converted from. One difference is
// LibreOffice's: it cannot hold a page break inside a paragraph, so it
// splits "Vor dem Umbruch<page break> und danach" into two paragraphs,
// the second with "page break before".
func TestRevisionsMatchDOCX(t *testing.T) {
	want, err := docx.Parse(context.Background(), "revisions.docx", fixture.Local(t, "revisions.docx"))
	if err != nil {
		t.Fatal(err)
	}
	var expect []document.Block
	for _, b := range want.Blocks {
		if b.Text == "Vor dem Umbruch und danach" {
			expect = append(expect, document.Block{Kind: P, Text: "Vor dem Umbruch", Page: 1},
				document.Block{Kind: P, Text: "und danach", Page: 2})
			continue
		}
		expect = append(expect, b)
	}
	if len(expect) == len(want.Blocks) {
		t.Fatal("the DOCX reading lacks the page break paragraph")
	}
	got := parseFile(t, "revisions.doc")
	if got.Title != "Revisionen und Felder" || got.Pages != 3 || want.Pages != 3 {
		t.Errorf("title %q pages %d (docx %d)", got.Title, got.Pages, want.Pages)
	}
	fixture.CompareBlocks(t, got.Blocks, expect)
	// What the source says, independently of the DOCX parser: the
	// deleted run, the footnote and the header are not main text.
	all := ""
	for _, b := range got.Blocks {
		all += b.Text + "\n"
	}
	for _, s := range []string{"GELÖSCHT", "FUSSNOTENTEXT", "KOPFZEILE", "PAGE"} {
		if strings.Contains(all, s) {
			t.Errorf("text contains %q:\n%s", s, all)
		}
	}
	for _, s := range []string{"Behalten eingefügt Ende.", "Seite 2 von Feldern.", "Kosten-NutzenAnalyse Spalte"} {
		if !strings.Contains(all, s) {
			t.Errorf("text lacks %q:\n%s", s, all)
		}
	}
}

// TestSample checks sample.doc against its source, sample.html.
func TestSample(t *testing.T) {
	got := parseFile(t, "sample.doc")
	want := []document.Block{
		{Kind: H, Level: 1, Text: "1. Zahlungsbedingungen", Page: 1},
		{Kind: P, Text: "Die Überweisung 1.250 € — “quoted” erfolgt binnen 14 Tagen.", Page: 1},
		{Kind: P, Text: "Erste Zeile zweite Zeile mit Tab: Ende.", Page: 1},
		{Kind: H, Level: 2, Text: "1.1 Verzugszinsen", Page: 1},
		// The link is a HYPERLINK field: its result only.
		{Kind: P, Text: "Siehe Zinsrechner online für Details.", Page: 1},
		{Kind: T, Text: "Position | Betrag | Fällig\nAnzahlung | 1.250 € | sofort\nRest (zweite Rate) | 3.750 € | 30 Tage", Page: 1},
		{Kind: P, Text: "Text nach der Tabelle.", Page: 1},
		// page-break-before: always
		{Kind: H, Level: 2, Text: "2. Haftung", Page: 2},
		{Kind: P, Text: "Ελληνικά και кириллица: Gewährleistung ≥ 2 Jahre.", Page: 2},
		{Kind: T, Text: "Außen A | Verschachtelt: Innen 1 | Innen 2 ; Innen 3 | Innen 4\nAußen B | Außen C", Page: 2},
		{Kind: H, Level: 3, Text: "2.1 Ausnahmen", Page: 2},
		{Kind: P, Text: "Keine weiteren Ausnahmen.", Page: 2},
	}
	if got.Title != "Zahlungsrichtlinie 2024" || got.Pages != 2 || got.Format != "doc" || got.Source != "sample.doc" {
		t.Errorf("title %q pages %d format %q source %q", got.Title, got.Pages, got.Format, got.Source)
	}
	fixture.CompareBlocks(t, got.Blocks, want)
}

// TestContract checks contract.doc against what contract.docx says
// (the same facts the DOCX parser's tests check), without ../shared.
func TestContract(t *testing.T) {
	d := parseFile(t, "contract.doc")
	if d.Title != "Master Services Agreement" || d.Pages != 14 {
		t.Errorf("title %q pages %d", d.Title, d.Pages)
	}
	type heading struct {
		text        string
		level, page int
	}
	var got []heading
	section, tables := "", ""
	for _, b := range d.Blocks {
		switch b.Kind {
		case H:
			got = append(got, heading{b.Text, b.Level, b.Page})
			section = b.Text
		case T:
			tables += b.Text + "\n"
		}
		if strings.Contains(b.Text, "1.5% per month") && (section != "7.1 Interest on Overdue Amounts" || b.Page != 8) {
			t.Errorf("interest clause under %q on page %d", section, b.Page)
		}
	}
	if len(got) != 19 {
		t.Errorf("%d headings: %v", len(got), got)
	}
	for _, h := range []heading{
		{"MASTER SERVICES AGREEMENT", 1, 1},
		{"1. Definitions and Interpretation", 1, 2},
		{"7. Late Payment Penalties", 1, 8},
		{"7.1 Interest on Overdue Amounts", 2, 8},
		{"8.1 Unicode Notice", 2, 9},
		{"12. Governing Law and Jurisdiction", 1, 13},
		{"Appendix A – Glossary (two columns)", 1, 14},
	} {
		found := false
		for _, g := range got {
			found = found || g == h
		}
		if !found {
			t.Errorf("missing heading %+v", h)
		}
	}
	for _, row := range []string{
		"Milestone | Due Date | Amount (EUR) | Notes\n",
		"Kick-off | 15 March 2024 | €12,500.00 | Non-refundable\n",
		"Go-live | 1 July 2024 | €48,000.00 | Subject to SLA credits\n",
	} {
		if !strings.Contains(tables, row) {
			t.Errorf("tables lack row %q:\n%s", row, tables)
		}
	}
}

// synthetic is a document with the structures LibreOffice does not
// write; its expected reading follows from [MS-DOC], not from the parser.
func synthetic() synDoc {
	inTable := sprm(sprmPFInTable, 1)
	rowEnd := append(append(append([]byte{}, inTable...),
		// sprmTDefTable: 2-byte cb (rest of the operand + 1), then cb-1 bytes
		sprm(sprmTDefTable, 6, 0, 1, 0, 0, 0, 0)...), sprm(sprmPFTtp, 1)...)
	return synDoc{
		styles: []synStyle{
			{name: "Normal", sti: 0, base: istdNil},
			{name: "heading 1", sti: 1, base: 0, sprms: sprm(sprmPOutLvl, 0)},
			// A built-in heading known by its sti alone.
			{name: "Zweite Ebene", sti: 2, base: 0, odd: true},
			{name: "Kapitel", sti: 0xFFE, base: 1, sprms: sprm(sprmPFPageBreakBefore, 1)},
			{name: "Überschrift 3", sti: 0xFFE, base: 0},
			{name: "Title", sti: stiTitle, base: 0},
			{name: "Body Outline", sti: 0xFFE, base: 1, sprms: sprm(sprmPOutLvl, 9)},
			{name: "Loop A", sti: 0xFFE, base: 8},
			{name: "Loop B", sti: 0xFFE, base: 7},
		},
		compressed: 13,
		paras: []synPara{
			{text: "Jahresbericht 2024", term: 0x0D, istd: 5},
			{text: "Umsatz “gestiegen” um 5 € – siehe… Œuvre™ Ž‚„", term: 0x0D},
			{text: "Link: \x13 HYPERLINK \"http://x\" \x14Webseite\x15, Seite \x13PAGE\x143\x15; \x13 IF \x13 DATE \x141.1.2024\x15 = 1 \x14Ergebnis \x13REF x\x14innen\x15\x15.", term: 0x0D},
			{text: "Kosten\x1eNutzen\x1fAna\x1flyse\tSpalte\x0bZeile\u00a0Ende\x01\x08\x05", term: 0x0D},
			{text: "Behalten " + string(delStart) + "GELÖSCHT " + string(delEnd) + "Ende (" + string(symbol) + "Haken).", term: 0x0D},
			{text: "Vor\x0cNach", term: 0x0D},
			{text: "2. Kapitel", term: 0x0D, istd: 3},
			{text: "2.1 Lokal", term: 0x0D, istd: 4},
			{text: "2.2 Zweite Ebene", term: 0x0D, istd: 2},
			{text: "Kein Titel", term: 0x0D, istd: 6},
			{text: "Zyklisch", term: 0x0D, istd: 7},
			// sprmPChgTabs in its cb=255 form: 1 tab deleted, 1 added.
			{text: "Direkt gegliedert", term: 0x0D, sprms: append(sprm(sprmPChgTabs, 255, 1, 0, 1, 0, 1, 1, 0, 2, 0), sprm(sprmPOutLvl, 1)...)},
			{text: "Gliederung Textkörper", term: 0x0D, istd: 1, sprms: sprm(sprmPOutLvl, 9)},
			// UTF-16 from here.
			{text: "Ελληνικά 😀 кириллица", term: 0x0D},
			{text: "Name", term: 0x07, sprms: inTable},
			{text: "Betrag", term: 0x07, sprms: inTable},
			{text: "", term: 0x07, sprms: rowEnd},
			{text: "Miete", term: 0x0D, sprms: inTable},
			{text: "März", term: 0x07, sprms: inTable},
			{text: "1.000 €", term: 0x07, sprms: inTable},
			{text: "", term: 0x07, sprms: rowEnd},
			{text: "Nach der Tabelle.", term: 0x0C},
			{text: "Neuer Abschnitt", term: 0x0C, istd: 3},
			{text: "Fortlaufend.", term: 0x0D},
		},
		bkc:      []int{2, 0},
		trailing: "FUSSNOTE\r",
		title:    "Jahresbericht – Übersicht",
	}
}

func TestSynthetic(t *testing.T) {
	got, err := parse(context.Background(), "bericht.doc", synthetic().build(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []document.Block{
		{Kind: H, Level: 1, Text: "Jahresbericht 2024", Page: 1},
		{Kind: P, Text: "Umsatz “gestiegen” um 5 € – siehe… Œuvre™ Ž‚„", Page: 1},
		{Kind: P, Text: "Link: Webseite, Seite 3; Ergebnis innen.", Page: 1},
		{Kind: P, Text: "Kosten-NutzenAnalyse Spalte Zeile Ende", Page: 1},
		// The symbol's placeholder goes, a real "(" stays.
		{Kind: P, Text: "Behalten Ende (Haken).", Page: 1},
		{Kind: P, Text: "Vor Nach", Page: 1},
		// "Nach" is on page 2, so the style's page break before moves
		// the chapter to page 3.
		{Kind: H, Level: 1, Text: "2. Kapitel", Page: 3},
		{Kind: H, Level: 3, Text: "2.1 Lokal", Page: 3},
		{Kind: H, Level: 2, Text: "2.2 Zweite Ebene", Page: 3},
		{Kind: P, Text: "Kein Titel", Page: 3},
		{Kind: P, Text: "Zyklisch", Page: 3},
		{Kind: H, Level: 2, Text: "Direkt gegliedert", Page: 3},
		{Kind: P, Text: "Gliederung Textkörper", Page: 3},
		{Kind: P, Text: "Ελληνικά 😀 кириллица", Page: 3},
		{Kind: T, Text: "Name | Betrag\nMiete März | 1.000 €", Page: 3},
		{Kind: P, Text: "Nach der Tabelle.", Page: 3},
		// The next section starts a new page (where the style's page
		// break before adds none), the one after it is continuous.
		{Kind: H, Level: 1, Text: "Neuer Abschnitt", Page: 4},
		{Kind: P, Text: "Fortlaufend.", Page: 4},
	}
	if got.Title != "Jahresbericht – Übersicht" || got.Pages != 4 {
		t.Errorf("title %q pages %d", got.Title, got.Pages)
	}
	fixture.CompareBlocks(t, got.Blocks, want)
}

// TestNoFormatting: when the paragraph properties cannot be read the
// text is still returned, as plain paragraphs.
func TestNoFormatting(t *testing.T) {
	s := synthetic()
	s.badPapxFKP = true
	got, err := parse(context.Background(), "bericht.doc", s.build(t))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, b := range got.Blocks {
		if b.Kind != P {
			t.Errorf("block %+v is not a paragraph", b)
		}
		texts = append(texts, b.Text)
	}
	all := strings.Join(texts, "|")
	for _, s := range []string{"|Jahresbericht 2024|", "|2. Kapitel|", "|Name|Betrag|Miete|März|1.000 €|", "|Fortlaufend."} {
		if !strings.Contains("|"+all, s) {
			t.Errorf("paragraphs lack %q: %s", s, all)
		}
	}
	// Without a stylesheet, no headings either; the rest is unchanged.
	s = synthetic()
	s.noStyles = true
	got, err = parse(context.Background(), "bericht.doc", s.build(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range got.Blocks {
		if b.Kind == H && b.Text != "Direkt gegliedert" {
			t.Errorf("heading %+v without a stylesheet", b)
		}
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	word := synthetic()
	word.paras = []synPara{{text: "Hallo", term: 0x0D}}
	word.compressed = 1
	encrypted := word
	encrypted.flags = 0x0100
	obfuscated := word
	obfuscated.flags = 0x8000 | 0x0100
	word95 := word
	word95.nFib = 0x68
	empty := word
	empty.paras = []synPara{{text: "\x13 PAGE \x14\x15\x01", term: 0x0D}, {text: " \t", term: 0x0D}}
	empty.compressed = 2
	badIdent := word.build(t)
	copy(badIdent[bytes.Index(badIdent, []byte{0xEC, 0xA5}):], "xx")
	tests := []struct {
		name   string
		data   []byte
		kind   error
		reason string
	}{
		{"empty file", nil, formats.ErrEmpty, "empty file"},
		{"not OLE", []byte("PK\x03\x04 this is a zip"), formats.ErrCorrupt, "no OLE compound file signature"},
		{"bad OLE", append(append([]byte{}, oleMagic...), make([]byte, 600)...), formats.ErrCorrupt, "damaged OLE compound file"},
		{"xls", fixture.Local(t, "sheet.xls"), formats.ErrUnsupported, "legacy Excel (.xls) workbook: not read; save it as .xlsx"},
		{"ppt", buildCFB(t, map[string][]byte{"PowerPoint Document": {1}, "Current User": {1}}), formats.ErrUnsupported, "legacy PowerPoint (.ppt): not read; save it as .pptx"},
		{"other OLE", buildCFB(t, map[string][]byte{"Contents": {1}}), formats.ErrUnsupported, "OLE file without a Word document"},
		{"encrypted docx", buildCFB(t, map[string][]byte{"EncryptionInfo": {1}, "EncryptedPackage": {1}}), formats.ErrEncrypted, "encrypted Office document"},
		{"encrypted", encrypted.build(t), formats.ErrEncrypted, "password-protected Word document"},
		{"obfuscated", obfuscated.build(t), formats.ErrEncrypted, "password-protected Word document"},
		{"Word 95", word95.build(t), formats.ErrUnsupported, "Word 6.0/95 document"},
		{"bad FIB signature", badIdent, formats.ErrCorrupt, "bad signature"},
		{"no text", empty.build(t), formats.ErrEmpty, "Word document has no text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(ctx, "x.doc", tt.data)
			if !errors.Is(err, tt.kind) {
				t.Fatalf("err = %v, want %v", err, tt.kind)
			}
			var fe *formats.Error
			if !errors.As(err, &fe) || fe.Source != "x.doc" || !strings.Contains(fe.Reason, tt.reason) {
				t.Errorf("error %q does not name the file and say %q", err, tt.reason)
			}
		})
	}
}

// TestMissingTableStream: a FIB naming 1Table in a file without one.
func TestMissingTableStream(t *testing.T) {
	data := buildCFB(t, map[string][]byte{"WordDocument": wordDocumentOf(t, synthetic().build(t))})
	_, err := parse(context.Background(), "x.doc", data)
	if !errors.Is(err, formats.ErrCorrupt) || !strings.Contains(err.Error(), "no 1Table stream") {
		t.Fatalf("err = %v", err)
	}
}

// wordDocumentOf returns the WordDocument stream of a .doc file.
func wordDocumentOf(t *testing.T, data []byte) []byte {
	streams, err := openStreams(data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := readStream(streams["WordDocument"], len(data))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDamaged cuts and corrupts the fixtures: every result is an error
// or a document, never a panic (parse does not recover from panics).
func TestDamaged(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"contract.doc", "handbook.doc", "policy.doc", "sample.doc", "revisions.doc"} {
		data := fixture.Local(t, name)
		for _, cut := range []int{8, 100, 511, 512, 1000, len(data) / 3, len(data) / 2, len(data) - 512, len(data) - 1} {
			if _, err := parse(ctx, name, data[:cut]); err == nil {
				t.Errorf("%s cut at %d: no error", name, cut)
			}
		}
		// Flip each byte of the FIB that the parser reads: FibBase,
		// the counts, FibRgLw97.ccpText and the (fc, lcb) pairs used.
		fibAt := bytes.Index(data, []byte{0xEC, 0xA5, 0x01, 0x01})
		if fibAt < 0 {
			t.Fatalf("%s: FIB not found", name)
		}
		var offsets []int
		for i := 0; i < 34; i++ {
			offsets = append(offsets, i)
		}
		offsets = append(offsets, 62, 63, 76, 77, 78, 79, 152, 153)
		for _, pair := range []int{iStshf, iPlcfSed, iPlcfBteChpx, iPlcfBtePapx, iClx} {
			for i := 0; i < 8; i++ {
				offsets = append(offsets, 154+8*pair+i)
			}
		}
		for _, i := range offsets {
			for _, x := range []byte{0xFF, 0x80, 0x01} {
				flipped := bytes.Clone(data)
				flipped[fibAt+i] ^= x
				doc, err := parse(ctx, name, flipped)
				if err == nil && len(doc.Blocks) == 0 {
					t.Errorf("%s flip %d: no blocks and no error", name, i)
				}
			}
		}
		flipped := bytes.Clone(data)
		for i := 600; i < len(flipped); i += 331 {
			flipped[i] ^= 0x5A
		}
		_, _ = parse(ctx, name, flipped)
	}
}

// TestCorruptFIB checks that offsets pointing out of their stream give
// ErrCorrupt.
func TestCorruptFIB(t *testing.T) {
	data := fixture.Local(t, "policy.doc")
	fibAt := bytes.Index(data, []byte{0xEC, 0xA5, 0x01, 0x01})
	for _, tt := range []struct {
		name string
		off  int // in the FIB
		val  uint32
	}{
		{"fcClx", 154 + 8*iClx, 0x7FFFFFF0},
		{"lcbClx", 154 + 8*iClx + 4, 0x7FFFFFF0},
		{"ccpText", 64 + 12, 0x7FFFFFF0},
		{"cbRgFcLcb", 152, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := bytes.Clone(data)
			if tt.name == "cbRgFcLcb" {
				put16(b, fibAt+tt.off, int(tt.val))
			} else {
				put32(b, fibAt+tt.off, int(tt.val))
			}
			_, err := parse(context.Background(), "x.doc", b)
			if !errors.Is(err, formats.ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Parse(ctx, "x.doc", fixture.Local(t, "policy.doc")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"contract.doc", "handbook.doc", "policy.doc", "sample.doc", "revisions.doc", "sheet.xls"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(synthetic().build(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := parse(context.Background(), "f.doc", data)
		if err != nil {
			var fe *formats.Error
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a *formats.Error: %v", err)
			}
			return
		}
		for _, b := range doc.Blocks {
			if b.Text == "" || b.Page < 1 || b.Page > doc.Pages {
				t.Fatalf("bad block %+v (pages %d)", b, doc.Pages)
			}
		}
	})
}
