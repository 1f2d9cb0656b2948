// Package document defines the format-neutral form every parser produces: a
// sequence of blocks (headings, paragraphs, tables) each on a known page.
// The loader package turns a Document into retrievable sections.
package document

import "time"

// Kind is the kind of a Block.
type Kind int

// Block kinds.
const (
	// Paragraph is running text.
	Paragraph Kind = iota
	// Heading starts a section; Level 1 is the outermost.
	Heading
	// Table is a table rendered as text, one row a line, cells separated
	// by " | ".
	Table
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case Heading:
		return "heading"
	case Table:
		return "table"
	default:
		return "paragraph"
	}
}

// Block is one heading, paragraph or table.
type Block struct {
	Kind Kind
	// Level is the heading level (1 = outermost); 0 for other kinds.
	Level int
	Text  string
	// Page is the 1-based page the block starts on; 0 when the format has
	// no pages.
	Page int
}

// Document is a parsed file.
type Document struct {
	// Source is the path the document was read from.
	Source string
	// Format is "pdf", "docx", "html", "markdown" or "text".
	Format string
	// Title is the document's own title when it declares one.
	Title string
	// Entity is the organisation (or person, product, place) the document
	// is about when it states one, such as a filing's registrant.
	Entity string
	// Period is the period the document covers when it states one, such as
	// "fiscal year ended May 31, 2023".
	Period string
	Blocks []Block
	// Pages is the number of pages, 0 when the format has none.
	Pages int
	// PageLabels maps a 1-based page number to its printed label ("iv",
	// "A-3") where the document declares labels.
	PageLabels map[int]string
	// PrintedPages marks the pages whose label in PageLabels is the page
	// number printed on the page itself (in its header or footer, or
	// declared by the file as the page's label), as opposed to the page's
	// index in the file.
	PrintedPages map[int]bool
	// OCR says which pages were read by optical character recognition,
	// and which needed it but were not.
	OCR OCRStats
}

// OCRStats is what OCR did on one document.
type OCRStats struct {
	// Pages is the number of pages (or images) read by OCR.
	Pages int
	// Time is the time spent on OCR, page rendering included.
	Time time.Duration
	// Needed is the number of pages that have no usable text layer and
	// were not read by OCR; Reason says why (Tesseract not installed,
	// OCR off, Tesseract failed).
	Needed int
	Reason string
}
