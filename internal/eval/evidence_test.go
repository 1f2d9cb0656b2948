package eval

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/docmind/docmind/internal/eval/splits"
	"github.com/docmind/docmind/schema"
)

// The fixture's answers are known: the clock's sentence is the best
// section for its question; the repairs' sentence ranks 13th, below twelve
// notes that repeat the question's words, so only a ranking read past
// the sections handed on (schema.WithRetrieveDepth) finds it; the
// unanswerable row and the row with facts alone are not measured.
func TestEvidenceFixture(t *testing.T) {
	dir := filepath.Join("testdata", "evidence")
	rows, err := LoadQA(filepath.Join(dir, "qa.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	probe := PipelineEvidence(offlineRunner(t, filepath.Join(dir, "docs")), nil)
	var progress []string
	rep, err := RunEvidence(context.Background(), probe, rows, EvidenceTargets(rows, nil), EvidenceOptions{
		Progress: func(done, total int, r EvidenceResult) {
			progress = append(progress, fmt.Sprintf("%d/%d %s", done, total, r.ID))
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 4 || rep.Measured != 2 || rep.Skipped != 2 || rep.Errors != 0 {
		t.Fatalf("questions %d measured %d skipped %d errors %d, want 4 2 2 0", rep.Questions, rep.Measured, rep.Skipped, rep.Errors)
	}
	if want := []string{"1/2 clock", "2/2 repairs"}; !slices.Equal(progress, want) {
		t.Errorf("progress %q, want %q", progress, want)
	}
	clock, repairs := rep.Results[0], rep.Results[1]
	if clock.EvidenceRank != 1 || clock.DocumentRank != 1 || !clock.HandedOn || !clock.AnyPass {
		t.Errorf("clock: %+v, want the evidence first and handed on", clock)
	}
	if repairs.EvidenceRank != 13 || repairs.DocumentRank != 1 || repairs.HandedOn || !repairs.HandedOnDocument || repairs.Passes < 1 {
		t.Errorf("repairs: %+v, want the evidence 13th, not handed on, its document handed on", repairs)
	}
	want := []RecallAt{{1, 0.5, 1}, {3, 0.5, 1}, {5, 0.5, 1}, {10, 0.5, 1}, {20, 1, 1}}
	if !slices.Equal(rep.FirstPass, want) {
		t.Errorf("first pass %+v, want %+v", rep.FirstPass, want)
	}
	if rep.HandedOn != (PassRecall{0.5, 1}) {
		t.Errorf("handed on %+v, want {0.5 1}", rep.HandedOn)
	}
	wantTypes := map[string]TypeRecall{"date": {1, 1, 1, 1}, "event": {1, 0, 1, 0}}
	if !maps.Equal(rep.ByType, wantTypes) {
		t.Errorf("by type %+v, want %+v", rep.ByType, wantTypes)
	}
}

// A section is evidence when it is from the gold document and covers a
// gold page through its page range, holds a gold span (case, spacing and
// punctuation aside), or is the gold paragraph; a span or page in another
// document is not.
func TestEvidenceMatch(t *testing.T) {
	sec := func(src string, page, end int, title, text string) schema.Section {
		return schema.Section{Source: src, Page: page, PageEnd: end, Title: title, Content: text}
	}
	target := EvidenceTarget{Source: "docs/a.pdf", Pages: []int{7, 12}, Spans: []string{"Net  sales were $1,200 million"}}
	cases := []struct {
		name     string
		t        EvidenceTarget
		s        schema.Section
		evidence bool
		document bool
	}{
		{"page", target, sec("/x/docs/a.pdf", 7, 0, "", ""), true, true},
		{"other page inside the range", target, sec("a.pdf", 10, 13, "", ""), true, true},
		{"page outside", target, sec("a.pdf", 8, 11, "", ""), false, true},
		{"span, case and spacing aside", target, sec("a.pdf", 2, 0, "", "Total net sales were $1200 million in 2022."), true, true},
		{"span in another document", target, sec("b.pdf", 7, 0, "", "net sales were $1,200 million"), false, false},
		{"paragraph", EvidenceTarget{Source: "01_Normans.md", Section: "Paragraph 3"}, sec("docs/01_Normans.md", 0, 0, "Paragraph 3", ""), true, true},
		{"another paragraph", EvidenceTarget{Source: "01_Normans.md", Section: "Paragraph 3"}, sec("01_Normans.md", 0, 0, "Paragraph 30", ""), false, true},
		{"no source: span alone", EvidenceTarget{Spans: []string{"rebuilt in 1887"}}, sec("any.md", 0, 0, "", "It was rebuilt in 1887."), true, false},
	}
	for _, c := range cases {
		m := newEvidenceMatcher(c.t)
		if got := m.evidence(c.s); got != c.evidence {
			t.Errorf("%s: evidence %v, want %v", c.name, got, c.evidence)
		}
		if got := m.document(c.s); got != c.document {
			t.Errorf("%s: document %v, want %v", c.name, got, c.document)
		}
	}
}

// With a gold file, a row's gold paragraph replaces its spans; without
// one, its page, other pages and answers are its target.
func TestEvidenceTargets(t *testing.T) {
	no := false
	rows := []QARow{
		{ID: "a", Source: "f.pdf", Page: 3, OtherPages: []int{5}, Answers: []string{"x"}, Facts: []string{"9"}},
		{ID: "b", Source: "01_Normans.md", Facts: []string{"France"}},
		{ID: "c", Answerable: &no},
	}
	gold := map[string]GoldRow{"b": {ID: "b", Doc: "01_Normans.md", Paragraph: 2, Answers: []string{"France"}}}
	got := EvidenceTargets(rows, gold)
	if g := got[0]; g.Source != "f.pdf" || !slices.Equal(g.Pages, []int{3, 5}) || !slices.Equal(g.Spans, []string{"x"}) || g.Section != "" {
		t.Errorf("a: %+v", g)
	}
	if g := got[1]; g.Source != "01_Normans.md" || g.Section != "Paragraph 2" || len(g.Spans) != 0 || !g.Located() {
		t.Errorf("b: %+v", g)
	}
	if got[2].Located() {
		t.Errorf("c: %+v located", got[2])
	}
}

// A set with no located evidence is an error, not a report of zeros; a
// failed retrieval is a miss counted as an error.
func TestRunEvidenceErrors(t *testing.T) {
	ctx := context.Background()
	rows := []QARow{{ID: "a", Question: "q", Facts: []string{"f"}}}
	probe := func(context.Context, string) (EvidenceRun, error) { return EvidenceRun{}, errors.New("store down") }
	if _, err := RunEvidence(ctx, probe, rows, EvidenceTargets(rows, nil), EvidenceOptions{}); err == nil {
		t.Error("no located row: no error")
	}
	rows[0].Page, rows[0].Source = 2, "a.pdf"
	rep, err := RunEvidence(ctx, probe, rows, EvidenceTargets(rows, nil), EvidenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 1 || rep.FirstPass[3].Evidence != 0 || rep.Results[0].EvidenceMiss() != "error: store down" {
		t.Errorf("report %+v", rep)
	}
}

// --split keeps the rows of a frozen split; a row of no split set is an
// error, and so is a split that keeps nothing.
func TestSelectSplit(t *testing.T) {
	rows, err := LoadQA(filepath.Join("testdata", "qa", "contract_heldout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dev, err := LoadQA(filepath.Join("testdata", "qa", "contract.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	both := append(append([]QARow(nil), dev...), rows...)
	got, err := SelectSplit(both, splits.Test)
	if err != nil || len(got) != len(rows) || got[0].ID != rows[0].ID {
		t.Fatalf("test split: %d rows, %v; want the %d held-out rows", len(got), err, len(rows))
	}
	if got, err := SelectSplit(both, splits.Dev); err != nil || len(got) != len(dev) {
		t.Errorf("dev split: %d rows, %v; want %d", len(got), err, len(dev))
	}
	if got, err := SelectSplit(both, splits.All); err != nil || len(got) != len(both) {
		t.Errorf("all: %d rows, %v", len(got), err)
	}
	if _, err := SelectSplit(dev, splits.Test); err == nil {
		t.Error("the dev set's test split: no error")
	}
	if _, err := SelectSplit([]QARow{{ID: "mine"}}, splits.Dev); err == nil {
		t.Error("a question of no split set: no error")
	}
}

// eval qa reads each run's first pass as it goes (RecordFirstPass): the
// clock's evidence is handed on and its first draft quotes the answer;
// the repairs' evidence ranks 13th, so neither is; the council's row
// locates no evidence (facts only) but its draft is scored; the
// unanswerable row is not. Without RecordFirstPass nothing is reported.
func TestQAFirstPass(t *testing.T) {
	dir := filepath.Join("testdata", "evidence")
	rows, err := LoadQA(filepath.Join(dir, "qa.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	run := offlineRunner(t, filepath.Join(dir, "docs"))
	ask := func(ctx context.Context, q string) (*schema.State, error) {
		return run.Run(ctx, schema.NewState(q), RecordFirstPass(ctx))
	}
	rep, err := RunQA(context.Background(), ask, rows, QAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rep.Results {
		got[r.ID] = fmt.Sprintf("%s %s", show(r.EvidenceHandedOn), show(r.FirstDraftCorrect))
		if r.Answerable && (r.FirstConfidence == nil || r.Answered && r.RetryCount == 0 && *r.FirstConfidence != r.Confidence) {
			t.Errorf("%s: first confidence %v, want the first verdict's (%v when answered at once)", r.ID, r.FirstConfidence, r.Confidence)
		}
	}
	want := map[string]string{"clock": "true true", "repairs": "false false", "council": "- true", "bells": "- -"}
	if !maps.Equal(got, want) {
		t.Errorf("evidence handed on, first draft right: %v, want %v", got, want)
	}
	fp := rep.FirstPass
	if fp == nil {
		t.Fatal("no first-pass figures")
	}
	if fp.Answerable != 3 || fp.Located != 2 || fp.EvidenceHandedOn != 0.5 || fp.DraftCorrect != 2.0/3 {
		t.Errorf("first pass %+v, want 3 answerable, 2 located, 0.5 handed on, 2/3 drafts right", fp)
	}
	if w := fp.WithEvidence; w.Questions != 1 || w.DraftCorrect != 1 {
		t.Errorf("with evidence %+v, want the clock's right draft", w)
	}
	if w := fp.WithoutEvidence; w.Questions != 1 || w.DraftCorrect != 0 || w.AnswerableCorrect != 0 {
		t.Errorf("without evidence %+v, want the repairs' wrong draft", w)
	}
	// two right drafts (clock, council) against one wrong (repairs): the
	// share of the two pairs the right draft's confidence wins
	conf := map[string]float64{}
	for _, r := range rep.Results {
		if r.FirstConfidence != nil {
			conf[r.ID] = *r.FirstConfidence
		}
	}
	wins := 0.0
	for _, id := range []string{"clock", "council"} {
		switch {
		case conf[id] > conf["repairs"]:
			wins++
		case conf[id] == conf["repairs"]:
			wins += 0.5
		}
	}
	if fp.DraftSeparation == nil || *fp.DraftSeparation != wins/2 {
		t.Errorf("draft separation %v, want %v (first confidences %v)", fp.DraftSeparation, wins/2, conf)
	}

	plain := func(ctx context.Context, q string) (*schema.State, error) { return run.Run(ctx, schema.NewState(q)) }
	if rep, err := RunQA(context.Background(), plain, rows, QAOptions{}); err != nil || rep.FirstPass != nil {
		t.Errorf("without a recorded first pass: %+v, %v; want no first-pass figures", rep.FirstPass, err)
	}
}

func show(b *bool) string {
	if b == nil {
		return "-"
	}
	return fmt.Sprint(*b)
}

// A refusal of an answerable question is scored by whether the passages
// it points at hold the evidence: a passage is read as the section the
// run retrieved under its id (here one running onto the gold page), else
// from the passage itself; an answered question is not scored.
func TestRefusalClosestPassages(t *testing.T) {
	target := EvidenceTarget{Source: "msa.pdf", Pages: []int{8}}
	fp := &FirstPass{seen: map[string]schema.Section{
		"s1": {ID: "s1", Title: "Fees", Source: "docs/msa.pdf", Page: 7, PageEnd: 8},
	}}
	refused := func(ps ...schema.Passage) *schema.State {
		st := schema.NewState("q")
		st.ClosestPassages = ps
		return st
	}
	cases := []struct {
		name     string
		answered bool
		st       *schema.State
		want     string
	}{
		{"the section retrieved under the passage's id runs onto the gold page", false, refused(schema.Passage{SectionID: "s1", Title: "Fees", Source: "docs/msa.pdf", Page: 7}), "true"},
		{"a passage the run did not report, on the gold page", false, refused(schema.Passage{SectionID: "zz", Title: "Late Fees", Source: "docs/msa.pdf", Page: 8}), "true"},
		{"passages elsewhere", false, refused(schema.Passage{Title: "Term", Source: "docs/msa.pdf", Page: 3}, schema.Passage{Title: "Fees", Source: "docs/sow.pdf", Page: 8}), "false"},
		{"no passages", false, refused(), "false"},
		{"answered", true, refused(schema.Passage{Title: "Late Fees", Source: "docs/msa.pdf", Page: 8}), "-"},
	}
	var results []QAResult
	for _, c := range cases {
		r := QAResult{ID: c.name, Answerable: true, Answered: c.answered}
		scoreClosest(&r, QARow{}, c.st, fp, target)
		if got := show(r.ClosestHoldEvidence); got != c.want {
			t.Errorf("%s: closest_hold_evidence %s, want %s", c.name, got, c.want)
		}
		results = append(results, r)
	}
	unlocated := QAResult{ID: "facts only", Answerable: true}
	scoreClosest(&unlocated, QARow{}, refused(), fp, EvidenceTarget{})
	results = append(results, unlocated, QAResult{ID: "unanswerable"})
	rs := summarizeRefusals(results)
	if rs == nil || rs.Refused != 5 || rs.Located != 4 || rs.ClosestHoldEvidence != 0.5 {
		t.Errorf("refusals %+v, want 5 refused, 4 located, 0.5 holding the evidence", rs)
	}
	if summarizeRefusals(results[4:5]) != nil {
		t.Error("no refusal: want no figures")
	}
}

// A refusal's closest passages state the answer when one's excerpt does,
// as an answer's text would have to (facts, gold spans under the row's
// rule); a passage without an excerpt states nothing, and a row without
// gold answers or facts is not scored.
func TestRefusalExcerptsStateTheAnswer(t *testing.T) {
	refused := func(excerpts ...string) *schema.State {
		st := schema.NewState("q")
		for _, e := range excerpts {
			st.ClosestPassages = append(st.ClosestPassages, schema.Passage{Title: "T", Source: "d.pdf", Page: 1, Excerpt: e})
		}
		return st
	}
	facts := QARow{Facts: []string{"90 days"}}
	spans := QARow{Answers: []string{"change or update your member preferences"}}
	cases := []struct {
		name string
		row  QARow
		st   *schema.State
		want string
	}{
		{"the second passage's excerpt states the fact", facts, refused("The Term renews each year.", "…unless either Party gives ninety (90) days' notice of non-renewal."), "true"},
		{"no excerpt states it", facts, refused("The Term renews each year.", "Fees are due in 30 days."), "false"},
		{"a passage without an excerpt", facts, refused(""), "false"},
		{"a gold span in an excerpt", spans, refused("…please use the mechanism that allows you to change or update your member preferences or information."), "true"},
		{"no gold", QARow{}, refused("ninety (90) days"), "-"},
	}
	var results []QAResult
	for _, c := range cases {
		r := QAResult{ID: c.name, Answerable: true}
		scoreClosest(&r, c.row, c.st, &FirstPass{}, EvidenceTarget{})
		if got := show(r.ClosestExcerptAnswers); got != c.want {
			t.Errorf("%s: closest_excerpt_answers %s, want %s", c.name, got, c.want)
		}
		results = append(results, r)
	}
	answered := QAResult{ID: "answered", Answerable: true, Answered: true}
	scoreClosest(&answered, facts, refused("ninety (90) days"), &FirstPass{}, EvidenceTarget{})
	if answered.ClosestExcerptAnswers != nil {
		t.Error("an answered question: want no excerpt score")
	}
	rs := summarizeRefusals(results)
	if rs == nil || rs.Refused != 5 || rs.WithGold != 4 || rs.ExcerptsStateAnswer != 0.5 {
		t.Errorf("refusals %+v, want 5 refused, 4 with gold, 0.5 stating the answer", rs)
	}
}
