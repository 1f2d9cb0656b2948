package eval

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/loader"

	"github.com/docmind/docmind/internal/testenv"
)

// TestContractQASetMatchesDocuments checks the shipped question set
// against the sample contract itself, independently of any engine: every
// fact of an answerable question occurs on the expected page of the
// expected document, so the set can be trusted as ground truth.
func TestContractQASetMatchesDocuments(t *testing.T) {
	root := testenv.RepoRoot(t)
	rows, err := LoadQA(filepath.Join("testdata", "qa", "contract.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	secs, _, err := loader.New().LoadDir(context.Background(), filepath.Join(root, "examples", "contract"))
	if err != nil {
		t.Fatal(err)
	}
	pageText := map[string]string{} // "file#page" -> text
	for _, s := range secs {
		for p := s.Page; p <= max(s.Page, s.PageEnd); p++ {
			k := filepath.Base(s.Source) + "#" + itoa(p)
			pageText[k] += "\n" + s.Title + "\n" + s.Content
		}
	}
	unanswerable, kinds := 0, map[string]int{}
	for _, r := range rows {
		kinds[r.Kind]++
		if !r.IsAnswerable() {
			unanswerable++
			continue
		}
		text, ok := pageText[r.Source+"#"+itoa(r.Page)]
		if !ok {
			t.Errorf("%s: no page %d in %s", r.ID, r.Page, r.Source)
			continue
		}
		hay := NormalizeForMatch(text)
		for _, f := range r.Facts {
			if !containsSeq(hay, NormalizeForMatch(f)) {
				t.Errorf("%s: fact %q is not on page %d of %s", r.ID, f, r.Page, r.Source)
			}
		}
	}
	if len(rows) < 40 || unanswerable < 10 {
		t.Errorf("set has %d questions, %d unanswerable; want >= 40 and >= 10", len(rows), unanswerable)
	}
	for _, k := range []string{"paraphrase", "multi-part", "near-miss", "unanswerable"} {
		if kinds[k] < 3 {
			t.Errorf("only %d %s questions", kinds[k], k)
		}
	}
	// Near-miss questions name a figure the contract does not give for
	// that term; the expected facts must not repeat it.
	for _, r := range rows {
		if r.Kind != "near-miss" {
			continue
		}
		for _, w := range strings.Fields(r.Question) {
			w = strings.Trim(w, "?.,")
			if !strings.ContainsAny(w, "0123456789") {
				continue
			}
			for _, f := range r.Facts {
				if containsSeq(NormalizeForMatch(f), NormalizeForMatch(w)) {
					t.Errorf("%s: near-miss figure %q is an expected fact", r.ID, w)
				}
			}
		}
	}
}
