package eval

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/internal/eval/evaltest"
)

func TestLoadRAGTruth(t *testing.T) {
	srcs, err := LoadRAGTruth(filepath.Join("testdata", "ragtruth_tiny.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 3 {
		t.Fatalf("got %d sources, want 3", len(srcs))
	}
	qa, sum, d2t := srcs[0], srcs[1], srcs[2]
	if qa.Task != TaskQA || qa.SourceID != "1" || qa.Query != "what is the late fee" {
		t.Errorf("qa source = %q %q %q", qa.Task, qa.SourceID, qa.Query)
	}
	if len(qa.Sections) != 2 || qa.Sections[0].Title != "Passage 1" || qa.Sections[1].Content != "Invoices are due within thirty days." {
		t.Errorf("qa passages = %+v", qa.Sections)
	}
	if sum.Task != TaskSummary || sum.SourceID != "a2" || sum.Query != SummaryInstruction || len(sum.Sections) != 1 {
		t.Errorf("summary source = %+v", sum)
	}
	if d2t.Task != TaskData2Txt || d2t.Query != Data2TxtInstruction {
		t.Errorf("data2txt source = %q %q", d2t.Task, d2t.Query)
	}
	if len(d2t.Sections) != 2 || d2t.Sections[1].Title != "Review 1" {
		t.Fatalf("data2txt sections = %+v", d2t.Sections)
	}
	rec := d2t.Sections[0].Content
	for _, want := range []string{"name: Café Uno.", "hours: Monday 17:00 (5:00 PM)-21:30 (9:30 PM).", "Outdoor Seating no", "WiFi free", "business stars: 4.5."} {
		if !strings.Contains(rec, want) {
			t.Errorf("record text lacks %q:\n%s", want, rec)
		}
	}
	if !strings.Contains(d2t.Sections[1].Content, "review text: Great coffee.") {
		t.Errorf("review section = %q", d2t.Sections[1].Content)
	}
	// Hallucinated only with an implicit_true == false label.
	if qa.Responses[0].Hallucinated() || !qa.Responses[1].Hallucinated() || sum.Responses[0].Hallucinated() || !d2t.Responses[0].Hallucinated() {
		t.Error("Hallucinated() disagrees with the labels")
	}
	if got := sum.Responses[0].GoldSpans(); len(got) != 0 {
		t.Errorf("implicit_true labels must not be gold spans: %v", got)
	}
}

func TestReadRAGTruthErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":       "\n\n",
		"not json":    "{nope\n",
		"no source":   `{"source_id": 1, "responses": []}`,
		"bad source":  `{"source_id": 1, "source": 5, "responses": []}`,
		"label range": `{"source_id": 1, "source": "abc", "responses": [{"response": "abc", "labels": [{"start": 1, "end": 9, "implicit_true": false}]}]}`,
	} {
		if _, err := ReadRAGTruth(strings.NewReader(in), "x.jsonl"); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), "x.jsonl") {
			t.Errorf("%s: error does not name the file: %v", name, err)
		}
	}
}

func TestHumanKey(t *testing.T) {
	for in, want := range map[string]string{
		"RestaurantsTakeOut": "Restaurants Take Out", "business_stars": "business stars",
		"WiFi": "WiFi", "HasTV": "Has TV", "name": "name", "GoodForKids": "Good For Kids",
	} {
		if got := humanKey(in); got != want {
			t.Errorf("humanKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLocator(t *testing.T) {
	l := newLocator("Café costs €5.  Open\n daily. It is cheap.")
	tests := []struct {
		claim string
		want  Span
		ok    bool
	}{
		{"open daily.", Span{16, 28}, true},        // case and spacing ignored, code points counted
		{"Café costs €5", Span{0, 13}, true},       // verbatim
		{"it is cheap", Span{29, 40}, true},        // without the full stop
		{"It is really cheap", Span{29, 41}, true}, // best sentence by terms
		{"Parking is free", Span{}, false},         // nowhere
		{"   ", Span{}, false},
	}
	for _, tt := range tests {
		got, ok := l.find(tt.claim)
		if ok != tt.ok || got != tt.want {
			t.Errorf("find(%q) = %v %v, want %v %v", tt.claim, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRunJudgeAndScore(t *testing.T) {
	srcs, err := LoadRAGTruth(filepath.Join("testdata", "ragtruth_tiny.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	out, err := RunJudge(context.Background(), evaltest.TinyJudge(), srcs, JudgeRunOptions{Concurrency: 2, Progress: func(done, total int) {
		calls++
		if total != 4 || done < 1 || done > 4 {
			t.Errorf("progress %d/%d", done, total)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 4 || len(out) != 4 {
		t.Fatalf("progress calls %d, outcomes %d; want 4, 4", calls, len(out))
	}
	if o := out[3]; o.Unlocated != 1 || len(o.Claims) != 1 || o.Claims[0].Span != (Span{9, 46}) || !near(o.Claims[0].Risk, 0.9) || o.Risk != 1 {
		t.Errorf("data2txt outcome = %+v", o)
	}
	if o := out[1]; o.Risk != 1 || o.Claims[0].Span != (Span{0, 29}) {
		t.Errorf("contradiction outcome = %+v", o)
	}
	scores := Score(out, VerdictDecision)
	if len(scores) != 4 || scores[0].Task != TaskQA || scores[1].Task != TaskSummary || scores[2].Task != TaskData2Txt || scores[3].Task != "overall" {
		t.Fatalf("tasks = %+v", scores)
	}
	all := scores[3]
	if all.Responses != 4 || all.Hallucinated != 2 || all.Confusion != (Confusion{TP: 2, TN: 2}) || all.F1 != 1 {
		t.Errorf("overall = %+v", all)
	}
	// Spans: qa predicts [0,29) vs gold [16,18); data2txt [9,46) vs [27,46).
	if all.Spans != (SpanCounts{Predicted: 66, Gold: 21, Overlap: 21}) || !near(all.SpanF1, 42.0/87) {
		t.Errorf("overall spans %+v F1 %v", all.Spans, all.SpanF1)
	}
	if qa := scores[0]; !near(qa.SpanF1, 4.0/31) || qa.Responses != 2 || !near(qa.AlwaysYesF1, 2.0/3) {
		t.Errorf("qa = %+v", qa)
	}
	// At threshold 0.95 both hallucinated responses stay positive (risk 1:
	// a contradiction; an unlocated claim with no support), but only the
	// contradiction's span remains.
	strict := Score(out, ThresholdDecision(0.95))[3]
	if strict.Confusion != (Confusion{TP: 2, TN: 2}) || strict.Spans != (SpanCounts{Predicted: 29, Gold: 21, Overlap: 2}) {
		t.Errorf("strict = %+v", strict)
	}
}

func TestRunJudgeErrorsAndCancel(t *testing.T) {
	srcs, err := LoadRAGTruth(filepath.Join("testdata", "ragtruth_tiny.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := RunJudge(context.Background(), evaltest.ScriptedJudge{}, srcs, JudgeRunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc := Score(out, VerdictDecision)[3]
	if sc.Errors != 4 || sc.Confusion != (Confusion{TP: 2, FP: 2}) {
		t.Errorf("failed judge should count as hallucinated: %+v", sc)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunJudge(ctx, evaltest.TinyJudge(), srcs, JudgeRunOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: err = %v", err)
	}
}
