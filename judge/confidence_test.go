package judge

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/docmind/docmind/schema"
)

func TestCalibrationIsComplete(t *testing.T) {
	signals := DecisionSignals()
	for name := range calibrationWeights {
		if !slices.Contains(signals, name) {
			t.Errorf("calibration.go weighs %q, which is no signal: regenerate it (scripts/calibrate.sh)", name)
		}
	}
	if DefaultMinConfidence <= 0 || DefaultMinConfidence >= 1 {
		t.Errorf("DefaultMinConfidence = %v", DefaultMinConfidence)
	}
}

// The verdict's confidence is the calibration applied to the signals it
// reports, and an answer on the question's focus is more confident than
// the same kind of quote about something else.
func TestVerdictSignalsGiveTheConfidence(t *testing.T) {
	ctx := context.Background()
	secs := corpusSections()
	j := NewOffline(WithCorpus(secs), WithMinConfidence(0))
	on, err := j.Judge(ctx, schema.JudgeRequest{
		Query:    "How long until a response to a Severity 1 incident?",
		Response: "Severity 1 incidents get a response within 1 hour. (See Incident Response Times, page 5)",
		Sections: secs[2:3],
	})
	if err != nil {
		t.Fatal(err)
	}
	z := calibrationBias
	for i, name := range DecisionSignals() {
		v, ok := on.Signals[name]
		if !ok && i < len(baseSignals) {
			t.Fatalf("signal %q missing: %v", name, on.Signals)
		}
		z += calibrationWeights[name] * v
	}
	if want := math.Round(1000/(1+math.Exp(-z))) / 1000; math.Abs(on.ConfidenceScore-want) > 0.002 {
		t.Errorf("confidence %.3f, the signals give %.3f", on.ConfidenceScore, want)
	}
	off, err := j.Judge(ctx, schema.JudgeRequest{
		Query:    "How long until a response to a Severity 1 incident?",
		Response: "Provider shall make the analytics platform available at least 99.5% of the time in each calendar month under the Standard tier. (See Availability, page 5)",
		Sections: secs[1:2],
	})
	if err != nil {
		t.Fatal(err)
	}
	if off.ConfidenceScore >= on.ConfidenceScore {
		t.Errorf("off-question answer %.3f not less confident than the answer %.3f", off.ConfidenceScore, on.ConfidenceScore)
	}
}

// A question's neighbouring words stated side by side in the claim count;
// the same words apart, or one of a pair swapped, do not.
func TestPhraseOverlap(t *testing.T) {
	q := "What is a deterministic Turing machine with an extra supply of random bits?"
	for _, c := range []struct {
		claim string
		want  float64
	}{
		{"A probabilistic Turing machine is a deterministic Turing machine with an extra supply of random bits.", 1},
		// "random ribbons" breaks the last pair: 5 of 6
		{"A probabilistic Turing machine is a deterministic Turing machine with an extra supply of random ribbons.", 5.0 / 6},
		// the same words, none side by side
		{"Random deterministic bits: Turing supply of an extra machine.", 0},
	} {
		if got := phraseOverlap(q, c.claim); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("phraseOverlap(%q) = %.3f, want %.3f", c.claim, got, c.want)
		}
	}
	// a question of one content word has no pair to lose
	if got := phraseOverlap("Who is Rollo?", "Rollo led the raiders."); got != 1 {
		t.Errorf("one-term question: %.3f, want 1", got)
	}
}

// topic_focus leaves out the question's words that chose the answer's
// document (Section.NamedBy): a clause need not repeat its contract's
// party; lead_rank says where the first claim was drawn from.
func TestLeadSectionSignals(t *testing.T) {
	ctx := context.Background()
	body := schema.Section{
		Source: "msa.md", Title: "Termination", Page: 4, RelevanceScore: 0.6,
		Content: "Either party may terminate this Agreement on thirty days' written notice.",
	}
	preamble := schema.Section{
		Source: "msa.md", Title: "Parties", Page: 1, RelevanceScore: 0.9, Kind: schema.KindPreamble,
		Content: "This Agreement is made between Zorblat Industries and Client.",
	}
	q := "What notice ends the Zorblat maintenance agreement?"
	judge := func(named []string) map[string]float64 {
		b := body
		b.NamedBy = named
		v, err := NewOffline(WithMinConfidence(0)).Judge(ctx, schema.JudgeRequest{
			Query:    q,
			Response: "Either party may terminate this Agreement on thirty days' written notice. (See Termination, page 4)",
			Sections: []schema.Section{preamble, b},
		})
		if err != nil {
			t.Fatal(err)
		}
		return v.Signals
	}
	plain, named := judge(nil), judge([]string{"Zorblat", "maintenance"})
	if plain["topic_focus"] >= 1 || plain["topic_focus"] != plain["claim_focus"] {
		t.Errorf("without NamedBy: topic_focus %v, claim_focus %v; want equal, below 1", plain["topic_focus"], plain["claim_focus"])
	}
	if named["topic_focus"] != 1 {
		t.Errorf("with NamedBy: topic_focus %v, want 1 (%v)", named["topic_focus"], named)
	}
	if named["lead_rank"] != 0.5 {
		t.Errorf("lead_rank %v, want 0.5 (second of two)", named["lead_rank"])
	}
}

// A confidence just under the threshold is not written as the threshold.
func TestBelowThresholdNeverReadsAsTheThreshold(t *testing.T) {
	for _, c := range []struct {
		conf, min float64
		want      string
	}{{0.598, 0.60, "0.598"}, {0.5999, 0.60, "0.599"}, {0.41, 0.60, "0.41"}, {0.547, 0.55, "0.547"}} {
		if got := belowThreshold(c.conf, c.min); got != c.want {
			t.Errorf("belowThreshold(%v, %v) = %q, want %q", c.conf, c.min, got, c.want)
		}
	}
}
