package eval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// A relevance run measures the judge alone on whether an answer answers
// the question: for each question of a SQuAD-style gold file it judges
// one sentence of the question's own paragraph as the answer, citing
// that paragraph, with that paragraph as the only section. For an
// answerable question the sentence holds a gold answer; for an
// unanswerable one it holds the "plausible" answer the question was
// written to tempt with, the distractor. A judge that reads what the
// question asks accepts the first and refuses the second. Retrieval and
// generation play no part: the figures are what the pipeline would reach
// with this judge if it always quoted the sentence a question was
// written from.

// RelevanceCase is one question of a relevance run: its gold row, its
// paragraph (RelevanceScore as the retriever scores it for the question)
// and the sentence judged, "" when none could be located.
type RelevanceCase struct {
	Row      GoldRow
	Section  schema.Section
	Sentence string
	// Missing says why no sentence was located.
	Missing string
}

// RelevanceResult is the judge's reading of one case.
type RelevanceResult struct {
	ID         string  `json:"id"`
	Question   string  `json:"question"`
	Answerable bool    `json:"answerable"`
	Section    string  `json:"section,omitempty"`
	Sentence   string  `json:"sentence,omitempty"`
	Accepted   bool    `json:"accepted"`
	Confidence float64 `json:"confidence"`
	Reasoning  string  `json:"reasoning,omitempty"`
	// Missing says why the question was not judged (no paragraph, no
	// sentence holding the answer).
	Missing string `json:"missing,omitempty"`
	Err     string `json:"error,omitempty"`
}

// RelevancePoint is one threshold of the relevance curve: the accepted
// sentences with confidence >= Threshold, the share of them that hold a
// gold answer (Accuracy), and the share of all answerable questions whose
// gold sentence they include (AnswerableAccepted).
type RelevancePoint struct {
	Threshold          float64 `json:"threshold"`
	Accepted           int     `json:"accepted"`
	Accuracy           float64 `json:"accuracy"`
	AnswerableAccepted float64 `json:"answerable_accepted"`
}

// RelevanceReport is the outcome of RunRelevance.
type RelevanceReport struct {
	Questions    int `json:"questions"`
	Answerable   int `json:"answerable"`
	Unanswerable int `json:"unanswerable"`
	// Judged questions had a sentence located; Unlocated did not (they
	// count as refused).
	Judged    int `json:"judged"`
	Unlocated int `json:"unlocated"`
	// AcceptedGold: answerable questions whose gold sentence the judge
	// accepted; AcceptedDistractors: unanswerable questions whose
	// distractor sentence it accepted.
	AcceptedGold        int `json:"accepted_gold"`
	AcceptedDistractors int `json:"accepted_distractors"`
	// Accuracy is AcceptedGold over all accepted sentences;
	// AnswerableAccepted is AcceptedGold over the answerable questions;
	// DistractorsRefused is the share of the unanswerable questions whose
	// distractor was refused (or not located).
	Accuracy           float64 `json:"accuracy"`
	AnswerableAccepted float64 `json:"answerable_accepted"`
	DistractorsRefused float64 `json:"distractors_refused"`
	// Curve runs over the accepted sentences by falling confidence (one
	// point per distinct confidence, at most 50); run the judge with no
	// threshold (--min-confidence 0) for the whole curve.
	Curve []RelevancePoint `json:"curve"`
	// AtHalf is the curve's first point whose AnswerableAccepted reaches
	// 0.5: the accuracy when half the answerable questions are accepted
	// (nil when the curve never gets there).
	AtHalf  *RelevancePoint   `json:"at_half"`
	Errors  int               `json:"errors"`
	Results []RelevanceResult `json:"results"`
}

// RelevanceOptions tunes RunRelevance.
type RelevanceOptions struct {
	// Concurrency is the number of sentences judged at once (default 1).
	Concurrency int
	// Progress, when set, is called after each case with the number done,
	// the total and the result; from one goroutine at a time.
	Progress func(done, total int, r RelevanceResult)
}

// SourceParagraph picks a gold row's paragraph among the sections of its
// document: the section titled "Paragraph N" when the row gives
// paragraph N, else the first section that holds one of the answers the
// row's sentence must hold (RelevanceAnswers). ok is false when there is
// none.
func SourceParagraph(row GoldRow, sections []schema.Section) (schema.Section, bool) {
	if row.Paragraph > 0 {
		title := fmt.Sprintf("Paragraph %d", row.Paragraph)
		for _, s := range sections {
			if s.Title == title {
				return s, true
			}
		}
		return schema.Section{}, false
	}
	for _, s := range sections {
		if LocateSentence(s.Content, RelevanceAnswers(row)) != "" {
			return s, true
		}
	}
	return schema.Section{}, false
}

// RelevanceAnswers returns what the judged sentence must hold: a gold
// answer for an answerable row, a plausible (distractor) answer for an
// unanswerable one.
func RelevanceAnswers(row GoldRow) []string {
	if row.IsImpossible {
		return row.Plausible
	}
	return row.Answers
}

// NoSentence says why a case has no sentence when its paragraph has none
// holding the answer.
const NoSentence = "no sentence of the paragraph holds the answer"

// LocateSentence returns the first sentence of content (textproc
// sentences) that holds one of answers as written, or "".
func LocateSentence(content string, answers []string) string {
	for _, s := range textproc.Sentences(content) {
		for _, a := range answers {
			if a = strings.TrimSpace(a); a != "" && strings.Contains(s, a) {
				return s
			}
		}
	}
	return ""
}

// RunRelevance judges every case's sentence as a one-sentence answer
// ("<sentence> (See <citation>)") over its paragraph alone. A judge error
// on one case is recorded in its result and counts as refused; only a
// cancelled ctx stops the run.
func RunRelevance(ctx context.Context, j schema.Judge, cases []RelevanceCase, opts RelevanceOptions) (*RelevanceReport, error) {
	if j == nil {
		return nil, errors.New("eval relevance: no judge")
	}
	results := make([]RelevanceResult, len(cases))
	err := forEach(ctx, len(cases), opts.Concurrency, func(i int) {
		results[i] = judgeCase(ctx, j, cases[i])
	}, func(done, i int) {
		if opts.Progress != nil {
			opts.Progress(done, len(cases), results[i])
		}
	})
	if err != nil {
		return nil, fmt.Errorf("eval relevance stopped: %w", err)
	}
	return summarizeRelevance(results), nil
}

func judgeCase(ctx context.Context, j schema.Judge, c RelevanceCase) RelevanceResult {
	r := RelevanceResult{ID: c.Row.ID, Question: c.Row.Question, Answerable: !c.Row.IsImpossible,
		Section: c.Section.Title, Sentence: c.Sentence, Missing: c.Missing}
	if c.Sentence == "" {
		if r.Missing == "" {
			r.Missing = NoSentence
		}
		return r
	}
	resp := c.Sentence + " (See " + c.Section.Citation() + ")"
	v, err := j.Judge(ctx, schema.JudgeRequest{Query: c.Row.Question, Response: resp, Sections: []schema.Section{c.Section}})
	switch {
	case err != nil:
		r.Err = err.Error()
	case v == nil:
		r.Err = "judge returned no verdict"
	default:
		r.Accepted = v.ShouldReturn && !v.IsHallucinated
		r.Confidence = v.ConfidenceScore
		r.Reasoning = v.Reasoning
	}
	return r
}

// relevanceCurvePoints is how many points the report's curve keeps.
const relevanceCurvePoints = 50

func summarizeRelevance(results []RelevanceResult) *RelevanceReport {
	rep := &RelevanceReport{Questions: len(results), Results: results}
	var accepted []RelevanceResult
	for _, r := range results {
		if r.Answerable {
			rep.Answerable++
		} else {
			rep.Unanswerable++
		}
		switch {
		case r.Missing != "":
			rep.Unlocated++
			continue
		case r.Err != "":
			rep.Errors++
		}
		rep.Judged++
		if !r.Accepted {
			continue
		}
		accepted = append(accepted, r)
		if r.Answerable {
			rep.AcceptedGold++
		} else {
			rep.AcceptedDistractors++
		}
	}
	rep.Accuracy = ratio(rep.AcceptedGold, rep.AcceptedGold+rep.AcceptedDistractors)
	rep.AnswerableAccepted = ratio(rep.AcceptedGold, rep.Answerable)
	rep.DistractorsRefused = ratio(rep.Unanswerable-rep.AcceptedDistractors, rep.Unanswerable)
	slices.SortStableFunc(accepted, func(a, b RelevanceResult) int { return cmp.Compare(b.Confidence, a.Confidence) })
	var curve []RelevancePoint
	gold := 0
	for i, r := range accepted {
		if r.Answerable {
			gold++
		}
		if i+1 < len(accepted) && accepted[i+1].Confidence == r.Confidence {
			continue // the threshold admits the whole tie group
		}
		p := RelevancePoint{Threshold: r.Confidence, Accepted: i + 1, Accuracy: ratio(gold, i+1), AnswerableAccepted: ratio(gold, rep.Answerable)}
		if rep.AtHalf == nil && rep.Answerable > 0 && 2*gold >= rep.Answerable {
			at := p
			rep.AtHalf = &at
		}
		curve = append(curve, p)
	}
	rep.Curve = ThinCurve(curve, relevanceCurvePoints)
	return rep
}
