package loader

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

// blk is a compact form of a block for comparisons.
type blk struct {
	kind  document.Kind
	level int
	text  string
	page  int
}

func blocksOf(d *document.Document) []blk {
	out := make([]blk, len(d.Blocks))
	for i, b := range d.Blocks {
		out[i] = blk{b.Kind, b.Level, b.Text, b.Page}
	}
	return out
}

// checkBlocks compares a document's blocks with want.
func checkBlocks(t *testing.T, doc *document.Document, want []blk) {
	t.Helper()
	got := blocksOf(doc)
	if len(got) != len(want) {
		t.Fatalf("got %d blocks, want %d:\n%#v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d = %#v, want %#v", i, got[i], want[i])
		}
	}
}

func TestParseMarkdownFile(t *testing.T) {
	data, err := os.ReadFile("testdata/policy.md")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := MarkdownParser{}.Parse(context.Background(), "testdata/policy.md", data)
	if err != nil {
		t.Fatal(err)
	}
	want := []blk{
		{document.Paragraph, 0, "Preamble text before any heading.", 1},
		{document.Heading, 1, "Travel Policy", 1},
		{document.Heading, 2, "1. Booking", 1},
		{document.Paragraph, 0, "Book flights 14 days ahead through the portal.", 1},
		{document.Paragraph, 0, "# not a heading inside a fence\n$ book --now", 1},
		{document.Paragraph, 0, "## not a heading either", 1},
		{document.Paragraph, 0, "# Quoted heading\nstays a paragraph", 1},
		{document.Heading, 2, "2. Hotels", 2},
		{document.Table, 0, "City | Cap\nLondon | €250\nParis | €180", 2},
		{document.Heading, 1, "Hotel Rates", 2},
		{document.Paragraph, 0, "Text under a setext heading.", 2},
		{document.Heading, 2, "Meals", 2},
		{document.Paragraph, 0, "Meal text on page two.", 2},
		{document.Heading, 3, "2.1 Exceptions", 3},
		{document.Paragraph, 0, "Exceptions text on the labelled page.", 3},
	}
	checkBlocks(t, doc, want)
	if doc.Title != "Travel Policy" || doc.Format != formats.Markdown || doc.Pages != 3 {
		t.Errorf("title %q format %q pages %d", doc.Title, doc.Format, doc.Pages)
	}
	if doc.PageLabels[3] != "iv" {
		t.Errorf("page labels = %v, want 3:iv", doc.PageLabels)
	}
}

func TestParseMarkdownCases(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []blk
		// pages is the expected Document.Pages.
		pages int
	}{
		{
			name:  "no pages without markers",
			in:    "# Title\n\nText.",
			want:  []blk{{document.Heading, 1, "Title", 0}, {document.Paragraph, 0, "Text.", 0}},
			pages: 0,
		},
		{
			name: "form feeds start pages",
			in:   "# A\n\none\f\ntwo\n\f## B\nthree",
			want: []blk{
				{document.Heading, 1, "A", 1}, {document.Paragraph, 0, "one", 1},
				{document.Paragraph, 0, "two", 2}, {document.Heading, 2, "B", 3},
				{document.Paragraph, 0, "three", 3},
			},
			pages: 3,
		},
		{
			name: "marker variants and CRLF",
			in:   "intro\r\n<!--page 5-->\r\n# Five\r\n<!-- PAGE: 6 -->\r\nsix",
			want: []blk{
				{document.Paragraph, 0, "intro", 1}, {document.Heading, 1, "Five", 5},
				{document.Paragraph, 0, "six", 6},
			},
			pages: 6,
		},
		{
			name: "markers inside code are text",
			in:   "```\n<!-- page: 9 -->\n```\nafter",
			want: []blk{{document.Paragraph, 0, "<!-- page: 9 -->", 0}, {document.Paragraph, 0, "after", 0}},
		},
		{
			name: "closing hashes, empty heading, indented code",
			in:   "## Fees ##\n\n#\n\n    # indented code\n\n#no-space",
			want: []blk{
				{document.Heading, 2, "Fees", 0},
				{document.Paragraph, 0, "# indented code", 0},
				{document.Paragraph, 0, "#no-space", 0},
			},
		},
		{
			name: "seven hashes is text; thematic break is dropped",
			in:   "####### seven\n\n***\n\n- item one\n- item two",
			want: []blk{
				{document.Paragraph, 0, "####### seven", 0},
				{document.Paragraph, 0, "- item one\n- item two", 0},
			},
		},
		{
			name: "multi-line comment is skipped",
			in:   "a\n<!--\nhidden\n-->\nb",
			want: []blk{{document.Paragraph, 0, "a", 0}, {document.Paragraph, 0, "b", 0}},
		},
		{
			name: "unclosed fence keeps its text",
			in:   "# H\n```\ncode line",
			want: []blk{{document.Heading, 1, "H", 0}, {document.Paragraph, 0, "code line", 0}},
		},
		{
			name: "inline markup and escapes",
			in:   "Pay *on time*, see `Section 9` and ![logo](x.png) \\# not heading",
			want: []blk{{document.Paragraph, 0, "Pay on time, see Section 9 and logo # not heading", 0}},
		},
		{
			name: "a line without a pipe ends a table and starts a paragraph",
			in:   "| a | b |\n|---|---|\n| 1 | 2 |\nafter the table",
			want: []blk{{document.Table, 0, "a | b\n1 | 2", 0}, {document.Paragraph, 0, "after the table", 0}},
		},
		{
			name: "an empty quote line neither ends nor adds to the paragraph",
			in:   "> one\n>\n> two",
			want: []blk{{document.Paragraph, 0, "one\ntwo", 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := ParseMarkdown("t.md", tt.in)
			checkBlocks(t, doc, tt.want)
			if doc.Pages != tt.pages {
				t.Errorf("pages = %d, want %d", doc.Pages, tt.pages)
			}
		})
	}
}

func TestParseHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, p := range []Parser{MarkdownParser{}, TextParser{}} {
		if _, err := p.Parse(ctx, "x", []byte("text")); err == nil {
			t.Errorf("%T: want context error", p)
		}
	}
}

func TestParseMarkdownBOMAndInvalidUTF8(t *testing.T) {
	doc := ParseMarkdown("x.md", "\uFEFF# Title\n\nbad \xff byte")
	if doc.Blocks[0].Text != "Title" || doc.Blocks[0].Kind != document.Heading {
		t.Fatalf("BOM not stripped: %#v", doc.Blocks[0])
	}
	if !strings.Contains(doc.Blocks[1].Text, "\uFFFD") {
		t.Errorf("invalid byte not replaced: %q", doc.Blocks[1].Text)
	}
}
