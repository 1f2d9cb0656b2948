package eval

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind/internal/eval/evaltest"
	"github.com/docmind/docmind/schema"
)

func TestNormalizeForMatch(t *testing.T) {
	for in, want := range map[string]string{
		"a late fee of 1.5% per month":              "a late fee of 1.5 per month",
		"within thirty (30) days":                   "within 30 days",
		"US$18,000.00":                              "us 18000",
		"one hundred eighty-five US dollars":        "185 us dollars",
		"forty-two thousand US dollars (US$42,000)": "42000 us dollars us 42000",
		"four hundred thousand":                     "400000",
		"two million":                               "2000000",
		"Five  (5)\nBusiness Days":                  "5 business days",
		"1.50":                                      "1.5",
		"five six":                                  "5 6",
		"twenty-five percent (25%)":                 "25 percent 25",
	} {
		if got := strings.Join(NormalizeForMatch(in), " "); got != want {
			t.Errorf("NormalizeForMatch(%q) = %q, want %q", in, got, want)
		}
	}
	hay := NormalizeForMatch("A late fee of 1.5% per month applies after thirty (30) days.")
	for fact, want := range map[string]bool{"1.5% per month": true, "30 days": true, "5%": false, "thirty days": true, "15 days": false} {
		if got := containsSeq(hay, NormalizeForMatch(fact)); got != want {
			t.Errorf("fact %q present = %v, want %v", fact, got, want)
		}
	}
}

func TestReadQA(t *testing.T) {
	good := `{"id":"q1","question":"What is the late fee?","facts":["1.5%"],"source":"msa.md","page":8}
# comment
{"id":"q2","question":"What is the warranty period?","answerable":false,"kind":"unanswerable"}
`
	rows, err := ReadQA(strings.NewReader(good), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || !rows[0].IsAnswerable() || rows[1].IsAnswerable() || rows[0].Page != 8 {
		t.Fatalf("rows = %+v", rows)
	}
	for name, in := range map[string]string{
		"no id":         `{"question":"x","facts":["a"]}`,
		"no question":   `{"id":"a","facts":["a"]}`,
		"no facts":      `{"id":"a","question":"x"}`,
		"facts on no":   `{"id":"a","question":"x","answerable":false,"facts":["a"]}`,
		"duplicate":     `{"id":"a","question":"x","facts":["a"]}` + "\n" + `{"id":"a","question":"y","facts":["b"]}`,
		"unknown field": `{"id":"a","question":"x","fact":["a"]}`,
		"empty":         "\n",
		"broken":        `{"id":`,
	} {
		if _, err := ReadQA(strings.NewReader(in), "set.jsonl"); err == nil || !strings.Contains(err.Error(), "set.jsonl") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }

var (
	lateFees = schema.Section{Title: "Late Payment Penalties", Source: "examples/contract/msa.md", Page: 8}
	dpa      = schema.Section{Title: "Sub-processors", Source: "examples/contract/dpa.md", Page: 2}
)

func TestRunQA(t *testing.T) {
	rows := []QARow{
		{ID: "ok", Question: "late fee?", Facts: []string{"1.5%", "30 days"}, Source: "msa.md", Page: 8, Kind: "direct"},
		{ID: "missing", Question: "late fee and cap?", Facts: []string{"1.5%", "20%"}, Source: "msa.md", Page: 8},
		{ID: "wrongpage", Question: "sub-processor notice?", Facts: []string{"30 days"}, Source: "msa.md", Page: 2},
		{ID: "abstained", Question: "suspension?", Facts: []string{"60 days"}, Page: 8},
		{ID: "ungrounded", Question: "x?", Facts: []string{"1.5%"}, Page: 8},
		{ID: "warranty", Question: "warranty?", Answerable: ptr(false), Kind: "unanswerable"},
		{ID: "insurance", Question: "umbrella insurance?", Answerable: ptr(false), Kind: "unanswerable"},
		{ID: "broken", Question: "boom", Answerable: ptr(false)},
	}
	fb := schema.FallbackMessage
	states := map[string]*schema.State{
		"late fee?":             evaltest.State("A late fee of 1.5% per month applies after thirty (30) days (Late Payment Penalties, page 8).", false, evaltest.OnePass, lateFees),
		"late fee and cap?":     evaltest.State("A late fee of 1.5% per month applies (Late Payment Penalties, page 8).", false, evaltest.OnePass, lateFees),
		"sub-processor notice?": evaltest.State("Notice 30 days before (Sub-processors, page 2).", false, evaltest.OnePass, dpa),
		"suspension?":           evaltest.State(fb, true, evaltest.TwoPass),
		"x?":                    evaltest.State("A late fee of 1.5% applies (page 8).", true, evaltest.OnePass),
		"warranty?":             evaltest.State(fb, true, evaltest.TwoPass),
		"umbrella insurance?":   evaltest.State("Insurance of US$2,000,000 (Insurance, page 12).", false, evaltest.OnePass),
	}
	states["late fee?"].Usage = &schema.RunUsage{Total: schema.Usage{Calls: 3, TotalTokens: 800}}
	states["warranty?"].RetryCount = 2
	ask := func(_ context.Context, q string) (*schema.State, error) {
		if q == "boom" {
			return nil, errors.New("retriever exploded")
		}
		time.Sleep(time.Millisecond)
		return states[q], nil
	}
	var progress []string
	rep, err := RunQA(context.Background(), ask, rows, QAOptions{Progress: func(done, total int, r QAResult) {
		progress = append(progress, r.ID)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(progress) != len(rows) {
		t.Errorf("progress calls %d", len(progress))
	}
	res := map[string]QAResult{}
	for _, r := range rep.Results {
		res[r.ID] = r
	}
	if r := res["ok"]; !r.Correct || !r.Grounded || r.PageCorrect == nil || !*r.PageCorrect {
		t.Errorf("ok = %+v", r)
	}
	if r := res["missing"]; r.Correct || len(r.MissingFacts) != 1 || r.MissingFacts[0] != "20%" {
		t.Errorf("missing = %+v", r)
	}
	// Cited (Sub-processors, page 2) is page 2 of the DPA, not of msa.md.
	if r := res["wrongpage"]; !r.Correct || r.PageCorrect == nil || *r.PageCorrect {
		t.Errorf("wrongpage = %+v", r)
	}
	if r := res["abstained"]; r.Correct || !r.Abstained || r.PageCorrect != nil || r.Retries != 1 {
		t.Errorf("abstained = %+v", r)
	}
	if r := res["ungrounded"]; r.Correct || r.Grounded {
		t.Errorf("ungrounded = %+v", r)
	}
	if r := res["broken"]; r.Err == "" {
		t.Errorf("broken = %+v", r)
	}
	// Answerable 5, correct 2 (ok, wrongpage) -> 0.4.
	if rep.Questions != 8 || rep.Answerable != 5 || rep.Unanswerable != 3 || rep.Correct != 2 || !near(rep.AnsweredCorrectly, 0.4) {
		t.Errorf("counts: %+v", rep)
	}
	// Pages checked on ok, missing, wrongpage, ungrounded: 3 of 4 right.
	if rep.CitationChecked != 4 || !near(rep.CitationPageAccuracy, 0.75) {
		t.Errorf("citation: %d checked, %v", rep.CitationChecked, rep.CitationPageAccuracy)
	}
	// Abstained: suspension (answerable, FP), warranty (TP). Not:
	// insurance (FN), broken (error, FN). P = 1/2, R = 1/3.
	if rep.Abstention != (Confusion{TP: 1, FP: 1, FN: 2, TN: 4}) || !near(rep.AbstentionPrecision, 0.5) || !near(rep.AbstentionRecall, 1.0/3) {
		t.Errorf("abstention %+v P %v R %v", rep.Abstention, rep.AbstentionPrecision, rep.AbstentionRecall)
	}
	// Retries: suspension 1, warranty 1 of 8 questions; retry_count 2/8.
	if !near(rep.MeanRetries, 0.25) || !near(rep.MeanRetryCount, 0.25) || !near(rep.LLMCallsPerQ, 3.0/8) || !near(rep.TokensPerQ, 100) {
		t.Errorf("means: retries %v retry_count %v calls %v tokens %v", rep.MeanRetries, rep.MeanRetryCount, rep.LLMCallsPerQ, rep.TokensPerQ)
	}
	if rep.Errors != 1 || rep.LatencyP50Ms < 0.5 || rep.LatencyP95Ms < rep.LatencyP50Ms {
		t.Errorf("errors %d, latency p50 %v p95 %v", rep.Errors, rep.LatencyP50Ms, rep.LatencyP95Ms)
	}
	if k := rep.ByKind["unanswerable"]; k != (KindScore{Questions: 2, Right: 1}) {
		t.Errorf("by kind: %+v", rep.ByKind)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunQA(ctx, ask, rows, QAOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// A line holding a second JSON value after the row (two objects glued
// together, a stray bracket) is an error naming the line; it used to be
// read as the first object alone, the rest dropped without a word.
func TestReadJSONLTrailingData(t *testing.T) {
	for name, tc := range map[string]struct {
		read func(string) error
		in   string
	}{
		"qa two objects": {readQA, `{"id":"a","question":"q","facts":["x"]}` + "\n" + `{"id":"b","question":"q","facts":["x"]}{"id":"c","question":"q","facts":["y"]}`},
		"qa spaced":      {readQA, `{"id":"b","question":"q","facts":["x"]}` + "\n" + `{"id":"c","question":"q","facts":["y"]} {"question":"b"}`},
		"qa stray":       {readQA, "\n" + `{"id":"c","question":"q","facts":["y"]}]`},
		"gold two":       {readGold, `{"id":"a","answers":["x"]}` + "\n" + `{"id":"b","answers":["x"]}{"id":"c","answers":["y"]}`},
		"gold number":    {readGold, "# c\n" + `{"id":"b","answers":["x"]} 7`},
	} {
		err := tc.read(tc.in)
		if err == nil || !strings.Contains(err.Error(), "set.jsonl line 2:") || !strings.Contains(err.Error(), "after the") {
			t.Errorf("%s: err = %v, want an error naming line 2 and the trailing data", name, err)
		}
	}
	// Trailing blanks after the object are fine.
	if err := readQA(`{"id":"a","question":"q","facts":["x"]}` + " \t\r\n"); err != nil {
		t.Errorf("trailing blanks: %v", err)
	}
}

func readQA(in string) error {
	_, err := ReadQA(strings.NewReader(in), "set.jsonl")
	return err
}

func readGold(in string) error {
	_, err := ReadGold(strings.NewReader(in), "set.jsonl")
	return err
}

// A file that cannot be opened is named once: the *fs.PathError already
// says "open /x/q.jsonl: no such file or directory", and the loaders used
// to add "open /x/q.jsonl: " in front of it.
func TestLoadErrorsNameThePathOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.jsonl")
	for name, load := range map[string]func(string) error{
		"LoadQA":             func(p string) error { _, err := LoadQA(p); return err },
		"LoadGold":           func(p string) error { _, err := LoadGold(p); return err },
		"LoadRAGTruth":       func(p string) error { _, err := LoadRAGTruth(p); return err },
		"LoadCalibrationSet": func(p string) error { _, err := LoadCalibrationSet(p); return err },
	} {
		err := load(path)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: err = %v, want a not-exist error", name, err)
			continue
		}
		if n := strings.Count(err.Error(), path); n != 1 {
			t.Errorf("%s: error names the path %d times: %v", name, n, err)
		}
	}
}
