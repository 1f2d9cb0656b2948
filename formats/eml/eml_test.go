package eml

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/internal/fixture"
)

// render is the document's blocks, one a line: "kind/page: text".
func render(doc *document.Document) string {
	var sb strings.Builder
	for _, b := range doc.Blocks {
		fmt.Fprintf(&sb, "%s/%d: %s\n", b.Kind, b.Page, strings.ReplaceAll(b.Text, "\n", " / "))
	}
	return sb.String()
}

func TestParseWithAttachments(t *testing.T) {
	var names []string
	p := Parser{Attachment: func(ctx context.Context, name string, data []byte) (*document.Document, error) {
		names = append(names, name)
		if strings.HasSuffix(name, ".xlsx") {
			return nil, formats.Errorf(name, formats.ErrCorrupt, "not a valid XLSX (zip) file")
		}
		// A stand-in reader: one page per attachment, its first line.
		first, _, _ := strings.Cut(string(data), "\n")
		return &document.Document{Pages: 2, Blocks: []document.Block{
			{Kind: document.Heading, Level: 1, Text: "Part", Page: 2},
			{Text: fmt.Sprintf("%d bytes, first line %q", len(data), strings.TrimSpace(first)), Page: 2},
		}}, nil
	}}
	doc, err := p.Parse(context.Background(), "budget.eml", fixture.Local(t, "budget.eml"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Budget 2025 and the Q3 review" || doc.Format != formats.EML || doc.Pages != 2 {
		t.Errorf("title %q format %q pages %d", doc.Title, doc.Format, doc.Pages)
	}
	got := render(doc)
	for _, want := range []string{
		"paragraph/0: Subject: Budget 2025 and the Q3 review / From: Ines Duarte <ines.duarte@example.org> / To: Finance team <finance@example.org> / Cc: Kenji Mori <kenji.mori@example.org> / Date: Wed, 02 Oct 2024 09:14:00 +0100\n",
		"paragraph/0: The research budget for 2025 is attached; the deck from Tuesday's review is attached too.\n",
		"paragraph/0: Attachments not read: old-figures.xlsx (not a valid XLSX (zip) file)\n",
		"heading/2: Attachment: budget.csv\nheading/2: Part\nparagraph/2: 59 bytes, first line \"Team,Budget 2025\"\n",
		"heading/2: Attachment: review.pptx\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "<b>") || strings.Count(got, "research budget") != 1 {
		t.Errorf("the HTML alternative should be left out when there is plain text:\n%s", got)
	}
	if strings.Join(names, ",") != "budget.csv,review.pptx,old-figures.xlsx" {
		t.Errorf("attachments read: %v", names)
	}
	for _, b := range doc.Blocks {
		if b.Text == "Part" && b.Level != 2 {
			t.Errorf("an attachment's headings go under its heading: %+v", b)
		}
	}
}

func TestParseCharsetsAndHTML(t *testing.T) {
	doc, err := Parse(context.Background(), "latin1.eml", fixture.Local(t, "latin1.eml"))
	if err != nil {
		t.Fatal(err)
	}
	got := render(doc)
	for _, want := range []string{"Subject: Grüße aus München", "From: Jürgen Müller <jm@example.org>", "Die Miete für Büro 4 beträgt 1.850 € pro Monat."} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	doc, err = Parse(context.Background(), "html-only.eml", fixture.Local(t, "html-only.eml"))
	if err != nil {
		t.Fatal(err)
	}
	got = render(doc)
	if !strings.Contains(got, "The Lisbon office is closed on Monday 7 October for maintenance.") || strings.Contains(got, "color:red") {
		t.Errorf("HTML body:\n%s", got)
	}
}

func TestAttachmentsNamedWithoutReader(t *testing.T) {
	doc, err := Parse(context.Background(), "budget.eml", fixture.Local(t, "budget.eml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := render(doc); !strings.Contains(got, "Attachments not read: budget.csv; review.pptx; old-figures.xlsx") {
		t.Errorf("attachments not named:\n%s", got)
	}
}

func TestBadMessages(t *testing.T) {
	deep := "Content-Type: text/plain\n\nhello"
	for i := 0; i < MaxDepth+2; i++ {
		deep = fmt.Sprintf("From: a\nContent-Type: multipart/mixed; boundary=b%d\n\n--b%d\n%s\n--b%d--\n", i, i, deep, i)
	}
	many := "From: a\nContent-Type: multipart/mixed; boundary=b\n\n" + strings.Repeat("--b\nContent-Type: text/plain\n\nx\n", MaxParts+1) + "--b--\n"
	for _, tc := range []struct {
		name, data string
		kind       error
	}{
		{"no header", "just some words\nwithout a header", formats.ErrCorrupt},
		{"no boundary", "From: a\nContent-Type: multipart/mixed\n\nbody", formats.ErrCorrupt},
		{"empty body", "From: a\nSubject: nothing\n\n\n", formats.ErrEmpty},
		{"nested too deep", deep, formats.ErrTooLarge},
		{"too many parts", many, formats.ErrTooLarge},
	} {
		_, err := Parse(context.Background(), "x.eml", []byte(tc.data))
		if !errors.Is(err, tc.kind) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.kind)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", tc.name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(fixture.Local(f, "budget.eml"))
	f.Add(fixture.Local(f, "latin1.eml"))
	f.Add(fixture.Local(f, "html-only.eml"))
	p := Parser{Attachment: func(ctx context.Context, name string, data []byte) (*document.Document, error) {
		return Parser{}.Parse(ctx, name, data) // attachments read as messages: nesting
	}}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := p.Parse(context.Background(), "f.eml", data)
		if err == nil && len(doc.Blocks) == 0 {
			t.Fatal("no error and no blocks")
		}
	})
}
