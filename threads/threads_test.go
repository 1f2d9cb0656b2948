package threads

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/docmind/docmind/chains"
	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/schema"
)

func stores(t *testing.T) map[string]checkpoint.Store {
	t.Helper()
	db, err := checkpoint.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), checkpoint.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return map[string]checkpoint.Store{"memory": checkpoint.NewMemory(), "sqlite": db}
}

func TestAskCheckpointsEveryNode(t *testing.T) {
	ctx := context.Background()
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			cfg, n := pipeline(grounded(0.9))
			m := newManager(t, store, cfg)
			res, err := m.Ask(ctx, "t1", "What are the late payment penalties?")
			if err != nil {
				t.Fatal(err)
			}
			if res.Run.Status != checkpoint.StatusDone || res.Run.Outcome != checkpoint.OutcomeAnswered {
				t.Fatalf("run %+v", res.Run)
			}
			if !strings.Contains(res.Answer(), "1.5% per month") || !strings.Contains(res.Answer(), "(Late Payment Penalties, page 8)") {
				t.Fatalf("answer %q", res.Answer())
			}
			run, cps, err := m.History(ctx, res.Run.ID)
			if err != nil {
				t.Fatal(err)
			}
			wantNodes := []string{"", "decompose", "retrieve", "generate", "judge", "output"}
			if len(cps) != len(wantNodes) || run.Steps != 5 {
				t.Fatalf("%d checkpoints (run steps %d), want %d", len(cps), run.Steps, len(wantNodes))
			}
			for i, cp := range cps {
				if cp.Step != i || cp.Node != wantNodes[i] {
					t.Fatalf("checkpoint %d: step %d node %q", i, cp.Step, cp.Node)
				}
				if got := cp.State.NodeHistory; !reflect.DeepEqual(got, nonEmpty(wantNodes[1:i+1])) {
					t.Errorf("step %d: node_history %v", i, got)
				}
				if i+1 < len(wantNodes) && cp.Next != wantNodes[i+1] {
					t.Errorf("step %d: next %q, want %q", i, cp.Next, wantNodes[i+1])
				}
				st := cp.State
				// Each node writes its own field; later fields are still unset.
				if (st.Decomposition != nil) != (i >= 1) || (len(st.RetrievedSections) > 0) != (i >= 2) ||
					(st.GeneratedResponse != nil) != (i >= 3) || (st.JudgeVerdict != nil) != (i >= 4) || (st.FinalOutput != nil) != (i >= 5) {
					t.Errorf("step %d (%s): unexpected fields set: %+v", i, cp.Node, st)
				}
			}
			if got := cps[2].State.RetrievedSections[0].Title; got != "Late Payment Penalties" {
				t.Errorf("retrieved %q first", got)
			}
			if n.decompose.Load() != 1 || n.generate.Load() != 1 || n.judge.Load() != 1 {
				t.Errorf("calls %s", n)
			}
			latest, err := m.Latest(ctx, "t1")
			if err != nil || latest.Run.ID != res.Run.ID || !reflect.DeepEqual(latest.State, res.State) {
				t.Fatalf("Latest = %+v, %v", latest, err)
			}
		})
	}
}

func nonEmpty(in []string) []string {
	out := []string{}
	for _, s := range in {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func TestAskRetriesAndFallback(t *testing.T) {
	ctx := context.Background()
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			cfg, _ := pipeline(hallucinated)
			m := newManager(t, store, cfg)
			res, err := m.Ask(ctx, "t", "What are the late payment penalties?")
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"decompose", "retrieve", "generate", "judge", "retrieve", "generate", "judge", "output"}
			if !reflect.DeepEqual(res.State.NodeHistory, want) || res.Answer() != schema.FallbackMessage {
				t.Fatalf("history %v answer %q", res.State.NodeHistory, res.Answer())
			}
			if res.Run.Outcome != checkpoint.OutcomeFallback || res.Run.Retries != 2 || res.Run.Steps != 8 {
				t.Fatalf("run %+v", res.Run)
			}
			_, cps, _ := m.History(ctx, res.Run.ID)
			if len(cps) != 9 || cps[4].State.RetryCount != 1 || cps[4].Next != "retrieve" || cps[7].Next != "output" {
				t.Fatalf("checkpoints: %d; step 4 retry %d next %q", len(cps), cps[4].State.RetryCount, cps[4].Next)
			}
			// The second retrieval excluded the rejected sections.
			if cps[5].State.RetrievedSections[0].Key() == cps[2].State.RetrievedSections[0].Key() {
				t.Errorf("retry returned the same section %s", cps[5].State.RetrievedSections[0].Key())
			}
		})
	}
}

func TestFollowUpQuestionsInThread(t *testing.T) {
	ctx := context.Background()
	cfg, _ := pipeline(grounded(0.9))
	m := newManager(t, checkpoint.NewMemory(), cfg)
	first, err := m.Ask(ctx, "t1", "What are the late payment penalties?")
	if err != nil {
		t.Fatal(err)
	}
	second, err := m.Ask(ctx, "t1", "And what if it is still unpaid after 60 days?")
	if err != nil {
		t.Fatal(err)
	}
	if q := second.Run.Query; q != "What happens if payment is still unpaid after 60 days?" {
		t.Fatalf("rewritten query %q", q)
	}
	if second.Run.Question != "And what if it is still unpaid after 60 days?" || second.State.Query != second.Run.Query {
		t.Fatalf("run %+v, state query %q", second.Run, second.State.Query)
	}
	// The answer comes from the documents again, not from the first turn.
	if !strings.Contains(second.Answer(), "(Suspension of Services, page 9)") || strings.Contains(second.Answer(), first.Answer()) {
		t.Fatalf("follow-up answer %q", second.Answer())
	}
	third, err := m.Ask(ctx, "t1", "and for enterprise clients?")
	if err != nil {
		t.Fatal(err)
	}
	if q := third.Run.Query; q != "What happens if payment is still unpaid after 60 days for enterprise clients?" {
		t.Fatalf("third query %q", q)
	}
	if !strings.Contains(third.Answer(), "Enterprise Clients, page 10") {
		t.Fatalf("third answer %q", third.Answer())
	}
	// Another thread does not see t1's questions.
	other, err := m.Ask(ctx, "t2", "and for enterprise clients?")
	if err != nil {
		t.Fatal(err)
	}
	if other.Run.Query != "and for enterprise clients?" {
		t.Fatalf("t2 query %q", other.Run.Query)
	}
	runs, _ := m.Runs(ctx, "t1")
	if len(runs) != 3 {
		t.Fatalf("t1 has %d runs", len(runs))
	}
}

func TestResumeAfterFailure(t *testing.T) {
	ctx := context.Background()
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			cfg, n := pipeline(grounded(0.9))
			fail := &atomic.Int32{}
			fail.Store(1)
			cfg.Generator = generator{n: n, fail: fail}
			m := newManager(t, store, cfg)
			res, err := m.Ask(ctx, "t", "What are the late payment penalties?")
			if err == nil || !strings.Contains(err.Error(), "model overloaded") {
				t.Fatalf("Ask error %v", err)
			}
			if res.Run.Status != checkpoint.StatusFailed || res.Run.Steps != 2 || res.Run.Outcome != checkpoint.OutcomeError {
				t.Fatalf("failed run %+v", res.Run)
			}
			done, err := m.Resume(ctx, res.Run.ID[:6])
			if err != nil {
				t.Fatal(err)
			}
			if done.Run.Status != checkpoint.StatusDone || !strings.Contains(done.Answer(), "1.5%") {
				t.Fatalf("resumed run %+v", done.Run)
			}
			// decompose and retrieve ran once; generate twice (the failed call and
			// the resumed one); judge once.
			if n.decompose.Load() != 1 || n.retrieve.Load() != 1 || n.generate.Load() != 2 || n.judge.Load() != 1 {
				t.Fatalf("calls %s", n)
			}
			_, cps, _ := m.History(ctx, res.Run.ID)
			if len(cps) != 6 || cps[3].Node != "generate" || cps[5].Node != "output" {
				t.Fatalf("%d checkpoints after resume", len(cps))
			}
			// Resuming a finished run does nothing.
			again, err := m.Resume(ctx, res.Run.ID)
			if err != nil || again.Answer() != done.Answer() || n.generate.Load() != 2 {
				t.Fatalf("second resume: %v, calls %s", err, n)
			}
		})
	}
}

func TestCancelledRunResumes(t *testing.T) {
	ctx := context.Background()
	cfg, n := pipeline(grounded(0.9))
	block := make(chan struct{})
	cfg.Generator = generator{n: n, block: block}
	m := newManager(t, checkpoint.NewMemory(), cfg)
	cctx, cancel := context.WithCancel(ctx)
	var res *Result
	var askErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, askErr = m.Ask(cctx, "t", "What are the late payment penalties?")
	}()
	for n.generate.Load() == 0 {
		// wait for the generate stage to start
		select {
		case <-done:
			t.Fatal("Ask returned before generating")
		default:
		}
	}
	cancel()
	<-done
	if !errors.Is(askErr, context.Canceled) || res.Run.Status != checkpoint.StatusFailed {
		t.Fatalf("cancelled Ask: %v, %+v", askErr, res.Run)
	}
	close(block)
	out, err := m.Resume(ctx, res.Run.ID)
	if err != nil || out.Run.Status != checkpoint.StatusDone || n.decompose.Load() != 1 || n.retrieve.Load() != 1 {
		t.Fatalf("resume: %v, %+v, calls %s", err, out, n)
	}
}

func TestReviewApproveReject(t *testing.T) {
	ctx := context.Background()
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			cfg, n := pipeline(grounded(0.5))
			m := newManager(t, store, cfg, func(c *Config) { c.Review = true })

			paused, err := m.Ask(ctx, "t", "What are the late payment penalties?")
			if err != nil {
				t.Fatal(err)
			}
			if paused.Run.Status != checkpoint.StatusAwaitingReview || paused.State.FinalOutput != nil || paused.Run.Steps != 4 {
				t.Fatalf("paused run %+v, final %v", paused.Run, paused.State.FinalOutput)
			}
			if _, err := m.Resume(ctx, paused.Run.ID); !errors.Is(err, ErrAwaitingReview) {
				t.Fatalf("Resume of paused run: %v", err)
			}
			approved, err := m.Approve(ctx, paused.Run.ID, "checked clause 7")
			if err != nil {
				t.Fatal(err)
			}
			if approved.Run.Status != checkpoint.StatusDone || approved.Answer() != paused.State.Response() ||
				approved.Run.ReviewDecision != checkpoint.ReviewApproved || approved.Run.ReviewNote != "checked clause 7" {
				t.Fatalf("approved run %+v answer %q", approved.Run, approved.Answer())
			}
			if !strings.Contains(approved.State.JudgeVerdict.Reasoning, "approved by reviewer: checked clause 7") {
				t.Errorf("reasoning %q", approved.State.JudgeVerdict.Reasoning)
			}
			// The saved judge checkpoint keeps the judge's own verdict.
			_, cps, _ := m.History(ctx, paused.Run.ID)
			if len(cps) != 6 || strings.Contains(cps[4].State.JudgeVerdict.Reasoning, "reviewer") {
				t.Fatalf("%d checkpoints; judge reasoning %q", len(cps), cps[4].State.JudgeVerdict.Reasoning)
			}
			if _, err := m.Approve(ctx, paused.Run.ID, ""); err == nil {
				t.Fatal("approving a finished run succeeded")
			}

			second, err := m.Ask(ctx, "t2", "What are the late payment penalties?")
			if err != nil || second.Run.Status != checkpoint.StatusAwaitingReview {
				t.Fatalf("second ask: %v %+v", err, second.Run)
			}
			rejected, err := m.Reject(ctx, second.Run.ID, "not sure")
			if err != nil {
				t.Fatal(err)
			}
			if rejected.Answer() != schema.FallbackMessage || rejected.Run.Outcome != checkpoint.OutcomeFallback || rejected.Run.ReviewDecision != checkpoint.ReviewRejected {
				t.Fatalf("rejected run %+v", rejected.Run)
			}
			// Review never re-ran a completed node.
			if n.decompose.Load() != 2 || n.retrieve.Load() != 2 || n.generate.Load() != 2 || n.judge.Load() != 2 {
				t.Fatalf("calls %s", n)
			}
			// A confident verdict does not pause, and review can be turned off per Ask.
			confident, _ := pipeline(grounded(0.95))
			m2 := newManager(t, store, confident, func(c *Config) { c.Review = true })
			if r, err := m2.Ask(ctx, "t3", "What are the late payment penalties?"); err != nil || r.Run.Status != checkpoint.StatusDone {
				t.Fatalf("confident run: %v %+v", err, r.Run)
			}
			if r, err := m.Ask(ctx, "t4", "What are the late payment penalties?", WithReview(false)); err != nil || r.Run.Status != checkpoint.StatusDone {
				t.Fatalf("review off: %v %+v", err, r.Run)
			}
		})
	}
}

func TestForkFromJudgeWithAnotherJudge(t *testing.T) {
	ctx := context.Background()
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			cfg, n := pipeline(hallucinated)
			m := newManager(t, store, cfg)
			src, err := m.Ask(ctx, "t", "What are the late payment penalties?")
			if err != nil || src.Answer() != schema.FallbackMessage {
				t.Fatalf("strict run: %v %q", err, src.Answer())
			}
			before := n.String()
			lenient := judge{n, grounded(0.9)}
			fork, err := m.Fork(ctx, src.Run.ID, "judge", ForkOptions{Judge: lenient})
			if err != nil {
				t.Fatal(err)
			}
			if fork.Run.Parent != src.Run.ID || fork.Run.ForkStep != 4 || fork.Run.Thread != "t" || fork.Run.ID == src.Run.ID {
				t.Fatalf("fork run %+v", fork.Run)
			}
			wantHist := []string{"decompose", "retrieve", "generate", "judge", "output"}
			if !reflect.DeepEqual(fork.State.NodeHistory, wantHist) || fork.Run.Outcome != checkpoint.OutcomeAnswered ||
				!strings.Contains(fork.Answer(), "(Late Payment Penalties, page 8)") {
				t.Fatalf("fork history %v outcome %s answer %q", fork.State.NodeHistory, fork.Run.Outcome, fork.Answer())
			}
			// Only the judge ran again: one more judge call, nothing else.
			if n.decompose.Load() != 1 || n.retrieve.Load() != 2 || n.generate.Load() != 2 || n.judge.Load() != 3 {
				t.Fatalf("calls before fork %s, after %s", before, n)
			}
			_, srcCps, _ := m.History(ctx, src.Run.ID)
			_, forkCps, _ := m.History(ctx, fork.Run.ID)
			if len(srcCps) != 9 || srcCps[8].State.Answer() != schema.FallbackMessage {
				t.Fatalf("source run changed: %d checkpoints", len(srcCps))
			}
			for i := 0; i < 4; i++ {
				if !reflect.DeepEqual(forkCps[i].State, srcCps[i].State) {
					t.Errorf("fork step %d differs from source", i)
				}
			}
			// Fork by step number from the second retrieve.
			fork2, err := m.Fork(ctx, src.Run.ID, "5", ForkOptions{Judge: lenient})
			if err != nil || fork2.State.RetryCount != 1 || len(fork2.State.NodeHistory) != 8 || !fork2.State.Answered() {
				t.Fatalf("fork from step 5: %v, history %v", err, fork2.State.NodeHistory)
			}
			if _, err := m.Fork(ctx, src.Run.ID, "nonsense", ForkOptions{}); err == nil {
				t.Fatal("fork from an unknown node succeeded")
			}
			// A step past the run's last says so (it once blamed retention,
			// which had removed nothing).
			for _, from := range []string{"9", "999"} {
				_, err := m.Fork(ctx, src.Run.ID, from, ForkOptions{})
				if err == nil || !strings.Contains(err.Error(), "no such node or step") || strings.Contains(err.Error(), "retention") {
					t.Fatalf("fork from step %s: %v", from, err)
				}
			}
		})
	}
}

func TestExportJSONL(t *testing.T) {
	ctx := context.Background()
	cfg, _ := pipeline(grounded(0.9))
	m := newManager(t, checkpoint.NewMemory(), cfg)
	for _, q := range []string{"What are the late payment penalties?", "and for enterprise clients?"} {
		if _, err := m.Ask(ctx, "t", q); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := m.Export(ctx, &buf, checkpoint.RunFilter{}); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	var lines int
	for sc.Scan() {
		var rec RunRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if len(rec.Steps) != 6 || rec.Steps[5].State.Answer() != rec.Run.Answer {
			t.Fatalf("record %d: %d steps", lines, len(rec.Steps))
		}
		lines++
	}
	if lines != 2 {
		t.Fatalf("%d lines", lines)
	}
}

func TestConcurrentAsksInProcess(t *testing.T) {
	ctx := context.Background()
	store := stores(t)["sqlite"]
	cfg, _ := pipeline(grounded(0.9))
	m := newManager(t, store, cfg, func(c *Config) { c.Retention = checkpoint.Retention{KeepRuns: 5} })
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				if _, err := m.Ask(ctx, string(rune('a'+g)), "What are the late payment penalties?"); err != nil {
					errs <- err
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	runs, _ := m.Runs(ctx, "")
	if len(runs) != 20 {
		t.Fatalf("%d runs", len(runs))
	}
	full := 0
	for _, r := range runs {
		if r.Status != checkpoint.StatusDone {
			t.Errorf("run %s is %s", r.ID, r.Status)
		}
		if !r.Pruned {
			full++
		}
	}
	if full != 5 {
		t.Errorf("%d runs kept in full, want 5", full)
	}
}

// A Manager saves the checkpoints of runs on any prebuilt runner — no
// hook has to be set when the runner is built — and the runner's own
// AfterStep still sees every step, after its checkpoint is saved.
func TestManagerWithPrebuiltRunner(t *testing.T) {
	ctx := context.Background()
	cfg, _ := pipeline(grounded(0.9))
	store := checkpoint.NewMemory()
	var seen []string
	managed := true
	cfg.AfterStep = func(ctx context.Context, step chains.Step) error {
		if !managed {
			return nil
		}
		// The checkpoint of this step is already saved (the Manager's
		// first run is the only one in the store).
		runs, err := store.Runs(ctx, checkpoint.RunFilter{})
		if err != nil || len(runs) == 0 {
			return fmt.Errorf("runs: %v", err)
		}
		cps, err := store.List(ctx, runs[len(runs)-1].ID)
		if err != nil {
			return err
		}
		if len(cps) == 0 || cps[len(cps)-1].Node != step.Node {
			return fmt.Errorf("after %s: the last checkpoint is not this step's", step.Node)
		}
		seen = append(seen, step.Node)
		return nil
	}
	r, err := chains.NewRunner(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{Store: store, Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Ask(ctx, "t", "What are the late payment penalties?")
	if err != nil || res.Run.Steps != 5 || !res.State.Answered() {
		t.Fatalf("Ask with a prebuilt runner: %v, %+v", err, res)
	}
	if len(seen) != 5 {
		t.Errorf("the runner's own AfterStep saw %v, want 5 steps", seen)
	}
	// A plain run of the same runner saves nothing.
	managed = false
	before, _ := store.Runs(ctx, checkpoint.RunFilter{})
	if st, err := r.Run(ctx, schema.NewState("What are the late payment penalties?")); err != nil || !st.Answered() {
		t.Fatalf("plain run: %v", err)
	}
	if after, _ := store.Runs(ctx, checkpoint.RunFilter{}); len(after) != len(before) {
		t.Errorf("a plain run of the runner recorded a run")
	}
	// Forking with other stages needs a runner.
	if _, err := m.Fork(ctx, res.Run.ID, "judge", ForkOptions{Judge: judge{&counts{}, hallucinated}}); err == nil {
		t.Fatal("fork swapped a stage of a prebuilt runner")
	}
	strictCfg, _ := pipeline(hallucinated)
	strict, _ := chains.NewRunner(strictCfg)
	fork, err := m.Fork(ctx, res.Run.ID, "judge", ForkOptions{Runner: strict})
	if err != nil || fork.State.RetryCount != 2 || fork.Answer() != schema.FallbackMessage {
		t.Fatalf("fork with a strict runner: %v, %+v", err, fork)
	}
	if fork.Run.Steps < 2 {
		t.Errorf("the fork on a runner without hooks saved %d steps", fork.Run.Steps)
	}
}

func TestManagerWithoutPipeline(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	cfg, n := pipeline(grounded(0.4))
	full := newManager(t, store, cfg, func(c *Config) { c.Review = true })
	paused, err := full.Ask(ctx, "t", "What are the late payment penalties?")
	if err != nil || paused.Run.Status != checkpoint.StatusAwaitingReview {
		t.Fatalf("ask: %v %+v", err, paused)
	}
	// A ledger-only manager (no documents, no stages) can finish the review.
	ledger, err := New(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Ask(ctx, "t", "q"); !errors.Is(err, ErrNoPipeline) {
		t.Fatalf("Ask without pipeline: %v", err)
	}
	if _, err := ledger.Fork(ctx, paused.Run.ID, "judge", ForkOptions{}); !errors.Is(err, ErrNoPipeline) {
		t.Fatalf("Fork without pipeline: %v", err)
	}
	done, err := ledger.Approve(ctx, paused.Run.ID, "")
	if err != nil || done.Answer() != paused.State.Response() || n.String() != "decompose=1 retrieve=1 generate=1 judge=1" {
		t.Fatalf("approve without pipeline: %v, %+v, calls %s", err, done, n)
	}
}

// Two resumes of one interrupted run (two processes, each with its own
// handle on the database): the one that saves the next step first owns the
// run; the other stops with ErrRunBusy and records nothing over it.
func TestTwoResumesOfOneRun(t *testing.T) {
	ctx := context.Background()
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			other := store
			if db, ok := store.(*checkpoint.SQLite); ok {
				h, err := checkpoint.OpenSQLite(ctx, db.Path())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { h.Close() })
				other = h
			}
			cfg, n := pipeline(grounded(0.9))
			fail := &atomic.Int32{}
			fail.Store(1)
			cfg.Generator = generator{n: n, fail: fail}
			failed, err := newManager(t, store, cfg).Ask(ctx, "t", "What are the late payment penalties?")
			if err == nil || failed.Run.Status != checkpoint.StatusFailed {
				t.Fatalf("first Ask: %v", err)
			}

			// A resumes and stalls in generate.
			cfgA, nA := pipeline(grounded(0.9))
			block := make(chan struct{})
			cfgA.Generator = generator{n: nA, block: block}
			var resA *Result
			var errA error
			doneA := make(chan struct{})
			go func() {
				defer close(doneA)
				resA, errA = newManager(t, store, cfgA).Resume(ctx, failed.Run.ID)
			}()
			for nA.generate.Load() == 0 {
				select {
				case <-doneA:
					t.Fatalf("A returned before generating: %v", errA)
				default:
				}
			}
			// B resumes the same run and finishes it.
			cfgB, _ := pipeline(grounded(0.9))
			resB, err := newManager(t, other, cfgB).Resume(ctx, failed.Run.ID)
			if err != nil || resB.Run.Status != checkpoint.StatusDone {
				t.Fatalf("B: %v", err)
			}
			close(block)
			<-doneA
			if !errors.Is(errA, ErrRunBusy) || !strings.Contains(errA.Error(), "(step 3, generate)") {
				t.Fatalf("A: %v, want ErrRunBusy at step 3", errA)
			}
			run, cps, err := newManager(t, store, cfg).History(ctx, failed.Run.ID)
			if err != nil {
				t.Fatal(err)
			}
			if run.Status != checkpoint.StatusDone || run.Error != "" || run.Answer != resB.Answer() || len(cps) != 6 {
				t.Fatalf("after both: %+v, %d checkpoints", run, len(cps))
			}
			if resA == nil || resA.Run.Status != checkpoint.StatusDone {
				t.Errorf("A's result should show the run as B left it: %+v", resA)
			}
		})
	}
}
