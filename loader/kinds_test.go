package loader

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// Each file of testdata/kinds is one section: a header of "kind:",
// "page:" and "index:" lines (the kind it must get, empty for body text;
// its page; its place among the document's sections), a blank line
// being optional, then its text. The section is classified as the
// index-th of a document whose other sections are plain body text.
func TestClassifyKinds(t *testing.T) {
	files, err := filepath.Glob("testdata/kinds/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			head, text, _ := strings.Cut(string(data), "\n")
			want := strings.TrimSpace(strings.TrimPrefix(head, "kind:"))
			pageLine, text, _ := strings.Cut(text, "\n")
			indexLine, text, _ := strings.Cut(text, "\n")
			page, err1 := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(pageLine, "page:")))
			idx, err2 := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(indexLine, "index:")))
			if err1 != nil || err2 != nil {
				t.Fatalf("bad header: %q %q", pageLine, indexLine)
			}
			secs := make([]schema.Section, idx+3)
			for i := range secs {
				secs[i] = schema.Section{Title: "Body", Content: "The parties shall cooperate in good faith on every matter of clause " + filler(i) + ".", Page: 1 + i/3}
			}
			secs[idx] = schema.Section{Title: "Case", Content: strings.TrimSpace(text), Page: page}
			ClassifyKinds(secs, formats.PDF)
			if got := string(secs[idx].Kind); got != want {
				t.Errorf("kind %q, want %q", got, want)
			}
			for i, s := range secs {
				if i != idx && s.Kind != schema.KindBody {
					t.Errorf("filler section %d got kind %q", i, s.Kind)
				}
			}
		})
	}
}

// A short line that recurs on three pages is a running header; on two it
// is not.
func TestClassifyRunningLines(t *testing.T) {
	mk := func(pages ...int) []schema.Section {
		var secs []schema.Section
		for _, p := range pages {
			secs = append(secs,
				schema.Section{Title: "Body", Content: "Revenue grew in every segment during the year, led by " + filler(p) + ".", Page: p},
				schema.Section{Title: "Body", Content: "Northwind Traders Ltd. | Annual Report " + strconv.Itoa(p), Page: p})
		}
		return secs
	}
	secs := mk(1, 2, 3)
	ClassifyKinds(secs, formats.PDF)
	if secs[1].Kind != schema.KindHeaderFooter || secs[0].Kind != schema.KindBody {
		t.Errorf("three pages: kinds %q, %q", secs[0].Kind, secs[1].Kind)
	}
	secs = mk(1, 2)
	ClassifyKinds(secs, formats.PDF)
	if secs[1].Kind != schema.KindBody {
		t.Errorf("two pages: kind %q, want body", secs[1].Kind)
	}
	// Markdown and text are read one section at a time: no running lines
	secs = mk(1, 2, 3)
	ClassifyKinds(secs, formats.Markdown)
	if secs[1].Kind != schema.KindBody {
		t.Errorf("markdown: kind %q, want body", secs[1].Kind)
	}
}

// filler is a word made of i's digits spelled as letters, so that filler
// sections differ in words, not only in numbers.
func filler(i int) string {
	var b strings.Builder
	for _, r := range strconv.Itoa(i) {
		b.WriteString([]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}[r-'0'])
	}
	return b.String()
}

// textproc.ContainsFoldASCII turns away only sections certifyClause cannot match.
func TestCertificationPrefilter(t *testing.T) {
	for _, s := range []string{
		"I, Jane Roe, hereby certify that the report complies.",
		"CERTIFICATION PURSUANT TO SECTION 906 of the Act, I CERTIFY ...",
		"The officer certifies, pursuant to Rule 13a-14, that ...",
		"Certification pursuant to section 302",
		"No certificate here pursuant to nothing.",
		"plain text about payment terms",
	} {
		if certifyClause.MatchString(s) && !textproc.ContainsFoldASCII(s, "certif") {
			t.Errorf("%q: the prefilter turns away a match", s)
		}
		if got, want := textproc.ContainsFoldASCII(s, "certif"), regexp.MustCompile(`(?i)certif`).MatchString(s); got != want {
			t.Errorf("textproc.ContainsFoldASCII(%q) = %v, want %v", s, got, want)
		}
	}
}
