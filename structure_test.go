package docmind

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/loader"
)

// With SectionOptions.Clauses, a real contract PDF (CUAD's, in
// ../shared/data) is read into one section
// per numbered clause, with its heading path, where the PDF reader sees
// most clauses as paragraphs, several to a paragraph ("4. TERM AND
// TERMINATION. 4.1. Initial Term. …").
func TestContractPDFClauseSections(t *testing.T) {
	matches, _ := filepath.Glob(filepath.Join("..", "shared", "data", "cuad", "docs", "SEASPINEHOLDINGSCORP_*SUPPLY_AGREEMENT*"))
	if len(matches) == 0 {
		t.Skip("../shared/data/cuad is not here")
	}
	l, release := NewLoader(loader.WithSectionOptions(loader.SectionOptions{Clauses: true}))
	defer release()
	secs, err := l.LoadFile(context.Background(), matches[0])
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Initial Term":              "4. TERM AND TERMINATION > 4.1. Initial Term",
		"Termination for Cause":     "4. TERM AND TERMINATION > 4.3. Termination for Cause",
		"Effects of Termination":    "4. TERM AND TERMINATION > 4.4. Effects of Termination",
		"Return of Materials":       "5. CONFIDENTIALITY > 5.9. Return of Materials",
		"Grant of Exclusive Rights": "3. GRANT OF EXCLUSIVITY COMMERCIALIZATION > 3.1. Grant of Exclusive Rights",
	}
	for _, s := range secs {
		path, ok := want[s.Title]
		if !ok {
			continue
		}
		got := strings.Join(s.Path, " > ")
		if got != path || !strings.HasPrefix(s.Content, s.Path[len(s.Path)-1]) {
			t.Errorf("%q: path %q, content %.60q; want path %q", s.Title, got, s.Content, path)
		}
		delete(want, s.Title)
	}
	for title := range want {
		t.Errorf("no section %q", title)
	}
}
