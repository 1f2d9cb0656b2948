package threads

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/llm/openaitest"
)

// childEnv selects what TestChildProcess does in a re-executed test binary.
const childEnv = "DOCMIND_THREADS_TEST_CHILD"

// TestChildProcess is not a test on its own: the crash and concurrency
// tests re-execute the test binary with childEnv set, and this function
// then plays the other process.
func TestChildProcess(t *testing.T) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		t.Skip("helper process for TestResumeAfterKilledProcess and TestConcurrentProcesses")
	}
	ctx := context.Background()
	store, err := checkpoint.OpenSQLite(ctx, os.Getenv("DOCMIND_TEST_DB"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	thread := os.Getenv("DOCMIND_TEST_THREAD")
	switch mode {
	case "ask-llm":
		model, err := newLLMModel(os.Getenv("DOCMIND_TEST_LLM_URL"))
		if err != nil {
			t.Fatal(err)
		}
		m := newManager(t, store, llmPipeline(model))
		res, err := m.Ask(ctx, thread, "What are the late payment penalties?")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("answer:", res.Answer())
	case "ask-offline":
		n, _ := strconv.Atoi(os.Getenv("DOCMIND_TEST_N"))
		keep, _ := strconv.Atoi(os.Getenv("DOCMIND_TEST_KEEP"))
		cfg, _ := pipeline(grounded(0.9))
		m := newManager(t, store, cfg, func(c *Config) { c.Retention = checkpoint.Retention{KeepRuns: keep} })
		questions := []string{"What are the late payment penalties?", "And what if it is still unpaid after 60 days?", "and for enterprise clients?"}
		for i := 0; i < n; i++ {
			if _, err := m.Ask(ctx, thread, questions[i%len(questions)]); err != nil {
				t.Fatal(err)
			}
		}
	default:
		t.Fatalf("unknown child mode %q", mode)
	}
}

// startChild re-executes the test binary as a child process.
func startChild(t *testing.T, out *bytes.Buffer, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildProcess$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child process: %v", err)
	}
	return cmd
}

var citationLine = regexp.MustCompile(`(?m)^\[([^\]]+)\]\n(.*)$`)

// scriptedLLM answers the llmStages prompts: decompose -> an intent,
// generate -> the first section of the prompt with its citation (blocking
// for a minute while block is set), judge -> grounded.
func scriptedLLM(t *testing.T, block *atomic.Bool) (*openaitest.Server, *roleCounter) {
	srv := openaitest.New(t)
	rc := &roleCounter{}
	srv.Respond(func(req openaitest.Request) openaitest.Reply {
		role := strings.TrimPrefix(req.Body.Messages[0].Content, "stage: ")
		rc.add(role)
		switch role {
		case "decompose":
			return openaitest.Reply{Content: "amount"}
		case "generate":
			if block.Load() {
				return openaitest.Reply{Delay: time.Minute, Content: "too late"}
			}
			m := citationLine.FindStringSubmatch(req.Body.Messages[1].Content)
			if m == nil {
				return openaitest.Reply{Content: "no sections"}
			}
			return openaitest.Reply{Content: fmt.Sprintf("%s (%s).", strings.TrimSuffix(m[2], "."), m[1])}
		case "judge":
			return openaitest.Reply{Content: "grounded 0.93"}
		}
		return openaitest.Reply{Status: 400, Message: "unknown stage " + role}
	})
	return srv, rc
}

// TestResumeAfterKilledProcess kills a process in the middle of the
// generate stage's LLM call, then resumes the run here: it finishes with
// the same answer as an uninterrupted run, and no completed LLM call is
// made again.
func TestResumeAfterKilledProcess(t *testing.T) {
	ctx := context.Background()
	block := &atomic.Bool{}
	block.Store(true)
	srv, rc := scriptedLLM(t, block)
	dbPath := filepath.Join(t.TempDir(), checkpoint.FileName)

	var out bytes.Buffer
	child := startChild(t, &out, childEnv+"=ask-llm", "DOCMIND_TEST_DB="+dbPath,
		"DOCMIND_TEST_LLM_URL="+srv.URL, "DOCMIND_TEST_THREAD=crash")
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	deadline := time.After(60 * time.Second)
	for rc.get("generate") == 0 {
		select {
		case err := <-exited:
			t.Fatalf("child exited before generating: %v\n%s", err, out.String())
		case <-deadline:
			child.Process.Kill()
			t.Fatalf("child never reached the generate stage\n%s", out.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited

	store, err := checkpoint.OpenSQLite(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	runs, err := store.Runs(ctx, checkpoint.RunFilter{Thread: "crash"})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs after the crash: %v, %v", runs, err)
	}
	killed := runs[0]
	if killed.Status != checkpoint.StatusInterrupted || killed.Steps != 2 {
		t.Fatalf("killed run: status %s, %d steps (want interrupted, 2: decompose and retrieve)", killed.Status, killed.Steps)
	}
	if rc.get("decompose") != 1 || rc.get("generate") != 1 || rc.get("judge") != 0 {
		t.Fatalf("calls before resume: %v", rc.n)
	}

	block.Store(false)
	model, err := newLLMModel(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	m := newManager(t, store, llmPipeline(model))
	resumed, err := m.Resume(ctx, killed.ID)
	if err != nil {
		t.Fatal(err)
	}
	// decompose was not called again; generate ran once more (its first
	// call never completed); judge once.
	if rc.get("decompose") != 1 || rc.get("generate") != 2 || rc.get("judge") != 1 {
		t.Fatalf("calls after resume: %v", rc.n)
	}
	if resumed.Run.Status != checkpoint.StatusDone || resumed.Run.Steps != 5 {
		t.Fatalf("resumed run %+v", resumed.Run)
	}
	// The decompose call's usage, recorded by the killed process, is kept.
	if u := resumed.State.Usage; u == nil || u.ByNode["decompose"].Calls != 1 || u.ByNode["generate"].Calls != 1 || u.Total.Calls != 3 {
		t.Fatalf("usage %+v", resumed.State.Usage)
	}

	clean, err := m.Ask(ctx, "clean", "What are the late payment penalties?")
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Answer() != clean.Answer() || !reflect.DeepEqual(resumed.State.NodeHistory, clean.State.NodeHistory) {
		t.Fatalf("resumed answer %q (%v)\nuninterrupted %q (%v)", resumed.Answer(), resumed.State.NodeHistory, clean.Answer(), clean.State.NodeHistory)
	}
	if !strings.Contains(clean.Answer(), "1.5% per month") || !strings.Contains(clean.Answer(), "(Late Payment Penalties, page 8)") {
		t.Fatalf("answer %q", clean.Answer())
	}
	if total := srv.Calls(""); total != 1+2+1+3 {
		t.Fatalf("%d requests in all, want 7", total)
	}
}

// TestConcurrentProcesses runs two processes asking in different threads
// of the same database at once, with retention pruning as they go.
func TestConcurrentProcesses(t *testing.T) {
	perChild, keep := 40, 8
	if raceEnabled {
		perChild = 15
	}
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), checkpoint.FileName)
	outs := make([]bytes.Buffer, 2)
	var cmds []*exec.Cmd
	for i := range outs {
		cmds = append(cmds, startChild(t, &outs[i], childEnv+"=ask-offline", "DOCMIND_TEST_DB="+dbPath,
			fmt.Sprintf("DOCMIND_TEST_THREAD=p%d", i), fmt.Sprintf("DOCMIND_TEST_N=%d", perChild), fmt.Sprintf("DOCMIND_TEST_KEEP=%d", keep)))
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, outs[i].String())
		}
	}
	store, err := checkpoint.OpenSQLite(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var integrity string
	if err := store.DB().QueryRow(`PRAGMA integrity_check`).Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity check: %q, %v", integrity, err)
	}
	for i := range outs {
		runs, err := store.Runs(ctx, checkpoint.RunFilter{Thread: fmt.Sprintf("p%d", i)})
		if err != nil || len(runs) != perChild {
			t.Fatalf("thread p%d: %d runs, %v", i, len(runs), err)
		}
		for j, r := range runs {
			if r.Status != checkpoint.StatusDone || r.Outcome != checkpoint.OutcomeAnswered {
				t.Errorf("p%d run %d: %s %s %s", i, j, r.Status, r.Outcome, r.Error)
			}
			cp, err := store.Get(ctx, r.ID, -1)
			if err != nil || cp.Node != "output" || cp.State.Answer() != r.Answer {
				t.Errorf("p%d run %d: last checkpoint %s, %v", i, j, cp.Node, err)
			}
		}
		// Follow-ups were rewritten against the thread's own history.
		if !strings.Contains(runs[1].Query, "payment is still unpaid") {
			t.Errorf("p%d second query %q", i, runs[1].Query)
		}
	}
	all, _ := store.Runs(ctx, checkpoint.RunFilter{})
	p0, _ := store.Runs(ctx, checkpoint.RunFilter{Thread: "p0"})
	p1, _ := store.Runs(ctx, checkpoint.RunFilter{Thread: "p1"})
	overlap := p0[0].Created.Before(p1[len(p1)-1].Updated) && p1[0].Created.Before(p0[len(p0)-1].Updated)
	t.Logf("the two processes' runs overlapped in time: %v (p0 %s..%s, p1 %s..%s)", overlap,
		p0[0].Created.Format("15:04:05.000"), p0[len(p0)-1].Updated.Format("15:04:05.000"),
		p1[0].Created.Format("15:04:05.000"), p1[len(p1)-1].Updated.Format("15:04:05.000"))
	full := 0
	for _, r := range all {
		cps, _ := store.List(ctx, r.ID)
		if !r.Pruned {
			full++
			if len(cps) != 6 {
				t.Errorf("run %s kept in full has %d checkpoints", r.ID, len(cps))
			}
		} else if len(cps) != 1 {
			t.Errorf("pruned run %s has %d checkpoints", r.ID, len(cps))
		}
	}
	if full != keep {
		t.Errorf("%d runs kept in full, want %d", full, keep)
	}
}
