package generator

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/docmind/docmind/formats"
	_ "github.com/docmind/docmind/formats/pdf"
	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/textproc/tables"
)

// reFragment is a stray piece of a table: a value cut from its row
// ("(18" before another value or at the end), a closing
// parenthesis or unit that lost its value (") bp", ") %"), an opening
// parenthesis without its close before the unit ("(4,137 (in
// millions)"), or a row of amounts with no label ("-2% 8% 6,750"; a run
// of footnote marks or chart dates, "(1) (2) (3)", "5/18 5/19", is a
// sentence of its own, not a row).
var reFragment = regexp.MustCompile(`(?:^|\s)\(\d[\d,.]*(?:$|\s+[\d$(])|(?:^|\s)\)\s*(?:bp|%)|(?:^|\s)\(\d[\d,.]* \(in |^[^\pL]*(?:\d,\d{3}|\d%)[^\pL]*\s[^\pL]*$`)

// No row read from a real filing's tables is a stray fragment: every row
// of a flattened table is quoted whole, with its label (the
// quarterly releases and a 10-K of ../shared/fixtures/filings, whose
// tables have change columns, dates and quarters for headers; skipped
// when absent).
func TestNoTableFragmentsInFilings(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "fixtures", "filings")
	var files []string
	for _, name := range []string{"EBAY_2023Q1_EARNINGS.pdf", "INTEL_2023Q1_EARNINGS.pdf", "ORACLE_2023_10K.pdf"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			files = append(files, filepath.Join(dir, name))
		}
	}
	if len(files) == 0 {
		t.Skip("../shared/fixtures/filings is not here")
	}
	if testing.Short() {
		t.Skip("reads PDFs")
	}
	p, release := loader.Registered()[formats.PDF]()
	defer release()
	l := loader.New(loader.WithParser(formats.PDF, p))
	for _, f := range files {
		secs, err := l.LoadFile(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, s := range secs {
			var tc tables.Reader
			for _, sent := range textproc.Sentences(s.Content) {
				rows, shown := tc.Read(sent)
				for _, r := range append(rows, shown...) {
					if reFragment.MatchString(r) {
						n++
						if n <= 20 {
							t.Errorf("%s page %d: fragment %q", filepath.Base(f), s.Page, r)
						}
					}
				}
			}
		}
	}
}
