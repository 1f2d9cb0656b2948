package pdf

import (
	"bytes"
	"fmt"
	"strings"
)

// genText is one line of text placed on a generated page.
type genText struct {
	x, y, size float64
	bold       bool
	text       string // ASCII only
}

// genPDF describes a small PDF written by makePDF.
type genPDF struct {
	title  string
	labels bool // pages 1-2 labelled i, ii; then 1, 2, ...
	pages  [][]genText
}

func pdfString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
	return "(" + r.Replace(s) + ")"
}

// makePDF writes a minimal, valid PDF 1.4 file using the standard
// Helvetica fonts, with a correct cross-reference table.
func makePDF(g genPDF) []byte {
	var buf bytes.Buffer
	var offsets []int
	obj := func(body string) int {
		offsets = append(offsets, buf.Len())
		n := len(offsets)
		fmt.Fprintf(&buf, "%d 0 obj\n%s\nendobj\n", n, body)
		return n
	}
	buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	// Object numbers: 1 catalog, 2 pages, 3-4 fonts, 5 info, then a page
	// and its content per page.
	first := 6
	var kids []string
	for i := range g.pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", first+2*i))
	}
	catalog := "<< /Type /Catalog /Pages 2 0 R"
	if g.labels {
		catalog += " /PageLabels << /Nums [0 << /S /r >> 2 << /S /D /St 1 >>] >>"
	}
	obj(catalog + " >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(g.pages)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
	obj("<< /Title " + pdfString(g.title) + " /Producer (docmind test) >>")
	for i, page := range g.pages {
		var content strings.Builder
		for _, t := range page {
			font := "F1"
			if t.bold {
				font = "F2"
			}
			fmt.Fprintf(&content, "BT /%s %.1f Tf %.1f %.1f Td %s Tj ET\n", font, t.size, t.x, t.y, pdfString(t.text))
		}
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>", first+2*i+1))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", content.Len(), content.String()))
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&buf, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R /Info 5 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return buf.Bytes()
}

// handbookPDF is a 4-page document without bookmarks: running header and
// footer, numbered and unnumbered headings in larger fonts, a wrapped
// heading, body text with numbered list items, and page labels.
func handbookPDF() []byte {
	body := func(y float64, s string) genText { return genText{72, y, 11, false, s} }
	head := func(y, size float64, s string) genText { return genText{72, y, size, true, s} }
	chrome := func(page int) []genText {
		return []genText{
			{72, 760, 9, false, "Globex Travel Handbook - Internal"},
			{260, 40, 9, false, fmt.Sprintf("Page %d of 4", page)},
		}
	}
	pages := [][]genText{
		append(chrome(1),
			head(700, 18, "Overview"),
			body(670, "This handbook explains how employees travel on company business."),
			body(656, "It applies to every office and every contractor."),
			head(620, 18, "1. Booking Travel"),
			body(590, "Flights are booked through the travel portal."),
			body(576, "1. The traveller requests approval first."),
			body(562, "2. The manager approves within two days."),
			body(530, "A new paragraph starts after a wider gap."),
		),
		append(chrome(2),
			head(700, 14, "1.1 Hotels"),
			body(670, "The nightly hotel cap is 180 euros in most cities."),
		),
		append(chrome(3),
			head(700, 18, "2. Late Submission Penalties Apply When"),
			head(678, 18, "Claims Arrive After Ninety Days"),
			body(650, "Claims submitted more than 90 days late are reimbursed at 50 percent."),
		),
		append(chrome(4),
			body(700, "Questions go to the finance team."),
		),
	}
	return makePDF(genPDF{title: "Travel Handbook", labels: true, pages: pages})
}
