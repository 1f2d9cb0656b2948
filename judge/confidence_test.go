package judge

import (
	"context"
	"math"
	"testing"

	"github.com/docmind/docmind/schema"
)

func TestCalibrationIsComplete(t *testing.T) {
	if len(calibrationWeights) != len(calibrationSignals) {
		t.Fatalf("calibration.go has %d weights for %d signals: regenerate it (scripts/calibrate.sh)", len(calibrationWeights), len(calibrationSignals))
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
	if len(on.Signals) != len(calibrationSignals) {
		t.Fatalf("signals = %v", on.Signals)
	}
	z := calibrationBias
	for i, name := range calibrationSignals {
		v, ok := on.Signals[name]
		if !ok {
			t.Fatalf("signal %q missing: %v", name, on.Signals)
		}
		z += calibrationWeights[i] * v
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
