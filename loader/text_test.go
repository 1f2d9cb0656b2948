package loader

import (
	"strings"
	"testing"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

func TestTextHeadingHeuristics(t *testing.T) {
	tests := []struct {
		line         string
		alone, nextN bool
		level        int
		ok           bool
	}{
		{"7. Fees and Payment", false, false, 1, true},
		{"7.3 Late Payment Penalties", false, false, 2, true},
		{"7.3.1 Interest", true, false, 3, true},
		{"1. Client shall pay every invoice on time.", false, false, 0, false},
		{"1. Use a password manager", false, true, 0, false}, // a list
		{"2. lower case start", true, false, 0, false},
		{"LIMITATION OF LIABILITY", false, false, 1, true},
		{"NOTE: READ THIS.", false, false, 0, false},
		{"Governing Law", true, false, 2, true},
		{"Governing Law", false, false, 0, false}, // text follows directly
		{"Effective date:", true, false, 0, false},
		{"This line is a rather long sentence without a period at the end", true, false, 0, false},
		{"lower case line", true, false, 0, false},
		{"A, B,", true, false, 0, false},
		{"Where is it?", true, false, 0, false},
	}
	for _, tt := range tests {
		level, ok := textHeading(tt.line, tt.alone, tt.nextN)
		if ok != tt.ok || level != tt.level {
			t.Errorf("textHeading(%q, alone=%v, nextNumbered=%v) = %d, %v; want %d, %v",
				tt.line, tt.alone, tt.nextN, level, ok, tt.level, tt.ok)
		}
	}
}

func TestParseText(t *testing.T) {
	in := "MASTER AGREEMENT\n\nIntro paragraph\nwrapped line.\n\n" +
		"1. Fees\nClient pays monthly.\n\f" +
		"1.1 Late Payment Penalties\nA late fee of 1.5% per month applies.\n\n" +
		"Steps:\n1. Send notice\n2. Wait\n\n" +
		"Governing Law\n\nDelaware law applies.\n"
	doc := ParseText("c.txt", in)
	want := []blk{
		{document.Heading, 1, "MASTER AGREEMENT", 1},
		{document.Paragraph, 0, "Intro paragraph\nwrapped line.", 1},
		{document.Heading, 1, "1. Fees", 1},
		{document.Paragraph, 0, "Client pays monthly.", 1},
		{document.Heading, 2, "1.1 Late Payment Penalties", 2},
		{document.Paragraph, 0, "A late fee of 1.5% per month applies.", 2},
		{document.Paragraph, 0, "Steps:\n1. Send notice\n2. Wait", 2},
		{document.Heading, 2, "Governing Law", 2},
		{document.Paragraph, 0, "Delaware law applies.", 2},
	}
	checkBlocks(t, doc, want)
	if doc.Pages != 2 || doc.Title != "MASTER AGREEMENT" || doc.Format != formats.Text {
		t.Errorf("pages %d title %q format %q", doc.Pages, doc.Title, doc.Format)
	}
}

func TestParseTextWithoutFormFeedsHasNoPages(t *testing.T) {
	doc := ParseText("n.txt", "just some words.\n\nmore words.")
	if doc.Pages != 0 || doc.Title != "" {
		t.Errorf("pages %d title %q", doc.Pages, doc.Title)
	}
	for _, b := range doc.Blocks {
		if b.Page != 0 || b.Kind != document.Paragraph {
			t.Errorf("block %#v", b)
		}
	}
}

// A text whose lines all read as headings is text: a short note is read
// as a paragraph (it was skipped as "no text content"), titled by its
// file's name; a long file of such lines (over maxHeadingsOnly) is not.
func TestHeadingsOnlyTextIsText(t *testing.T) {
	doc := ParseText("note.txt", "Café – 5 €\n")
	if !hasText(doc) || len(doc.Blocks) != 1 || doc.Blocks[0].Kind != document.Paragraph || doc.Title != "" {
		t.Fatalf("note: %+v", doc)
	}
	secs := Sections(doc, SectionOptions{})
	if len(secs) != 1 || secs[0].Content != "Café – 5 €" || secs[0].Title != "note" {
		t.Errorf("note's sections: %+v", secs)
	}
	long := strings.Repeat("Item Number Alpha Beta\n\n", maxHeadingsOnly/20)
	if doc := ParseText("long.txt", long); hasText(doc) {
		t.Errorf("a long file of headings alone has text: %d blocks, first %+v", len(doc.Blocks), doc.Blocks[0])
	}
}
