package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
)

func TestPrintAnswerShowsConflicts(t *testing.T) {
	resp, out := "The late fee is 50% per month.", schema.FallbackMessage
	st := &schema.State{GeneratedResponse: &resp, FinalOutput: &out, JudgeVerdict: &schema.Verdict{
		Reasoning: "Not returned: the sources disagree.",
		Conflicts: []schema.Conflict{{Claim: resp, About: "late fee", Figure: "50% per month", OtherFigure: "1.5% per month",
			Source:      schema.Evidence{Title: "Fee Update", Page: 1, Source: "update.md"},
			OtherSource: schema.Evidence{Title: "Late Payment Penalties", Page: 8, Source: "contract.md"}}},
	}}
	var b strings.Builder
	printAnswer(&b, st, false)
	want := `Conflict: on "late fee", Fee Update, page 1 (update.md) says "50% per month" but Late Payment Penalties, page 8 (contract.md) says "1.5% per month"`
	if !strings.Contains(b.String(), want+"\n") {
		t.Errorf("output lacks %q:\n%s", want, b.String())
	}
}

// Parts of one section on one page are one source in the printed list.
func TestPrintAnswerListsASourceOnce(t *testing.T) {
	out := "Total revenues 49,954 (See Total Revenues, page 43)"
	part := schema.Section{Title: "Total Revenues", Source: "acme-2023.pdf", Page: 45, PageLabel: "43"}
	a, b := part, part
	a.ID, b.ID = "a1", "a2"
	other := schema.Section{ID: "o", Title: "Total Revenues", Source: "acme-2022.pdf", Page: 40, PageLabel: "38"}
	st := &schema.State{FinalOutput: &out, RetrievedSections: []schema.Section{a, other, b}}
	var w strings.Builder
	printAnswer(&w, st, false)
	if !strings.Contains(w.String(), "  [1] Total Revenues — acme-2023.pdf, page 43 (PDF page 45)\n") || strings.Count(w.String(), "acme-2023.pdf") != 1 || strings.Contains(w.String(), "acme-2022") {
		t.Errorf("sources:\n%s", w.String())
	}
}

// TestAskAnswersDespiteFiguresAboutAnotherSubject: two files state budget
// caps of two projects; asking about one is answered (exit 0), not
// withheld as a conflict (exit 3).
func TestAskAnswersDespiteFiguresAboutAnotherSubject(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "trakakavor.md"), []byte("# Trakakavor project\n\nThe Trakakavor project has a budget cap of 5676 dollars.\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "kakakavor.md"), []byte("# Kakakavor project\n\nThe Kakakavor project has a budget cap of 1000 dollars.\n"), 0o600)
	r := runCLI(t, nil, "ask", "--docs", dir, "What is the budget cap of the Trakakavor project?")
	if r.code != 0 || !strings.Contains(r.stdout, "5676 dollars") || strings.Contains(r.stdout, "Conflict:") {
		t.Fatalf("exit %d, want 0 with the Trakakavor cap:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
