package chains

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind/schema"
)

// Stage doubles: the loop is tested with stages whose behaviour the test
// controls; the real stages are tested in their packages and end to end in
// the root package.

type decomposeFunc func(ctx context.Context, q string) (*schema.Decomposition, error)

func (f decomposeFunc) Decompose(ctx context.Context, q string) (*schema.Decomposition, error) {
	return f(ctx, q)
}

type retrieveFunc func(ctx context.Context, req schema.RetrieveRequest) ([]schema.Section, error)

func (f retrieveFunc) Retrieve(ctx context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
	return f(ctx, req)
}

type generateFunc func(ctx context.Context, req schema.GenerateRequest) (string, error)

func (f generateFunc) Generate(ctx context.Context, req schema.GenerateRequest) (string, error) {
	return f(ctx, req)
}

type judgeFunc func(ctx context.Context, req schema.JudgeRequest) (*schema.Verdict, error)

func (f judgeFunc) Judge(ctx context.Context, req schema.JudgeRequest) (*schema.Verdict, error) {
	return f(ctx, req)
}

var corpus = []schema.Section{
	{ID: "a", Title: "A", Content: "alpha", Source: "c.md", Page: 1},
	{ID: "b", Title: "B", Content: "beta", Source: "c.md", Page: 2},
	{ID: "c", Title: "C", Content: "gamma", Source: "c.md", Page: 3},
	{ID: "d", Title: "D", Content: "delta", Source: "c.md", Page: 4},
	{ID: "e", Title: "E", Content: "eps", Source: "c.md", Page: 5},
	{ID: "f", Title: "F", Content: "phi", Source: "c.md", Page: 6},
}

// excludingRetriever returns the first two corpus sections neither
// excluded nor handed out on the previous pass.
func excludingRetriever() retrieveFunc {
	return func(_ context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
		ex := map[string]bool{}
		if req.Feedback != nil {
			for _, k := range append(req.Feedback.Excluded, req.Feedback.Previous...) {
				ex[k] = true
			}
		}
		var out []schema.Section
		for _, s := range corpus {
			if !ex[s.Key()] && len(out) < 2 {
				out = append(out, s)
			}
		}
		return out, nil
	}
}

func echoGenerator() generateFunc {
	return func(_ context.Context, req schema.GenerateRequest) (string, error) {
		var b strings.Builder
		for _, s := range req.Sections {
			fmt.Fprintf(&b, "%s (See %s). ", s.Content, s.Citation())
		}
		return strings.TrimSpace(b.String()), nil
	}
}

func constJudge(hallucinated bool) judgeFunc {
	return func(context.Context, schema.JudgeRequest) (*schema.Verdict, error) {
		return &schema.Verdict{IsHallucinated: hallucinated, ShouldReturn: !hallucinated, Reasoning: "fixed"}, nil
	}
}

func newRunner(t *testing.T, j schema.Judge, maxRetries int, opts ...func(*Config)) *Runner {
	t.Helper()
	cfg := Config{
		Decomposer: decomposeFunc(func(_ context.Context, q string) (*schema.Decomposition, error) {
			return &schema.Decomposition{Intent: "general", SubQueries: []string{q}}, nil
		}),
		Retriever:  excludingRetriever(),
		Generator:  echoGenerator(),
		Judge:      j,
		MaxRetries: maxRetries,
		Logger:     slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)),
	}
	for _, o := range opts {
		o(&cfg)
	}
	r, err := NewRunner(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestAlwaysHallucinatingJudge(t *testing.T) {
	cases := []struct {
		maxRetries int
		history    []string
		retries    int
	}{
		{0, []string{"decompose", "retrieve", "generate", "judge", "output"}, 1},
		{1, []string{"decompose", "retrieve", "generate", "judge", "output"}, 1},
		{DefaultMaxRetries, []string{"decompose", "retrieve", "generate", "judge", "retrieve", "generate", "judge", "output"}, 2},
		{3, []string{"decompose", "retrieve", "generate", "judge", "retrieve", "generate", "judge", "retrieve", "generate", "judge", "output"}, 3},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint("max=", c.maxRetries), func(t *testing.T) {
			st, err := newRunner(t, constJudge(true), c.maxRetries).Run(context.Background(), schema.NewState("q"))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(st.NodeHistory, c.history) {
				t.Errorf("node_history = %v, want %v", st.NodeHistory, c.history)
			}
			if st.RetryCount != c.retries {
				t.Errorf("retry_count = %d, want %d", st.RetryCount, c.retries)
			}
			if st.Answer() != schema.FallbackMessage {
				t.Errorf("final_output = %q, want the fallback", st.Answer())
			}
		})
	}
}

func TestGroundedAnswerIsReturnedInOnePass(t *testing.T) {
	st, err := newRunner(t, constJudge(false), DefaultMaxRetries).Run(context.Background(), schema.NewState("q"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"decompose", "retrieve", "generate", "judge", "output"}
	if !reflect.DeepEqual(st.NodeHistory, want) || st.RetryCount != 0 {
		t.Fatalf("history %v retries %d", st.NodeHistory, st.RetryCount)
	}
	if st.Answer() != st.Response() || !st.Answered() {
		t.Fatalf("final_output %q should be the generated response %q", st.Answer(), st.Response())
	}
}

// A retry whose retrieval finds no passage beyond those already judged
// reads nothing new: the draft and the verdict stay the last pass's
// (whose reasons are about passages), no stage is asked about no
// sections, and the loop still takes every pass the contract gives.
func TestRetryWithNothingNewKeepsTheLastVerdict(t *testing.T) {
	gens, judges := 0, 0
	gen := generateFunc(func(_ context.Context, req schema.GenerateRequest) (string, error) {
		gens++
		if len(req.Sections) == 0 {
			return "nothing", nil
		}
		return "alpha (See A, page 1)", nil
	})
	j := judgeFunc(func(_ context.Context, req schema.JudgeRequest) (*schema.Verdict, error) {
		judges++
		why := "the figure differs from its source"
		if len(req.Sections) == 0 {
			why = "no section was retrieved"
		}
		return &schema.Verdict{IsHallucinated: true, Reasoning: why}, nil
	})
	firstOnly := retrieveFunc(func(_ context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
		if req.Attempt > 0 {
			return nil, nil
		}
		return corpus[:1], nil
	})
	st, err := newRunner(t, j, DefaultMaxRetries, func(c *Config) { c.Retriever, c.Generator = firstOnly, gen }).Run(context.Background(), schema.NewState("q"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"decompose", "retrieve", "generate", "judge", "retrieve", "generate", "judge", "output"}
	if !reflect.DeepEqual(st.NodeHistory, want) || st.RetryCount != 2 {
		t.Errorf("history %v retries %d", st.NodeHistory, st.RetryCount)
	}
	if gens != 1 || judges != 1 {
		t.Errorf("generator called %d times, judge %d: the retry had nothing to read", gens, judges)
	}
	if got := st.JudgeVerdict.Reasoning; got != "the figure differs from its source "+NothingNewReason {
		t.Errorf("reasoning %q", got)
	}
	if st.Response() != "alpha (See A, page 1)" || st.Answer() != schema.FallbackMessage {
		t.Errorf("draft %q, final %q", st.Response(), st.Answer())
	}
	// a first pass that found nothing is judged as it stands
	gens, judges = 0, 0
	none := retrieveFunc(func(context.Context, schema.RetrieveRequest) ([]schema.Section, error) { return nil, nil })
	if st, err = newRunner(t, j, DefaultMaxRetries, func(c *Config) { c.Retriever, c.Generator = none, gen }).Run(context.Background(), schema.NewState("q")); err != nil {
		t.Fatal(err)
	}
	if gens != 1 || judges != 1 || st.JudgeVerdict.Reasoning != "no section was retrieved "+NothingNewReason {
		t.Errorf("generator %d, judge %d, reasoning %q", gens, judges, st.JudgeVerdict.Reasoning)
	}
}

func TestRetryHandsGeneratorDifferentSections(t *testing.T) {
	var seen [][]string
	gen := generateFunc(func(ctx context.Context, req schema.GenerateRequest) (string, error) {
		var keys []string
		for _, s := range req.Sections {
			keys = append(keys, s.Key())
		}
		seen = append(seen, keys)
		return echoGenerator()(ctx, req)
	})
	r := newRunner(t, constJudge(true), DefaultMaxRetries, func(c *Config) { c.Generator = gen })
	if _, err := r.Run(context.Background(), schema.NewState("q")); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 {
		t.Fatalf("generator ran %d times, want 2", len(seen))
	}
	for _, k := range seen[1] {
		for _, k0 := range seen[0] {
			if k == k0 {
				t.Errorf("retry handed section %s again (first %v, retry %v)", k, seen[0], seen[1])
			}
		}
	}
}

func TestRetryExcludesOnlyRejectedSectionsWhenNamed(t *testing.T) {
	var second []schema.Section
	passes := 0
	j := judgeFunc(func(_ context.Context, req schema.JudgeRequest) (*schema.Verdict, error) {
		passes++
		if passes == 1 {
			return &schema.Verdict{IsHallucinated: true, RejectedSections: []string{"b"},
				Claims: []schema.ClaimCheck{{Claim: "beta is 5%", Supported: false}}, Reasoning: "5% vs 1.5%"}, nil
		}
		second = req.Sections
		return &schema.Verdict{ShouldReturn: true}, nil
	})
	var fb *schema.Feedback
	ret := retrieveFunc(func(ctx context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
		if req.Attempt > 0 {
			fb = req.Feedback
		}
		return excludingRetriever()(ctx, req)
	})
	r := newRunner(t, j, DefaultMaxRetries, func(c *Config) { c.Retriever = ret })
	st, err := r.Run(context.Background(), schema.NewState("q"))
	if err != nil {
		t.Fatal(err)
	}
	if st.RetryCount != 1 || len(st.NodeHistory) != 8 {
		t.Fatalf("retry_count %d history %v", st.RetryCount, st.NodeHistory)
	}
	if fb == nil || !reflect.DeepEqual(fb.UnsupportedClaims, []string{"beta is 5%"}) || fb.Reasoning != "5% vs 1.5%" ||
		!reflect.DeepEqual(fb.Excluded, []string{"b"}) || !reflect.DeepEqual(fb.Previous, []string{"a", "b"}) {
		t.Fatalf("retriever feedback = %+v", fb)
	}
	if got := []string{second[0].Key(), second[1].Key()}; !reflect.DeepEqual(got, []string{"c", "d"}) {
		t.Errorf("second pass sections = %v, want [c d]", got)
	}
	if !reflect.DeepEqual(st.ExcludedSections, []string{"b"}) {
		t.Errorf("excluded_sections = %v, want only the rejected [b]", st.ExcludedSections)
	}
}

func TestRetryIsLogged(t *testing.T) {
	var buf bytes.Buffer
	r := newRunner(t, constJudge(true), DefaultMaxRetries, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	})
	if _, err := r.Run(context.Background(), schema.NewState("q")); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "retry attempt 1/2"); n != 1 {
		t.Errorf("log has %d 'retry attempt 1/2' lines, want 1:\n%s", n, buf.String())
	}
	if strings.Contains(buf.String(), "retry attempt 2/2") {
		t.Errorf("no second retry should be logged:\n%s", buf.String())
	}
}

func TestCancellationStopsPromptly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	gen := generateFunc(func(ctx context.Context, req schema.GenerateRequest) (string, error) {
		close(started)
		<-ctx.Done() // a slow model that honours cancellation
		return "", fmt.Errorf("model call: %w", ctx.Err())
	})
	judged := false
	j := judgeFunc(func(context.Context, schema.JudgeRequest) (*schema.Verdict, error) {
		judged = true
		return &schema.Verdict{}, nil
	})
	r := newRunner(t, j, DefaultMaxRetries, func(c *Config) { c.Generator = gen })
	go func() { <-started; cancel() }()
	done := make(chan struct{})
	var st *schema.State
	var err error
	go func() { st, err = r.Run(ctx, schema.NewState("q")); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("run did not stop after cancel")
	}
	if !errors.Is(err, context.Canceled) || err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if judged {
		t.Error("judge ran after cancellation")
	}
	if want := []string{"decompose", "retrieve"}; !reflect.DeepEqual(st.NodeHistory, want) {
		t.Errorf("history at cancel = %v, want %v", st.NodeHistory, want)
	}
}

func TestObserverSeesEveryNodeAndTokens(t *testing.T) {
	var got []string
	obs := schema.ObserverFunc(func(_ context.Context, ev schema.Event) {
		switch ev.Type {
		case schema.EventToken:
			got = append(got, "token:"+ev.Token)
		case schema.EventRetry:
			got = append(got, fmt.Sprintf("retry:%d/%d", ev.Attempt, ev.MaxRetries))
		default:
			got = append(got, string(ev.Type)+":"+ev.Node)
		}
	})
	gen := generateFunc(func(_ context.Context, req schema.GenerateRequest) (string, error) {
		req.OnToken("hi")
		return "hi", nil
	})
	r := newRunner(t, constJudge(true), 1, func(c *Config) { c.Observer = obs; c.Generator = gen })
	if _, err := r.Run(context.Background(), schema.NewState("q")); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"node_start:decompose", "node_end:decompose",
		"node_start:retrieve", "node_end:retrieve",
		"node_start:generate", "token:hi", "node_end:generate",
		"node_start:judge", "node_end:judge",
		"node_start:output", "node_end:output",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events\n got %v\nwant %v", got, want)
	}
}

func TestNodesNeverMutateTheirInput(t *testing.T) {
	var steps []*schema.State
	var snapshots []string
	r := newRunner(t, constJudge(true), DefaultMaxRetries, func(c *Config) {
		c.AfterStep = func(_ context.Context, s Step) error {
			steps = append(steps, s.State)
			snapshots = append(snapshots, mustJSON(t, s.State))
			return nil
		}
	})
	if _, err := r.Run(context.Background(), schema.NewState("q")); err != nil {
		t.Fatal(err)
	}
	if len(steps) != 8 {
		t.Fatalf("%d steps, want 8", len(steps))
	}
	for i, s := range steps {
		if len(s.NodeHistory) != i+1 {
			t.Errorf("step %d state has history %v", i+1, s.NodeHistory)
		}
		if now := mustJSON(t, s); now != snapshots[i] {
			t.Errorf("step %d state changed after it was saved", i+1)
		}
	}
}

func TestUsageAndPromptVersionsAreRecordedPerNode(t *testing.T) {
	gen := generateFunc(func(ctx context.Context, req schema.GenerateRequest) (string, error) {
		schema.RecordUsage(ctx, schema.Usage{Calls: 1, PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15})
		schema.RecordPromptVersion(ctx, "generate", "v3")
		return "x", nil
	})
	r := newRunner(t, constJudge(true), DefaultMaxRetries, func(c *Config) { c.Generator = gen })
	st, err := r.Run(context.Background(), schema.NewState("q"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Usage == nil || st.Usage.Total.TotalTokens != 30 || st.Usage.ByNode["generate"].Calls != 2 {
		t.Fatalf("usage = %+v", st.Usage)
	}
	if st.PromptVersions["generate"] != "v3" {
		t.Fatalf("prompt versions = %v", st.PromptVersions)
	}
}

func TestStageErrorStopsRun(t *testing.T) {
	boom := errors.New("index unavailable")
	r := newRunner(t, constJudge(false), DefaultMaxRetries, func(c *Config) {
		c.Retriever = retrieveFunc(func(context.Context, schema.RetrieveRequest) ([]schema.Section, error) { return nil, boom })
	})
	st, err := r.Run(context.Background(), schema.NewState("q"))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "retrieve: index unavailable") {
		t.Fatalf("err = %v", err)
	}
	if !reflect.DeepEqual(st.NodeHistory, []string{"decompose"}) {
		t.Fatalf("history = %v", st.NodeHistory)
	}
}

func TestUnverifiedVerdictNeverPasses(t *testing.T) {
	j := judgeFunc(func(context.Context, schema.JudgeRequest) (*schema.Verdict, error) {
		return &schema.Verdict{Unverified: true, ShouldReturn: true}, nil
	})
	st, err := newRunner(t, j, 0).Run(context.Background(), schema.NewState("q"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Answer() != schema.FallbackMessage || !st.JudgeVerdict.IsHallucinated {
		t.Fatalf("unverified verdict passed: %+v", st.JudgeVerdict)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A note a stage records (schema.RecordNote) is kept in State.Notes under
// its node, and each pass of the node replaces it: a first answer cut off
// leaves a note, a second complete one removes it.
func TestNotesAreKeptPerNodeAndReplacedByTheNextPass(t *testing.T) {
	var notesAfter [][]string
	gen := generateFunc(func(ctx context.Context, req schema.GenerateRequest) (string, error) {
		if req.Attempt == 0 {
			schema.RecordNote(ctx, "cut off")
			schema.RecordNote(ctx, "twice")
		}
		return echoGenerator()(ctx, req)
	})
	obs := schema.ObserverFunc(func(_ context.Context, ev schema.Event) {
		if ev.Type == schema.EventNodeEnd && ev.Node == schema.NodeGenerate {
			notesAfter = append(notesAfter, []string{ev.State.Notes[schema.NodeGenerate]})
		}
	})
	r := newRunner(t, constJudge(true), DefaultMaxRetries, func(c *Config) { c.Observer = obs; c.Generator = gen })
	st, err := r.Run(context.Background(), schema.NewState("q"))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(notesAfter) != "[[cut off; twice] []]" {
		t.Errorf("generate notes after each pass = %q, want the first pass's, then none", notesAfter)
	}
	if st.Notes != nil {
		t.Errorf("final notes = %v, want none", st.Notes)
	}
}

// TestVerdictSaysTheAnswerWasCutOff: what the generate stage noted about
// the answer it returned (cut off at its token limit) is in the verdict's
// reasoning of that answer, and not in the verdict of a later, complete one.
func TestVerdictSaysTheAnswerWasCutOff(t *testing.T) {
	var reasons []string
	gen := generateFunc(func(ctx context.Context, req schema.GenerateRequest) (string, error) {
		if req.Attempt == 0 {
			schema.RecordNote(ctx, "the model's reply was cut off at 64 tokens")
		}
		return echoGenerator()(ctx, req)
	})
	passes := 0
	j := judgeFunc(func(context.Context, schema.JudgeRequest) (*schema.Verdict, error) {
		passes++
		return &schema.Verdict{IsHallucinated: passes == 1, ShouldReturn: passes > 1, Reasoning: "judged"}, nil
	})
	obs := schema.ObserverFunc(func(_ context.Context, ev schema.Event) {
		if ev.Type == schema.EventNodeEnd && ev.Node == schema.NodeJudge {
			reasons = append(reasons, ev.State.JudgeVerdict.Reasoning)
		}
	})
	r := newRunner(t, j, DefaultMaxRetries, func(c *Config) { c.Observer = obs; c.Generator = gen })
	if _, err := r.Run(context.Background(), schema.NewState("q")); err != nil {
		t.Fatal(err)
	}
	want := []string{"judged Note: the model's reply was cut off at 64 tokens.", "judged"}
	if fmt.Sprint(reasons) != fmt.Sprint(want) {
		t.Errorf("verdict reasoning per pass = %q, want %q", reasons, want)
	}
}

// The retrieve node keeps what the retriever read of the question's
// documents: the documents it was resolved to under "retrieve.documents"
// (for --json), a name no document mentions under "retrieve" (said on a
// terminal).
func TestRetrieveRecordsTheResolution(t *testing.T) {
	for _, c := range []struct {
		report         schema.RetrieveReport
		key, want, not string
	}{
		{schema.RetrieveReport{Documents: []string{"/d/a/ACME_10K.pdf"}}, schema.NodeRetrieve + schema.DocumentsSuffix,
			"passages ranked inside the documents the question names: ACME_10K.pdf", schema.NodeRetrieve},
		{schema.RetrieveReport{Missing: []string{"Globex"}}, schema.NodeRetrieve, `no document mentions "Globex"`, schema.NodeRetrieve + schema.DocumentsSuffix},
	} {
		ret := retrieveFunc(func(ctx context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
			if req.Report == nil {
				t.Fatal("the retrieve node passed no report")
			}
			*req.Report = c.report
			return nil, nil
		})
		r := newRunner(t, constJudge(false), 0, func(cfg *Config) { cfg.Retriever = ret })
		st, err := r.Run(context.Background(), schema.NewState("q"))
		if err != nil {
			t.Fatal(err)
		}
		if st.Notes[c.key] != c.want || st.Notes[c.not] != "" {
			t.Errorf("notes %v, want %q under %q only", st.Notes, c.want, c.key)
		}
	}
}
