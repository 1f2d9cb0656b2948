package loader

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

func checkDoc(t *testing.T, doc *document.Document) {
	t.Helper()
	for i, b := range doc.Blocks {
		if strings.TrimSpace(b.Text) == "" {
			t.Fatalf("block %d is empty: %#v", i, b)
		}
		if !utf8.ValidString(b.Text) {
			t.Fatalf("block %d is not UTF-8: %q", i, b.Text)
		}
		if b.Page < 0 || b.Page > doc.Pages {
			t.Fatalf("block %d on page %d of %d", i, b.Page, doc.Pages)
		}
		if (b.Kind == document.Heading) != (b.Level > 0) || b.Level > 6 {
			t.Fatalf("block %d kind %v level %d", i, b.Kind, b.Level)
		}
	}
	for i, s := range Sections(doc, SectionOptions{ChunkSize: 200, Overlap: 50}) {
		if s.ID == "" || strings.TrimSpace(s.Content) == "" || s.Title == "" {
			t.Fatalf("section %d incomplete: %+v", i, s)
		}
		if utf8.RuneCountInString(s.Content) > 200 {
			t.Fatalf("section %d has %d chars", i, utf8.RuneCountInString(s.Content))
		}
		if s.PageEnd != 0 && s.PageEnd <= s.Page {
			t.Fatalf("section %d pages %d-%d", i, s.Page, s.PageEnd)
		}
	}
}

func seedCorpus(f *testing.F) {
	for _, p := range []string{"testdata/policy.md", "../examples/contract/data-processing-addendum.md"} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(string(data))
		}
	}
	for _, s := range []string{
		"", "#", "# \n===\n---", "```\n# x", "<!-- page: -->", "<!-- page: 0 -->\n<!-- page: -3 -->x",
		"a\f\f\fb", "| a |\n|---|\n| b", "<!--", "> # q", "1. A\n\nTEXT\n\nShort Title\n\nbody.",
		"\xff\xfe\x00", "---\ntitle: x\n", "<!-- page: 99999999999 -->\ntext",
	} {
		f.Add(s)
	}
}

func FuzzParseMarkdown(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, in string) {
		checkDoc(t, ParseMarkdown("f.md", in))
	})
}

func FuzzParseText(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, in string) {
		checkDoc(t, ParseText("f.txt", in))
	})
}

func FuzzDetect(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, in string) {
		switch got := Detect([]byte(in), "f"); got {
		case formats.PDF, formats.DOCX, formats.HTML, formats.Markdown, formats.Text, formats.Binary:
		default:
			t.Fatalf("Detect returned %q", got)
		}
	})
}
