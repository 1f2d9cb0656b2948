package eval

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/internal/eval/evaltest"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/schema"
)

// tinySquadCases reads testdata/tinysquad (see its README) into cases as
// eval relevance builds them, every paragraph scored 1.
func tinySquadCases(t *testing.T) ([]RelevanceCase, []schema.Section) {
	t.Helper()
	secs, _, err := docmind.LoadDocuments(context.Background(), filepath.Join("testdata", "tinysquad", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := LoadGoldRows(filepath.Join("testdata", "tinysquad", "gold.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []RelevanceCase
	for _, row := range rows {
		c := RelevanceCase{Row: row}
		var mine []schema.Section
		for _, s := range secs {
			if filepath.Base(s.Source) == row.Doc {
				mine = append(mine, s)
			}
		}
		sec, ok := SourceParagraph(row, mine)
		switch {
		case !ok:
			c.Missing = "no paragraph"
		default:
			sec.RelevanceScore = 1
			c.Section = sec
			c.Sentence = LocateSentence(sec.Content, RelevanceAnswers(row))
		}
		cases = append(cases, c)
	}
	return cases, secs
}

// The offline judge accepts each answerable question's gold sentence and
// refuses the distractors it can read (the other dam, a negation); it
// takes "two dams … removed" for the one dam removed, which is what the
// report's accuracy counts against it.
func TestRunRelevanceOffline(t *testing.T) {
	cases, secs := tinySquadCases(t)
	rep, err := RunRelevance(context.Background(), judge.NewOffline(judge.WithCorpus(secs)), cases, RelevanceOptions{Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	accepted := map[string]bool{}
	for _, r := range rep.Results {
		accepted[r.ID] = r.Accepted
	}
	for id, want := range map[string]bool{"a1": true, "a2": true, "a3": true, "u1": false, "u2": false, "u3": false, "u4": false, "u6": true} {
		if accepted[id] != want {
			t.Errorf("%s accepted = %v, want %v", id, accepted[id], want)
		}
	}
	if rep.Questions != 9 || rep.Answerable != 3 || rep.Unanswerable != 6 || rep.Unlocated != 2 || rep.Judged != 7 || rep.Errors != 0 {
		t.Errorf("counts = %d questions, %d/%d, %d unlocated, %d judged, %d errors", rep.Questions, rep.Answerable, rep.Unanswerable, rep.Unlocated, rep.Judged, rep.Errors)
	}
	if rep.AcceptedGold != 3 || rep.AnswerableAccepted != 1 {
		t.Errorf("gold accepted %d (%.3f), want 3 (1)", rep.AcceptedGold, rep.AnswerableAccepted)
	}
	// u5 ("the northern hills") may go either way; u6 is accepted
	if rep.AcceptedDistractors < 1 || rep.Accuracy >= 1 {
		t.Errorf("distractors accepted %d, accuracy %.3f: u6 should count against the judge", rep.AcceptedDistractors, rep.Accuracy)
	}
	for _, r := range rep.Results {
		if r.ID == "a3" && (r.Section != "Paragraph 1" || r.Sentence == "") {
			t.Errorf("a3 (no paragraph given) read %q: %q", r.Section, r.Sentence)
		}
		if r.ID == "u4" && r.Missing == "" {
			t.Errorf("u4's document is not in the folder, but it was judged: %+v", r)
		}
	}
	checkCurve(t, rep)
}

// checkCurve checks the curve's shape: thresholds falling, accepted
// rising to every accepted sentence, and at_half its first point with
// half the answerable questions.
func checkCurve(t *testing.T, rep *RelevanceReport) {
	t.Helper()
	if len(rep.Curve) == 0 {
		t.Fatal("no curve")
	}
	for i := 1; i < len(rep.Curve); i++ {
		if rep.Curve[i].Threshold >= rep.Curve[i-1].Threshold || rep.Curve[i].Accepted <= rep.Curve[i-1].Accepted {
			t.Errorf("curve not ordered at %d: %+v", i, rep.Curve)
		}
	}
	last := rep.Curve[len(rep.Curve)-1]
	if last.Accepted != rep.AcceptedGold+rep.AcceptedDistractors || last.Accuracy != rep.Accuracy {
		t.Errorf("last point %+v, want every accepted sentence at accuracy %.3f", last, rep.Accuracy)
	}
	i := slices.IndexFunc(rep.Curve, func(p RelevancePoint) bool { return p.AnswerableAccepted >= 0.5 })
	switch {
	case i < 0 && rep.AtHalf != nil, i >= 0 && (rep.AtHalf == nil || *rep.AtHalf != rep.Curve[i]):
		t.Errorf("at_half = %+v, curve %+v", rep.AtHalf, rep.Curve)
	}
}

// The figures from hand-made results: ties share a point, unlocated
// questions count as refused, and half the answerable questions is
// reached at the point that admits the second gold sentence of four.
func TestSummarizeRelevance(t *testing.T) {
	res := []RelevanceResult{
		{ID: "g1", Answerable: true, Sentence: "s", Accepted: true, Confidence: 0.9},
		{ID: "d1", Sentence: "s", Accepted: true, Confidence: 0.9},
		{ID: "g2", Answerable: true, Sentence: "s", Accepted: true, Confidence: 0.8},
		{ID: "g3", Answerable: true, Sentence: "s", Confidence: 0.7},
		{ID: "g4", Answerable: true, Missing: "no paragraph"},
		{ID: "d2", Sentence: "s", Err: "boom"},
		{ID: "d3", Sentence: "s", Accepted: true, Confidence: 0.3},
	}
	rep := summarizeRelevance(res)
	if rep.Answerable != 4 || rep.Unanswerable != 3 || rep.Judged != 6 || rep.Unlocated != 1 || rep.Errors != 1 {
		t.Errorf("counts %+v", rep)
	}
	if rep.AcceptedGold != 2 || rep.AcceptedDistractors != 2 || rep.Accuracy != 0.5 || rep.AnswerableAccepted != 0.5 || rep.DistractorsRefused != 1.0/3 {
		t.Errorf("figures %+v", rep)
	}
	want := []RelevancePoint{{0.9, 2, 0.5, 0.25}, {0.8, 3, 2.0 / 3, 0.5}, {0.3, 4, 0.5, 0.5}}
	if !slices.Equal(rep.Curve, want) {
		t.Errorf("curve %+v, want %+v", rep.Curve, want)
	}
	if rep.AtHalf == nil || *rep.AtHalf != want[1] {
		t.Errorf("at_half %+v, want %+v", rep.AtHalf, want[1])
	}
	// a tie admits its whole group
	if rep := summarizeRelevance(res[:2]); rep.AtHalf == nil || rep.AtHalf.Accepted != 2 || rep.AtHalf.Accuracy != 0.5 {
		t.Errorf("a gold sentence tied with a distractor: at_half %+v", rep.AtHalf)
	}
	// no gold sentence accepted: half is never reached
	if rep := summarizeRelevance(res[3:]); rep.AtHalf != nil || len(rep.Curve) != 1 {
		t.Errorf("no gold accepted: at_half %+v, curve %+v", rep.AtHalf, rep.Curve)
	}
}

// A judge error is recorded on its question and counts as refused; a
// cancelled context stops the run.
func TestRunRelevanceErrors(t *testing.T) {
	cases, _ := tinySquadCases(t)
	rep, err := RunRelevance(context.Background(), evaltest.ScriptedJudge{}, cases, RelevanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != rep.Judged || rep.AcceptedGold+rep.AcceptedDistractors != 0 {
		t.Errorf("an unscripted judge: %d errors of %d judged, %d accepted", rep.Errors, rep.Judged, rep.AcceptedGold+rep.AcceptedDistractors)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunRelevance(ctx, evaltest.ScriptedJudge{}, cases, RelevanceOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}
