package docx

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/internal/fixture"
)

// makeDocx zips the given parts (name -> XML) into a .docx.
func makeDocx(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const wHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><w:body>`

func docBody(xml string) string { return wHead + xml + `</w:body></w:document>` }

func p(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

// stylesXML defines localized heading styles: French "Titre1" by name,
// German "berschrift2" by outline level, a custom style inheriting from
// Titre1, a style whose name is localized too, and a chapter style that
// forces a page break.
const stylesXML = `<?xml version="1.0" encoding="UTF-8"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Titre1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="Überschrift Zwei"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="MeinTitel"><w:name w:val="Mein Titel"/><w:basedOn w:val="Titre1"/></w:style>
<w:style w:type="paragraph" w:styleId="Kop3"><w:name w:val="Kop 3"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Chapter"><w:name w:val="Chapter"/><w:basedOn w:val="Titre1"/><w:pPr><w:pageBreakBefore/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="BodyOutline"><w:name w:val="Body"/><w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="LoopA"><w:name w:val="Loop A"/><w:basedOn w:val="LoopB"/></w:style>
<w:style w:type="paragraph" w:styleId="LoopB"><w:name w:val="Loop B"/><w:basedOn w:val="LoopA"/></w:style>
</w:styles>`

const coreXML = `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Rahmenvertrag  2024</dc:title></cp:coreProperties>`

func TestParseGenerated(t *testing.T) {
	doc := docBody(
		p("Titre1", "1. Geltungsbereich") +
			p("", "Dieser Vertrag gilt für alle Leistungen.") +
			`<w:p><w:r><w:t>Vor dem Umbruch</w:t></w:r><w:r><w:br w:type="page"/></w:r><w:r><w:t> und danach</w:t></w:r></w:p>` +
			p("berschrift2", "1.1 Zahlung") +
			`<w:p><w:r><w:t>Zins</w:t></w:r><w:r><w:tab/><w:t>1,5 %</w:t></w:r><w:del><w:r><w:delText>gestrichen</w:delText></w:r></w:del><w:r><w:instrText>PAGE</w:instrText></w:r></w:p>` +
			`<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Meilenstein</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Betrag</w:t></w:r></w:p></w:tc></w:tr>` +
			`<w:tr><w:tc><w:p><w:r><w:t>Start</w:t></w:r></w:p><w:p><w:r><w:t>(Kick-off)</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>12.500 €</w:t></w:r></w:p></w:tc></w:tr></w:tbl>` +
			p("MeinTitel", "2. Haftung") +
			p("Kop3", "2.0.1 Kleingedrucktes") +
			p("BodyOutline", "Kein Titel trotz Gliederung") +
			p("LoopA", "Zyklische Formatvorlage") +
			p("Undefined", "Text mit unbekannter Formatvorlage") +
			`<w:p><w:pPr><w:sectPr><w:type w:val="nextPage"/></w:sectPr></w:pPr><w:r><w:t>Ende Abschnitt eins</w:t></w:r></w:p>` +
			p("Chapter", "3. Anhang") +
			`<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:t>Textfeld</w:t></mc:Choice><mc:Fallback><w:t>Textfeld</w:t></mc:Fallback></mc:AlternateContent></w:r></w:p>` +
			`<w:p><w:pPr><w:outlineLvl w:val="2"/></w:pPr><w:r><w:t>Direkte Gliederung</w:t></w:r></w:p>` +
			`<w:p><w:pPr><w:sectPr/></w:pPr><w:r><w:t>Ende Abschnitt zwei</w:t></w:r></w:p>` +
			p("", "Fortlaufend") +
			`<w:sectPr><w:type w:val="continuous"/></w:sectPr>`)
	data := makeDocx(t, map[string]string{
		"word/document.xml": doc,
		"word/styles.xml":   stylesXML,
		"docProps/core.xml": coreXML,
	})
	got, err := Parse(context.Background(), "vertrag.docx", data)
	if err != nil {
		t.Fatal(err)
	}
	H, P, T := document.Heading, document.Paragraph, document.Table
	want := []document.Block{
		{Kind: H, Level: 1, Text: "1. Geltungsbereich", Page: 1},
		{Kind: P, Text: "Dieser Vertrag gilt für alle Leistungen.", Page: 1},
		{Kind: P, Text: "Vor dem Umbruch und danach", Page: 1},
		{Kind: H, Level: 2, Text: "1.1 Zahlung", Page: 2},
		{Kind: P, Text: "Zins 1,5 %", Page: 2},
		{Kind: T, Text: "Meilenstein | Betrag\nStart (Kick-off) | 12.500 €", Page: 2},
		{Kind: H, Level: 1, Text: "2. Haftung", Page: 2},
		{Kind: H, Level: 3, Text: "2.0.1 Kleingedrucktes", Page: 2},
		{Kind: P, Text: "Kein Titel trotz Gliederung", Page: 2},
		{Kind: P, Text: "Zyklische Formatvorlage", Page: 2},
		{Kind: P, Text: "Text mit unbekannter Formatvorlage", Page: 2},
		{Kind: P, Text: "Ende Abschnitt eins", Page: 2},
		// The section break above starts a new page (nextPage); the
		// chapter style's pageBreakBefore does not add another one.
		{Kind: H, Level: 1, Text: "3. Anhang", Page: 3},
		{Kind: P, Text: "Textfeld", Page: 3},
		{Kind: H, Level: 3, Text: "Direkte Gliederung", Page: 3},
		{Kind: P, Text: "Ende Abschnitt zwei", Page: 3},
		// The last section is continuous: same page.
		{Kind: P, Text: "Fortlaufend", Page: 3},
	}
	if got.Title != "Rahmenvertrag 2024" || got.Format != "docx" || got.Source != "vertrag.docx" {
		t.Errorf("doc = title %q format %q source %q", got.Title, got.Format, got.Source)
	}
	if got.Pages != 3 {
		t.Errorf("Pages = %d, want 3", got.Pages)
	}
	fixture.CompareBlocks(t, got.Blocks, want)
}

func TestLastRenderedPageBreaks(t *testing.T) {
	// When Word recorded its layout, lastRenderedPageBreak markers are the
	// page boundaries and explicit breaks are not counted twice.
	doc := docBody(p("", "Seite eins") +
		`<w:p><w:r><w:br w:type="page"/></w:r><w:r><w:lastRenderedPageBreak/><w:t>Seite zwei</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t xml:space="preserve">noch zwei, dann </w:t></w:r><w:r><w:lastRenderedPageBreak/><w:t>drei</w:t></w:r></w:p>` +
		p("", "Seite drei"))
	got, err := Parse(context.Background(), "a.docx", makeDocx(t, map[string]string{"word/document.xml": doc}))
	if err != nil {
		t.Fatal(err)
	}
	fixture.CompareBlocks(t, got.Blocks, []document.Block{
		{Kind: document.Paragraph, Text: "Seite eins", Page: 1},
		{Kind: document.Paragraph, Text: "Seite zwei", Page: 2},
		{Kind: document.Paragraph, Text: "noch zwei, dann drei", Page: 2},
		{Kind: document.Paragraph, Text: "Seite drei", Page: 3},
	})
}

func TestFixtures(t *testing.T) {
	type heading struct {
		text        string
		level, page int
	}
	tests := []struct {
		file     string
		title    string
		pages    int
		headings []heading
		table    string
	}{
		{"contract.docx", "Master Services Agreement", 14, []heading{
			{"MASTER SERVICES AGREEMENT", 1, 1},
			{"1. Definitions and Interpretation", 1, 2},
			{"7. Late Payment Penalties", 1, 8},
			{"7.1 Interest on Overdue Amounts", 2, 8},
			{"7.2 Suspension of Services", 2, 8},
			{"12. Governing Law and Jurisdiction", 1, 13},
			{"Appendix A – Glossary (two columns)", 1, 14},
		}, "Kick-off | 15 March 2024 | €12,500.00 | Non-refundable"},
		{"contract_localized_styles.docx", "Master Services Agreement", 14, []heading{
			{"5. Fees and Payment Schedule", 1, 6},
			{"7. Late Payment Penalties", 1, 8},
			{"7.1 Interest on Overdue Amounts", 2, 8},
			{"9.1 Explicit ligature code points", 2, 10},
		}, "Go-live | 1 July 2024 | €48,000.00 | Subject to SLA credits"},
		{"policy.docx", "Information Security Policy", 1, []heading{
			{"2. Password Requirements", 2, 1},
			{"2.1 Exceptions", 3, 1},
			{"5.1.1 Deeply nested heading with code and a link", 4, 1},
		}, "Restricted | Payment card data | 90 days"},
		{"handbook.docx", "Employee Handbook – Travel & Expenses | Globex Intranet", 1, []heading{
			{"Travel & Expenses Policy", 1, 1},
			{"3. Late Submission Penalties", 2, 1},
		}, "Meals | €60 | Yes, above €25"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			doc, err := Parse(context.Background(), tt.file, fixture.Read(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if doc.Title != tt.title || doc.Pages != tt.pages {
				t.Errorf("title %q pages %d, want %q %d", doc.Title, doc.Pages, tt.title, tt.pages)
			}
			found := map[heading]bool{}
			tables := ""
			for _, b := range doc.Blocks {
				switch b.Kind {
				case document.Heading:
					found[heading{b.Text, b.Level, b.Page}] = true
				case document.Table:
					tables += b.Text + "\n"
				}
			}
			for _, h := range tt.headings {
				if !found[h] {
					t.Errorf("missing heading %+v; have %v", h, found)
				}
			}
			if !strings.Contains(tables, tt.table) {
				t.Errorf("tables lack row %q:\n%s", tt.table, tables)
			}
		})
	}
}

func TestLatePaymentText(t *testing.T) {
	doc, err := Parse(context.Background(), "contract.docx", fixture.Read(t, "contract.docx"))
	if err != nil {
		t.Fatal(err)
	}
	// The interest clause sits under 7.1 on page 8; ligature code points
	// are folded so "efficient" is searchable.
	section := ""
	var clause, ligature *document.Block
	for i, b := range doc.Blocks {
		if b.Kind == document.Heading {
			section = b.Text
		}
		if strings.Contains(b.Text, "1.5% per month") {
			clause = &doc.Blocks[i]
			if section != "7.1 Interest on Overdue Amounts" {
				t.Errorf("interest clause under %q", section)
			}
		}
		if strings.Contains(b.Text, "Explicit Unicode ligatures") {
			ligature = &doc.Blocks[i]
		}
	}
	if clause == nil || clause.Page != 8 {
		t.Errorf("interest clause = %+v, want on page 8", clause)
	}
	if ligature == nil || !strings.Contains(ligature.Text, "financial flow, efficient, baffle") {
		t.Errorf("ligature paragraph = %+v", ligature)
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	valid := makeDocx(t, map[string]string{"word/document.xml": docBody(p("", "hello"))})
	tests := []struct {
		name string
		data []byte
		kind error
	}{
		{"empty", nil, formats.ErrEmpty},
		{"not zip", []byte("this is not a zip file at all"), formats.ErrCorrupt},
		{"truncated", valid[:len(valid)/2], formats.ErrCorrupt},
		{"no document.xml", makeDocx(t, map[string]string{"content.xml": "<x/>", "mimetype": "application/vnd.oasis.opendocument.text"}), formats.ErrUnsupported},
		{"no text", makeDocx(t, map[string]string{"word/document.xml": docBody(`<w:p/>`)}), formats.ErrEmpty},
		{"bad xml", makeDocx(t, map[string]string{"word/document.xml": wHead + `<w:p><w:r><w:t>unterminated &bogus; <<<`}), formats.ErrCorrupt},
		{"encrypted", append([]byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), []byte("....E\x00n\x00c\x00r\x00y\x00p\x00t\x00i\x00o\x00n\x00I\x00n\x00f\x00o\x00")...), formats.ErrEncrypted},
		{"legacy doc", []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1WordDocument"), formats.ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(ctx, "x.docx", tt.data)
			if !errors.Is(err, tt.kind) {
				t.Fatalf("err = %v, want %v", err, tt.kind)
			}
			if !strings.HasPrefix(err.Error(), "x.docx: ") {
				t.Errorf("message %q does not name the file", err)
			}
		})
	}
}

func TestDamagedFixtureNeverPanics(t *testing.T) {
	data := fixture.Read(t, "contract.docx")
	for _, cut := range []int{10, 100, 1000, len(data) / 3, len(data) / 2, len(data) - 30} {
		if _, err := Parse(context.Background(), "cut.docx", data[:cut]); err == nil {
			t.Errorf("cut at %d: no error", cut)
		}
	}
	flipped := bytes.Clone(data)
	for i := 200; i < len(flipped); i += 997 {
		flipped[i] ^= 0x5a
	}
	_, _ = Parse(context.Background(), "flip.docx", flipped) // must not panic
}

func TestZipBomb(t *testing.T) {
	// A highly compressible document.xml larger than the limit is refused
	// without being read whole.
	var sb strings.Builder
	sb.WriteString(wHead + "<w:p><w:r><w:t>")
	const limit = 1 << 20
	sb.WriteString(strings.Repeat("a", 4*limit))
	sb.WriteString("</w:t></w:r></w:p></w:body></w:document>")
	data := makeDocx(t, map[string]string{"word/document.xml": sb.String()})
	if len(data) > limit/32 {
		t.Fatalf("test bomb is %d bytes compressed", len(data))
	}
	_, err := parse(context.Background(), "bomb.docx", data, limit)
	if !errors.Is(err, formats.ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if _, err := Parse(context.Background(), "bomb.docx", data); err != nil {
		t.Fatalf("below the default limit: %v", err)
	}
}

func TestHeadingLevel(t *testing.T) {
	styles, err := parseStyles([]byte(stylesXML))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]int{
		"Titre1": 1, "berschrift2": 2, "MeinTitel": 1, "Kop3": 3, "Chapter": 1,
		"BodyOutline": 0, "LoopA": 0, "Normal": 0, "Heading4": 4, "Title": 1, "Missing": 0,
	} {
		if got := headingLevel(styles, id); got != want {
			t.Errorf("headingLevel(%q) = %d, want %d", id, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(makeDocx(f, map[string]string{"word/document.xml": docBody(p("Heading1", "Title") + p("", "text"))}))
	f.Add(makeDocx(f, map[string]string{"word/document.xml": docBody(`<w:tbl><w:tr><w:tc><w:tbl><w:tr><w:tc>` + p("", "x") + `</w:tc></w:tr></w:tbl></w:tc></w:tr></w:tbl>`), "word/styles.xml": stylesXML}))
	f.Add([]byte("PK\x03\x04garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(context.Background(), "f.docx", data)
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

// ExampleParse shows the block structure of a minimal document.
func ExampleParse() {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	fmt.Fprint(w, docBody(p("Heading1", "1. Scope")+p("", "The services are described below.")))
	zw.Close()
	doc, err := Parse(context.Background(), "scope.docx", buf.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range doc.Blocks {
		fmt.Printf("%s %d p%d: %s\n", b.Kind, b.Level, b.Page, b.Text)
	}
	// Output:
	// heading 1 p1: 1. Scope
	// paragraph 0 p1: The services are described below.
}
