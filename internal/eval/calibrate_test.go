package eval

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// synthetic draws n answered results whose correctness follows a known
// logistic model over two signals.
func synthetic(name string, n int, w []float64, b float64, seed uint64) CalibrationSet {
	r := rand.New(rand.NewPCG(seed, 1))
	s := CalibrationSet{Name: name}
	for i := 0; i < n; i++ {
		x := []float64{r.Float64(), r.Float64()}
		p := 1 / (1 + math.Exp(-(b + w[0]*x[0] + w[1]*x[1])))
		s.Results = append(s.Results, QAResult{
			ID: fmt.Sprintf("%s%d", name, i), Answerable: true, Answered: true,
			Correct: r.Float64() < p,
			Signals: map[string]float64{"a": x[0], "b": x[1]},
		})
	}
	return s
}

func TestFitCalibrationRecoversTheModel(t *testing.T) {
	w, b := []float64{4, -3}, -0.5
	set := synthetic("s", 20000, w, b, 1)
	c, err := FitCalibration([]CalibrationSet{set}, []string{"a", "b"}, CalibrationOptions{L2: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	for i := range w {
		if math.Abs(c.Weights[i]-w[i]) > 0.25 {
			t.Errorf("weight %d = %.3f, want about %.1f", i, c.Weights[i], w[i])
		}
	}
	if math.Abs(c.Bias-b) > 0.25 {
		t.Errorf("bias = %.3f, want about %.1f", c.Bias, b)
	}
	// With a wrong answer costing as much as a correct one gains, the
	// best threshold of a calibrated model is 0.5.
	c, err = FitCalibration([]CalibrationSet{set}, []string{"a", "b"}, CalibrationOptions{L2: 1e-6, WrongCost: 1})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Threshold-0.5) > 0.051 {
		t.Errorf("threshold = %.2f, want 0.5 ± 0.05", c.Threshold)
	}
}

func TestFitCalibrationWeighsSetsEqually(t *testing.T) {
	small := synthetic("small", 300, []float64{3, 0}, -1, 2)
	large := synthetic("large", 3000, []float64{0, 3}, -1, 3)
	big := CalibrationSet{Name: "small", Results: nil}
	for k := 0; k < 10; k++ {
		big.Results = append(big.Results, small.Results...)
	}
	sig := []string{"a", "b"}
	c1, err := FitCalibration([]CalibrationSet{small, large}, sig, CalibrationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c10, err := FitCalibration([]CalibrationSet{big, large}, sig, CalibrationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Ten copies of a set weigh what one does.
	for i := range c1.Weights {
		if math.Abs(c1.Weights[i]-c10.Weights[i]) > 0.15 {
			t.Errorf("weight %d: %.3f with one copy, %.3f with ten", i, c1.Weights[i], c10.Weights[i])
		}
	}
	// and each set's signal matters about as much (unweighted, the large
	// set's signal would get several times the weight)
	if r := c1.Weights[0] / c1.Weights[1]; r < 0.6 || r > 1.7 {
		t.Errorf("weights %v: one set dominates", c1.Weights)
	}
}

func TestFitCalibrationThresholdTable(t *testing.T) {
	// Two answers, confidence 0.8 (correct) and 0.4 (wrong), one refused
	// answerable question and one unanswerable refused.
	set := CalibrationSet{Name: "t", Results: []QAResult{
		{ID: "1", Answerable: true, Answered: true, Correct: true, Confidence: 0.8},
		{ID: "2", Answerable: false, Answered: true, Confidence: 0.4},
		{ID: "3", Answerable: true},
		{ID: "4", Answerable: false},
		{ID: "5", Answerable: true, Answered: true, Correct: true, Signals: map[string]float64{"a": 1}},
		{ID: "6", Answerable: true, Answered: true, Signals: map[string]float64{"a": 0}},
	}}
	c, err := FitCalibration([]CalibrationSet{set}, []string{"a"}, CalibrationOptions{WrongCost: 2})
	if err != nil {
		t.Fatal(err)
	}
	rep := c.Sets[0]
	if rep.Questions != 6 || rep.Answerable != 4 || rep.Samples != 2 {
		t.Fatalf("report = %+v", rep)
	}
	at := func(th float64) ThresholdPoint {
		for _, p := range rep.Points {
			if math.Abs(p.Threshold-th) < 1e-9 {
				return p
			}
		}
		t.Fatalf("no point at %v", th)
		return ThresholdPoint{}
	}
	if p := at(0); p.Answered != 4 || p.Correct != 2 || p.AnsweredAccuracy != 0.5 || p.AnswerableCorrect != 0.5 {
		t.Errorf("at 0: %+v", p)
	}
	if p := at(0.45); p.Answered > 3 || p.Correct < 1 {
		t.Errorf("at 0.45 the wrong 0.4 answer is still counted: %+v", p)
	}
	if c.Threshold == 0 {
		t.Errorf("threshold 0 chosen although refusing the wrong answers gains: %+v", rep.Points)
	}
}

func TestFitCalibrationErrors(t *testing.T) {
	sig := []string{"a"}
	if _, err := FitCalibration(nil, sig, CalibrationOptions{}); err == nil {
		t.Error("no sets: no error")
	}
	none := CalibrationSet{Name: "n", Results: []QAResult{{ID: "1", Answered: true}}}
	if _, err := FitCalibration([]CalibrationSet{none}, sig, CalibrationOptions{}); err == nil || !strings.Contains(err.Error(), "--min-confidence 0") {
		t.Errorf("set without signals: %v", err)
	}
	other := CalibrationSet{Name: "o", Results: []QAResult{{ID: "1", Answered: true, Signals: map[string]float64{"b": 1}}}}
	if _, err := FitCalibration([]CalibrationSet{other}, sig, CalibrationOptions{}); err == nil || !strings.Contains(err.Error(), `no signal "a"`) {
		t.Errorf("missing signal: %v", err)
	}
}

func TestWriteCalibrationGo(t *testing.T) {
	c := &Calibration{Signals: []string{"a", "b"}, Weights: []float64{1.5, -2}, Bias: 0.25, WrongCost: 2, Threshold: 0.45}
	var b bytes.Buffer
	if err := WriteCalibrationGo(&b, c, "docmind eval calibrate x.json"); err != nil {
		t.Fatal(err)
	}
	src := b.String()
	if _, err := parser.ParseFile(token.NewFileSet(), "calibration.go", src, 0); err != nil {
		t.Fatalf("generated code does not parse: %v\n%s", err, src)
	}
	for _, want := range []string{"Code generated", "package judge", `"a": 1.5000`, `"b": -2.0000`, "calibrationBias = 0.2500", "calibrationThreshold = 0.45"} {
		if !strings.Contains(src, want) {
			t.Errorf("generated code lacks %q:\n%s", want, src)
		}
	}
}

// ShippedCalibration scores the sets under a given model without fitting:
// its threshold is the one given, and its AURC ranks the answers by the
// model's confidences.
func TestShippedCalibration(t *testing.T) {
	set := CalibrationSet{Name: "s", Results: []QAResult{
		{ID: "1", Answerable: true, Answered: true, Correct: true, Signals: map[string]float64{"a": 1}},
		{ID: "2", Answerable: false, Answered: true, Signals: map[string]float64{"a": 0}},
		{ID: "3", Answerable: true},
	}}
	c, err := ShippedCalibration([]CalibrationSet{set}, []string{"a"}, []float64{4}, -2, 0.55, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Shipped || c.Threshold != 0.55 || len(c.Sets) != 1 {
		t.Fatalf("calibration = %+v", c)
	}
	rep := c.Sets[0]
	// the right answer (p 0.881) ranks first: risks 0 then 1/2 over 3 questions
	if rep.Samples != 2 || math.Abs(rep.AURC-0.5/3) > 1e-9 {
		t.Errorf("samples %d, AURC %.4f, want 2 and %.4f", rep.Samples, rep.AURC, 0.5/3)
	}
	for _, p := range rep.Points {
		if p.Threshold == 0.55 && (p.Answered != 1 || p.Correct != 1) {
			t.Errorf("at 0.55: %+v, want the right answer alone", p)
		}
	}
	// the opposite model ranks the wrong answer first: risks 1 then 1/2
	c, err = ShippedCalibration([]CalibrationSet{set}, []string{"a"}, []float64{-4}, 2, 0.55, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Sets[0].AURC; math.Abs(got-1.5/3) > 1e-9 {
		t.Errorf("AURC %.4f, want %.4f", got, 1.5/3)
	}
	if _, err := ShippedCalibration([]CalibrationSet{set}, []string{"a", "b"}, []float64{1}, 0, 0.5, 2); err == nil {
		t.Error("one weight for two signals: no error")
	}
	// a report from another version is an error, as for a fit, not
	// figures from missing signals read as zero
	if _, err := ShippedCalibration([]CalibrationSet{set}, []string{"a", "b"}, []float64{1, 1}, 0, 0.5, 2); err == nil || !strings.Contains(err.Error(), `no signal "b"`) {
		t.Errorf("missing signal: %v", err)
	}
}

// Leave one domain out scores each domain with a model fitted on the
// others only. In domain "a" correctness follows signal a, in "b" signal
// b: fitted without "a", the model has no weight on signal a and cannot
// rank a's answers, so a's held-out AURC is well above its AURC under the
// model fitted on every set. The sets the domain map groups are pooled.
func TestLeaveOneDomainOut(t *testing.T) {
	sig := []string{"a", "b"}
	sets := []CalibrationSet{
		synthetic("a1", 1500, []float64{6, 0}, -3, 4),
		synthetic("a2", 1500, []float64{6, 0}, -3, 5),
		synthetic("b", 1500, []float64{0, 6}, -3, 6),
	}
	all, err := FitCalibration(sets, sig, CalibrationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hs, err := LeaveOneDomainOut(sets, sig, CalibrationOptions{}, all, map[string]string{"a1": "a", "a2": "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 || hs[0].Domain != "a" || !slices.Equal(hs[0].Sets, []string{"a1", "a2"}) || hs[1].Domain != "b" {
		t.Fatalf("domains %+v", hs)
	}
	for _, h := range hs {
		if h.Held.AURC <= h.AllSets.AURC+0.05 {
			t.Errorf("%s: held-out AURC %.4f, all sets %.4f: a model that never saw the domain's signal should rank it worse", h.Domain, h.Held.AURC, h.AllSets.AURC)
		}
	}
	if a := hs[0]; a.Held.Questions != 3000 || a.AllSets.Questions != 3000 || a.AllSets.Threshold != all.Threshold {
		t.Errorf("a: %+v", a)
	}
	var b bytes.Buffer
	if err := WriteDomainTable(&b, hs); err != nil || !strings.Contains(b.String(), "a            held out") {
		t.Errorf("table (%v):\n%s", err, b.String())
	}
	// One domain: nothing to hold out.
	if hs, err := LeaveOneDomainOut(sets[:2], sig, CalibrationOptions{}, all, map[string]string{"a1": "x", "a2": "x"}); hs != nil || err != nil {
		t.Errorf("one domain: %v %v", hs, err)
	}
}

// With leave-one-domain-out figures the shipped threshold is the one they
// choose: what documents the model never saw will meet.
func TestWriteCalibrationGoHeldOutThreshold(t *testing.T) {
	c := &Calibration{Signals: []string{"a"}, Weights: []float64{1}, WrongCost: 1, Threshold: 0.45, HeldOutThreshold: 0.55}
	var b bytes.Buffer
	if err := WriteCalibrationGo(&b, c, "docmind eval calibrate x.json"); err != nil {
		t.Fatal(err)
	}
	if src := b.String(); !strings.Contains(src, "calibrationThreshold = 0.55") || !strings.Contains(src, "would choose 0.45") {
		t.Errorf("generated code:\n%s", src)
	}
}

// The threshold is chosen on the utility averaged with its neighbours: a
// single point a question above a broad plateau does not win, and of two
// equal peaks the choice lies between them.
func TestBestThresholdReadsNeighbours(t *testing.T) {
	u := make([]float64, len(CalibrationThresholds))
	for k := range u {
		u[k] = -0.1
	}
	// a plateau at 0.30-0.40, a spike at 0.80 a little higher than it
	u[6], u[7], u[8] = 0.20, 0.20, 0.20
	u[16] = 0.21
	if got := bestThreshold(u); got != 0.35 {
		t.Errorf("plateau and spike: threshold %v, want 0.35 (the plateau's middle)", got)
	}
	// two peaks with a dip between them (0.55, 0.65): the middle
	for k := range u {
		u[k] = 0
	}
	u[10], u[11], u[12], u[13], u[14] = 0.2, 0.2136, 0.2105, 0.2134, 0.2
	if got := bestThreshold(u); got != 0.6 {
		t.Errorf("two peaks: threshold %v, want 0.6", got)
	}
}

// Each set reports how well each signal, and the model's confidence,
// tells its right answers from its wrong ones: in set "a" correctness
// follows signal a only, so a separates (well above 0.5) and b does not
// (near 0.5); a set without a wrong answer has no separation.
func TestCalibrationSeparation(t *testing.T) {
	a := synthetic("a", 600, []float64{8, 0}, -4, 7)
	c, err := FitCalibration([]CalibrationSet{a}, []string{"a", "b"}, CalibrationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sep := c.Sets[0].Separation
	if sep["a"] < 0.8 || math.Abs(sep["b"]-0.5) > 0.07 || sep["confidence"] < 0.8 {
		t.Errorf("separation = %v, want a and confidence above 0.8, b near 0.5", sep)
	}
	// ties count half: a signal constant over the set separates at 0.5
	for i := range a.Results {
		a.Results[i].Signals["b"] = 1
	}
	c, err = ShippedCalibration([]CalibrationSet{a}, []string{"a", "b"}, []float64{1, 1}, 0, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Sets[0].Separation["b"]; got != 0.5 {
		t.Errorf("constant signal separates at %v, want 0.5", got)
	}
	var b bytes.Buffer
	if err := WriteCalibrationTable(&b, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "separation of right and wrong answers") {
		t.Errorf("table lacks the separation block:\n%s", b.String())
	}
	right := CalibrationSet{Name: "r", Results: []QAResult{{ID: "1", Answerable: true, Answered: true, Correct: true, Signals: map[string]float64{"a": 1, "b": 0}}}}
	c, err = ShippedCalibration([]CalibrationSet{right}, []string{"a", "b"}, []float64{1, 1}, 0, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c.Sets[0].Separation != nil {
		t.Errorf("a set without wrong answers: separation %v, want none", c.Sets[0].Separation)
	}
}
