package eval

import (
	"context"
	"slices"

	"github.com/docmind/docmind/chains"
	"github.com/docmind/docmind/schema"
)

// The first pass. An answerable question the pipeline gets wrong was lost
// at one of three steps: retrieval did not hand the generator the passage
// that answers, the generator drafted from the wrong sentence, or the
// decision refused a right draft (or accepted a wrong one). The final
// state shows only the last attempt, whose sections a retry chose after
// the judge had excluded the first ones. So eval qa also reads the first
// attempt as it runs: the sections the first retrieve node handed on and
// the draft the first generate node wrote from them, and reports each
// question's figures split by whether its evidence was handed on
// (FirstPassScore).

// FirstPass is what a run's first attempt handed the generator and what
// the generator drafted from it.
type FirstPass struct {
	Sections []schema.Section
	Draft    string
	// Confidence is the first verdict's confidence_score.
	Confidence float64
	retrieved  bool
	drafted    bool
	judged     bool
	// seen holds every section a retrieve node of the run handed on, by
	// key: where a refusal's closest passages are read from
	seen map[string]schema.Section
}

type firstPassKey struct{}

// WithFirstPass returns ctx carrying fp, for the AskFunc that runs the
// question to fill (through RecordFirstPass). RunQA passes one per
// question.
func WithFirstPass(ctx context.Context, fp *FirstPass) context.Context {
	return context.WithValue(ctx, firstPassKey{}, fp)
}

// RecordFirstPass returns the run option that fills the FirstPass ctx
// carries (WithFirstPass) with the sections of the run's first retrieve
// node, the response of its first generate node and the confidence of its
// first verdict. With none it records nothing.
func RecordFirstPass(ctx context.Context) chains.RunOption {
	fp, _ := ctx.Value(firstPassKey{}).(*FirstPass)
	return chains.AfterEachStep(func(_ context.Context, st chains.Step) error {
		if fp == nil || st.State == nil {
			return nil
		}
		if st.Node == schema.NodeRetrieve {
			if fp.seen == nil {
				fp.seen = map[string]schema.Section{}
			}
			for _, s := range st.State.RetrievedSections {
				if _, ok := fp.seen[s.Key()]; !ok {
					fp.seen[s.Key()] = s
				}
			}
		}
		switch {
		case st.Node == schema.NodeRetrieve && !fp.retrieved:
			fp.Sections, fp.retrieved = slices.Clone(st.State.RetrievedSections), true
		case st.Node == schema.NodeGenerate && !fp.drafted && st.State.GeneratedResponse != nil:
			fp.Draft, fp.drafted = *st.State.GeneratedResponse, true
		case st.Node == schema.NodeJudge && !fp.judged && st.State.JudgeVerdict != nil:
			fp.Confidence, fp.judged = st.State.JudgeVerdict.ConfidenceScore, true
		}
		return nil
	})
}

// FirstPassScore is the answerable questions' figures split by whether
// the first pass handed on their evidence. Located counts the answerable
// questions whose evidence the row locates (EvidenceTarget.Located) and
// whose first pass was seen; EvidenceHandedOn is the share of them whose
// evidence was among the sections the generator got. DraftCorrect is the
// share of the answerable questions whose first draft matches the gold
// (the rule of QAReport.Match, facts included), whatever the judge
// decided: what a perfect decision on the first pass could answer.
// DraftSeparation is the ROC area of the first verdict's confidence for
// the answerable questions' right first drafts against their wrong ones
// (nil without both): near 1, the decision ranks right drafts first and
// a refused right draft is a matter of the threshold's scale; near 0.5,
// the confidence cannot tell them apart at any threshold.
type FirstPassScore struct {
	Answerable       int         `json:"answerable"`
	Located          int         `json:"located"`
	EvidenceHandedOn float64     `json:"evidence_handed_on"`
	DraftCorrect     float64     `json:"draft_correct"`
	DraftSeparation  *float64    `json:"draft_separation"`
	WithEvidence     SubsetScore `json:"with_evidence"`
	WithoutEvidence  SubsetScore `json:"without_evidence"`
}

// SubsetScore is the figures of a subset of the answerable questions:
// how many, the share whose first draft matches the gold, the share
// answered correctly, how many were answered and the accuracy among them.
type SubsetScore struct {
	Questions         int     `json:"questions"`
	DraftCorrect      float64 `json:"draft_correct"`
	AnswerableCorrect float64 `json:"answerable_correct"`
	Answered          int     `json:"answered"`
	AnsweredAccuracy  float64 `json:"answered_accuracy"`
	drafts, correct   int
}

func (s *SubsetScore) add(r QAResult) {
	s.Questions++
	if r.FirstDraftCorrect != nil && *r.FirstDraftCorrect {
		s.drafts++
	}
	if r.Correct {
		s.correct++
	}
	if r.Answered {
		s.Answered++
	}
}

func (s *SubsetScore) finish() {
	s.DraftCorrect = ratio(s.drafts, s.Questions)
	s.AnswerableCorrect = ratio(s.correct, s.Questions)
	s.AnsweredAccuracy = ratio(s.correct, s.Answered)
}

// scoreFirstPass fills r's first-pass fields from fp: whether the
// sections handed on hold the evidence of target (when it locates it),
// and whether the draft matches the row's gold.
func scoreFirstPass(r *QAResult, row QARow, fp *FirstPass, target EvidenceTarget) {
	if !r.Answerable || !fp.retrieved {
		return
	}
	if target.Located() {
		m := newEvidenceMatcher(target)
		ok := slices.ContainsFunc(fp.Sections, m.evidence)
		r.EvidenceHandedOn = &ok
	}
	if fp.drafted && (len(row.Answers) > 0 || len(row.Facts) > 0) {
		facts, missed := row.misses(fp.Draft)
		ok := len(facts) == 0 && !missed
		r.FirstDraftCorrect = &ok
	}
	if fp.judged {
		c := fp.Confidence
		r.FirstConfidence = &c
	}
}

// summarizeFirstPass returns the first-pass figures of results, nil when
// no answerable result has them.
func summarizeFirstPass(results []QAResult) *FirstPassScore {
	var fs FirstPassScore
	var all SubsetScore
	var rightDrafts, wrongDrafts []float64 // their first confidences
	seen := false
	for _, r := range results {
		if !r.Answerable {
			continue
		}
		fs.Answerable++
		all.add(r)
		if r.FirstDraftCorrect != nil && r.FirstConfidence != nil {
			if *r.FirstDraftCorrect {
				rightDrafts = append(rightDrafts, *r.FirstConfidence)
			} else {
				wrongDrafts = append(wrongDrafts, *r.FirstConfidence)
			}
		}
		if r.EvidenceHandedOn == nil && r.FirstDraftCorrect == nil {
			continue
		}
		seen = true
		if r.EvidenceHandedOn == nil {
			continue
		}
		fs.Located++
		if *r.EvidenceHandedOn {
			fs.WithEvidence.add(r)
		} else {
			fs.WithoutEvidence.add(r)
		}
	}
	if !seen {
		return nil
	}
	all.finish()
	fs.WithEvidence.finish()
	fs.WithoutEvidence.finish()
	fs.EvidenceHandedOn = ratio(fs.WithEvidence.Questions, fs.Located)
	fs.DraftCorrect = all.DraftCorrect
	if len(rightDrafts) > 0 && len(wrongDrafts) > 0 {
		a := rocArea(rightDrafts, wrongDrafts)
		fs.DraftSeparation = &a
	}
	return &fs
}

// scoreClosest sets, for an answerable question that was refused,
// r.ClosestExcerptAnswers when its row has gold answers or facts: whether
// the excerpt of a passage the refusal points at (closest_passages)
// states them, as an answer's text would have to (QARow.misses); and
// r.ClosestHoldEvidence when its row locates its evidence: whether those
// passages hold it, as eval evidence counts a hit. A passage is read as the section the run retrieved under
// its id; one the run did not report is read from the passage itself
// (title, document, page, excerpt).
func scoreClosest(r *QAResult, row QARow, st *schema.State, fp *FirstPass, target EvidenceTarget) {
	if !r.Answerable || r.Answered || st == nil {
		return
	}
	if len(row.Answers) > 0 || len(row.Facts) > 0 {
		ok := slices.ContainsFunc(st.ClosestPassages, func(p schema.Passage) bool {
			facts, missed := row.misses(p.Excerpt)
			return p.Excerpt != "" && len(facts) == 0 && !missed
		})
		r.ClosestExcerptAnswers = &ok
	}
	if !target.Located() {
		return
	}
	m := newEvidenceMatcher(target)
	ok := slices.ContainsFunc(st.ClosestPassages, func(p schema.Passage) bool {
		s, found := fp.seen[p.SectionID]
		if p.SectionID == "" || !found {
			s = schema.Section{Title: p.Title, Source: p.Source, Page: p.Page, Content: p.Excerpt}
		}
		return m.evidence(s)
	})
	r.ClosestHoldEvidence = &ok
}

// RefusalScore is what the refusals of answerable questions point at:
// Refused counts them, Located those whose row locates the evidence, and
// ClosestHoldEvidence is the share of those whose closest_passages hold
// it (the place a user who got the refusal is sent to read).
type RefusalScore struct {
	Refused             int     `json:"refused"`
	Located             int     `json:"located"`
	ClosestHoldEvidence float64 `json:"closest_hold_evidence"`
	// WithGold counts the refused questions with gold answers or facts,
	// and ExcerptsStateAnswer is the share of them for which the excerpt
	// of a closest passage states the answer: what the refusal shows
	// without opening a document.
	WithGold            int     `json:"with_gold"`
	ExcerptsStateAnswer float64 `json:"excerpts_state_answer"`
}

// summarizeRefusals returns the refusal figures of results, nil when no
// answerable question was refused.
func summarizeRefusals(results []QAResult) *RefusalScore {
	var rs RefusalScore
	hold, stated := 0, 0
	for _, r := range results {
		if !r.Answerable || r.Answered || r.Err != "" {
			continue
		}
		rs.Refused++
		if r.ClosestHoldEvidence != nil {
			rs.Located++
			hold += b2i(*r.ClosestHoldEvidence)
		}
		if r.ClosestExcerptAnswers != nil {
			rs.WithGold++
			stated += b2i(*r.ClosestExcerptAnswers)
		}
	}
	if rs.Refused == 0 {
		return nil
	}
	rs.ClosestHoldEvidence = ratio(hold, rs.Located)
	rs.ExcerptsStateAnswer = ratio(stated, rs.WithGold)
	return &rs
}
