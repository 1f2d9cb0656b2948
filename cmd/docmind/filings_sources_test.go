package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/prompts"
	"github.com/docmind/docmind/schema"
)

// On every question of the shared filings set, every page the answer cites
// is among its sources (what ask lists under "Sources:", the API's
// citations and the web page's links). It needs an index of the ten
// filings (docmind ingest ../shared/fixtures/filings, ~2 min), so it runs
// only when given one, as .ci/run gives it the index its filings
// evaluations use:
//
//	DOCMIND_FILINGS_INDEX=DIR go test -run TestFilingsCitedPagesAreSources ./cmd/docmind/
func TestFilingsCitedPagesAreSources(t *testing.T) {
	idx := os.Getenv("DOCMIND_FILINGS_INDEX")
	if idx == "" {
		t.Skip("set DOCMIND_FILINGS_INDEX to an index of ../shared/fixtures/filings")
	}
	data, err := os.ReadFile(testenv.SharedPath(t, "data", "filings", "qa.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	answered := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var row struct{ ID, Question string }
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, nil, "ask", "--json", "--index", idx, row.Question)
		if r.code != exitOK && r.code != exitFallback {
			t.Fatalf("%s: exit %d\n%s", row.ID, r.code, r.stderr)
		}
		var st schema.State
		if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
			t.Fatalf("%s: %v", row.ID, err)
		}
		if !st.Answered() {
			continue
		}
		answered++
		if _, unknown := prompts.CitedSections(st.Answer(), st.CitedSections()); len(unknown) > 0 {
			t.Errorf("%s %q: the answer cites %q, not among its sources\nanswer: %s", row.ID, row.Question, unknown, st.Answer())
		}
	}
	if answered == 0 {
		t.Fatalf("no question answered: is %s an index of the filings?", idx)
	}
	t.Logf("%d answered questions checked", answered)
}
