package main

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// slide is one slide of the template deck.
type slide struct {
	title   string
	bullets []string
	table   [][]string
	notes   string
}

var deck = []slide{
	{title: "Quarterly review", bullets: []string{"Third quarter 2024", "Prepared by the finance team"}},
	{title: "Revenue by region", bullets: []string{"EMEA grew 9% to 1,204", "APAC flat at 912"},
		table: [][]string{{"Region", "Q3 2024"}, {"EMEA", "1,204"}, {"APAC", "912"}},
		notes: "Mention that the EMEA figure includes the new Lisbon office."},
	{bullets: []string{"A slide without a title placeholder keeps its number."}, notes: "Skip this slide if time is short."},
}

const nsDecl = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`

// writePPTX writes formats/pptx/testdata/review.pptx from the deck above:
// the parts PowerPoint writes for slides, their relationships and notes
// (masters and layouts, which hold no text, are left out).
func writePPTX() error {
	parts := map[string]string{}
	var ids, rels, types strings.Builder
	for i, s := range deck {
		n := i + 1
		fmt.Fprintf(&ids, `<p:sldId id="%d" r:id="rId%d"/>`, 255+n, n+1)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide%d.xml"/>`, n+1, n)
		fmt.Fprintf(&types, `<Override PartName="/ppt/slides/slide%d.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>`, n)
		parts[fmt.Sprintf("ppt/slides/slide%d.xml", n)] = slideXML(s, n)
		slideRels := `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slideLayout" Target="../slideLayouts/slideLayout1.xml"/>`
		if s.notes != "" {
			slideRels += fmt.Sprintf(`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/notesSlide%d.xml"/>`, n)
			parts[fmt.Sprintf("ppt/notesSlides/notesSlide%d.xml", n)] = notesXML(s.notes, n)
			fmt.Fprintf(&types, `<Override PartName="/ppt/notesSlides/notesSlide%d.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.notesSlide+xml"/>`, n)
		}
		parts[fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", n)] = relsXML(slideRels)
	}
	parts["ppt/presentation.xml"] = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
		`<p:presentation ` + nsDecl + `><p:sldIdLst>` + ids.String() + `</p:sldIdLst><p:sldSz cx="12192000" cy="6858000"/></p:presentation>`
	parts["ppt/_rels/presentation.xml.rels"] = relsXML(rels.String())
	parts["_rels/.rels"] = relsXML(`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="ppt/presentation.xml"/>`)
	parts["docProps/core.xml"] = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Quarterly review Q3 2024</dc:title></cp:coreProperties>`
	parts["[Content_Types].xml"] = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
		`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
		`<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>` + types.String() + `</Types>`
	return writeZip(filepath.Join("formats", "pptx", "testdata", "review.pptx"), parts)
}

func slideXML(s slide, n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:sld ` + nsDecl + `><p:cSld><p:spTree>`)
	if s.title != "" {
		b.WriteString(`<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title 1"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:rPr lang="en-GB"/><a:t>` + esc(s.title) + `</a:t></a:r></a:p></p:txBody></p:sp>`)
	}
	b.WriteString(`<p:sp><p:nvSpPr><p:cNvPr id="3" name="Content 2"/><p:cNvSpPr/><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr><p:txBody>`)
	for _, t := range s.bullets {
		b.WriteString(`<a:p><a:r><a:t>` + esc(t) + `</a:t></a:r></a:p>`)
	}
	b.WriteString(`</p:txBody></p:sp>`)
	if len(s.table) > 0 {
		b.WriteString(`<p:graphicFrame><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl>`)
		for _, r := range s.table {
			b.WriteString(`<a:tr h="370840">`)
			for _, c := range r {
				b.WriteString(`<a:tc><a:txBody><a:p><a:r><a:t>` + esc(c) + `</a:t></a:r></a:p></a:txBody></a:tc>`)
			}
			b.WriteString(`</a:tr>`)
		}
		b.WriteString(`</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`)
	}
	fmt.Fprintf(&b, `<p:sp><p:nvSpPr><p:cNvPr id="9" name="Slide Number"/><p:cNvSpPr/><p:nvPr><p:ph type="sldNum"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:fld type="slidenum"><a:t>%d</a:t></a:fld></a:p></p:txBody></p:sp>`, n)
	b.WriteString(`</p:spTree></p:cSld></p:sld>`)
	return b.String()
}

func notesXML(text string, n int) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:notes ` + nsDecl + `><p:cSld><p:spTree>` +
		`<p:sp><p:nvSpPr><p:cNvPr id="2" name="Slide Image"/><p:cNvSpPr/><p:nvPr><p:ph type="sldImg"/></p:nvPr></p:nvSpPr></p:sp>` +
		`<p:sp><p:nvSpPr><p:cNvPr id="3" name="Notes"/><p:cNvSpPr/><p:nvPr><p:ph type="body" idx="1"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>` + esc(text) + `</a:t></a:r></a:p></p:txBody></p:sp>` +
		fmt.Sprintf(`<p:sp><p:nvSpPr><p:cNvPr id="4" name="Number"/><p:cNvSpPr/><p:nvPr><p:ph type="sldNum"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>%d</a:t></a:r></a:p></p:txBody></p:sp>`, n) +
		`</p:spTree></p:cSld></p:notes>`
}

func relsXML(body string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + body + `</Relationships>`
}

var esc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace

// writeZip writes the parts, in name order, as a zip file.
func writeZip(out string, parts map[string]string) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	for _, name := range sortedKeys(parts) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			return err
		}
		if _, err := w.Write([]byte(parts[name])); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
