package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/threads"
)

// runLedger runs the built command with a private data directory and
// optional stdin.
func runLedger(t *testing.T, dataDir, stdin string, args ...string) result {
	t.Helper()
	return runCLIInput(t, []string{"DOCMIND_DATA_DIR=" + dataDir}, stdin, args...)
}

// decodeRun reads the JSON of a run in the ledger: the state's fields at
// the top level, as ask --json prints them, with "run" beside them.
func decodeRun(t *testing.T, out string) stateOutput {
	t.Helper()
	var ro stateOutput
	if err := json.Unmarshal([]byte(out), &ro); err != nil || ro.State == nil || ro.Run == nil {
		t.Fatalf("stdout is not one JSON state with its run: %v\n%s", err, out)
	}
	var top map[string]json.RawMessage
	json.Unmarshal([]byte(out), &top)
	for _, k := range []string{"query", "final_output", "judge_verdict", "node_history", "run"} {
		if _, ok := top[k]; !ok {
			t.Fatalf("no top-level %q in the run's JSON:\n%s", k, out)
		}
	}
	return ro
}

func TestAskInThreadRewritesFollowUp(t *testing.T) {
	data := t.TempDir()
	first := runLedger(t, data, "", "ask", "--thread", "t1", "--docs", "examples/contract", "--json", "What are the late payment penalties?")
	if first.code != exitOK {
		t.Fatalf("first ask: exit %d\n%s", first.code, first.stderr)
	}
	a := decodeRun(t, first.stdout)
	if a.Run.Thread != "t1" || a.Run.Status != checkpoint.StatusDone || !strings.Contains(a.State.Answer(), "1.5% per month") {
		t.Fatalf("first run %+v", a.Run)
	}
	second := runLedger(t, data, "", "ask", "--thread", "t1", "--docs", "examples/contract", "--json", "And what if it is still unpaid after 60 days?")
	if second.code != exitOK && second.code != exitFallback {
		t.Fatalf("second ask: exit %d\n%s", second.code, second.stderr)
	}
	b := decodeRun(t, second.stdout)
	if b.Run.Query != "What happens if payment is still unpaid after 60 days?" || b.State.Query != b.Run.Query {
		t.Fatalf("follow-up not rewritten: %q", b.Run.Query)
	}

	ls := runLedger(t, data, "", "runs", "ls", "--json")
	var runs []checkpoint.Run
	if err := json.Unmarshal([]byte(ls.stdout), &runs); err != nil || len(runs) != 2 || runs[0].ID != a.Run.ID || runs[1].ID != b.Run.ID {
		t.Fatalf("runs ls --json: %v\n%s", err, ls.stdout)
	}
	show := runLedger(t, data, "", "runs", "show", b.Run.ID[:6], "--json")
	var rec threads.RunRecord
	if err := json.Unmarshal([]byte(show.stdout), &rec); err != nil {
		t.Fatalf("runs show --json: %v\n%s%s", err, show.stdout, show.stderr)
	}
	if len(rec.Steps) != b.Run.Steps+1 || rec.Steps[0].State.Query != b.Run.Query {
		t.Fatalf("runs show: %d steps for a run of %d", len(rec.Steps), b.Run.Steps)
	}
	for i, cp := range rec.Steps {
		if cp.Step != i || len(cp.State.NodeHistory) != i || (i > 0 && cp.State.NodeHistory[i-1] != cp.Node) {
			t.Fatalf("step %d: node %q history %v", i, cp.Node, cp.State.NodeHistory)
		}
	}
	human := runLedger(t, data, "", "runs", "ls")
	if !strings.Contains(human.stdout, "ID") || !strings.Contains(human.stdout, b.Run.ID) || !strings.Contains(human.stdout, "answered") {
		t.Fatalf("runs ls:\n%s", human.stdout)
	}
	if r := runLedger(t, data, "", "runs", "show", "nope"); r.code != exitError {
		t.Fatalf("show of an unknown run: exit %d", r.code)
	} else {
		assertOneLineError(t, r, `no run "nope"`)
	}
}

func TestReviewApproveRejectCLI(t *testing.T) {
	data := t.TempDir()
	ask := func() stateOutput {
		r := runLedger(t, data, "", "ask", "--review", "--review-below", "1.01", "--docs", "examples/contract", "--json", "What are the late payment penalties?")
		if r.code != exitReview {
			t.Fatalf("ask --review: exit %d, want %d\n%s", r.code, exitReview, r.stderr)
		}
		ro := decodeRun(t, r.stdout)
		if ro.Run.Status != checkpoint.StatusAwaitingReview || ro.State.FinalOutput != nil {
			t.Fatalf("paused run %+v", ro.Run)
		}
		return ro
	}
	p1 := ask()
	// No --docs needed: only the output node runs.
	ap := runLedger(t, data, "", "resume", p1.Run.ID, "--approve", "--note", "checked", "--json")
	if ap.code != exitOK {
		t.Fatalf("approve: exit %d\n%s", ap.code, ap.stderr)
	}
	if ro := decodeRun(t, ap.stdout); ro.State.Answer() != p1.State.Response() || ro.Run.ReviewDecision != "approved" || ro.Run.ReviewNote != "checked" {
		t.Fatalf("approved run %+v", ro.Run)
	}
	p2 := ask()
	rj := runLedger(t, data, "", "resume", p2.Run.ID, "--reject")
	if rj.code != exitFallback || !strings.Contains(rj.stdout, schema.FallbackMessage) {
		t.Fatalf("reject: exit %d\n%s%s", rj.code, rj.stdout, rj.stderr)
	}
	if r := runLedger(t, data, "", "resume", p2.Run.ID, "--approve"); r.code != exitError {
		t.Fatalf("approving a finished run: exit %d", r.code)
	} else {
		assertOneLineError(t, r, "not awaiting review")
	}
	if r := runLedger(t, data, "", "resume", p2.Run.ID, "--approve", "--reject"); r.code != exitUsage {
		t.Fatalf("--approve --reject: exit %d", r.code)
	}
	// Resuming a finished run shows it, without documents.
	if r := runLedger(t, data, "", "resume", p1.Run.ID); r.code != exitOK || !strings.Contains(r.stdout, "1.5% per month") {
		t.Fatalf("resume of a done run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestReplayExportGCCLI(t *testing.T) {
	data := t.TempDir()
	r := runLedger(t, data, "", "ask", "--thread", "t", "--docs", "examples/contract", "--json", "What are the late payment penalties?")
	src := decodeRun(t, r.stdout)
	rp := runLedger(t, data, "", "runs", "replay", src.Run.ID, "--from", "judge", "--docs", "examples/contract", "--json")
	if rp.code != exitOK {
		t.Fatalf("replay: exit %d\n%s", rp.code, rp.stderr)
	}
	fork := decodeRun(t, rp.stdout)
	if fork.Run.Parent != src.Run.ID || fork.Run.ForkStep != 4 || fork.State.Answer() != src.State.Answer() {
		t.Fatalf("replayed run %+v", fork.Run)
	}
	if r := runLedger(t, data, "", "runs", "replay", src.Run.ID, "--from", "judge", "--judge-model", "m", "--docs", "examples/contract"); r.code != exitUsage {
		t.Fatalf("--judge-model offline: exit %d", r.code)
	}
	ex := runLedger(t, data, "", "runs", "export", "--jsonl")
	sc := bufio.NewScanner(strings.NewReader(ex.stdout))
	sc.Buffer(nil, 1<<22)
	var lines int
	for sc.Scan() {
		var rec threads.RunRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || len(rec.Steps) != 6 {
			t.Fatalf("export line %d: %v, %d steps", lines, err, len(rec.Steps))
		}
		lines++
	}
	if lines != 2 {
		t.Fatalf("export wrote %d lines, want 2", lines)
	}
	// --json means one JSON document elsewhere; export writes lines, and
	// says so rather than printing lines under --json.
	if r := runLedger(t, data, "", "runs", "export", "--json"); r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, "--jsonl") {
		t.Fatalf("runs export --json: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	gc := runLedger(t, data, "", "gc", "--keep-runs", "1", "--json")
	var st struct {
		checkpoint.GCStats
		Bytes int64 `json:"size_bytes"`
	}
	if err := json.Unmarshal([]byte(gc.stdout), &st); err != nil || st.PrunedRuns != 1 || st.DeletedCheckpoints != 5 || st.Bytes == 0 {
		t.Fatalf("gc --json: %v\n%s%s", err, gc.stdout, gc.stderr)
	}
}

// runs replay of a run that is not in the ledger says so, even without
// --docs and with no default index: it said "no index at ...", which sent
// the user to ingest documents for a run that does not exist.
func TestReplayUnknownRunSaysSoFirst(t *testing.T) {
	env := []string{"DOCMIND_DATA_DIR=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir()}
	r := runCLI(t, env, "runs", "replay", "UNKNOWN", "--from", "judge")
	if r.code != exitError {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, exitError, r.stderr)
	}
	assertOneLineError(t, r, `no run "UNKNOWN"`)
}

func TestChatFromPipe(t *testing.T) {
	data := t.TempDir()
	in := "What are the late payment penalties?\n\nand for enterprise clients?\n/quit\nWhat is ignored?\n"
	r := runLedger(t, data, in, "chat", "--thread", "c1", "--docs", "examples/contract", "--json")
	if r.code != exitOK {
		t.Fatalf("chat: exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("chat printed %d lines, want 2:\n%s", len(lines), r.stdout)
	}
	second := decodeRun(t, lines[1])
	if second.Run.Thread != "c1" || second.Run.Query != "What are the late payment penalties for enterprise clients?" {
		t.Fatalf("second chat run %+v", second.Run)
	}
	// The thread continues in a later chat.
	r = runLedger(t, data, "What about refunds?\n", "chat", "--thread", "c1", "--docs", "examples/contract")
	if !strings.Contains(r.stdout, "Question understood as: What are the refunds for enterprise clients?") {
		t.Fatalf("continued chat:\n%s\n%s", r.stdout, r.stderr)
	}
}

// A line far over the scanner's old 64 KiB (and 1 MiB) limit is refused
// with one line, and the session goes on with the next question.
func TestChatLongLineKeepsTheSession(t *testing.T) {
	for _, n := range []int{100 << 10, 2 << 20} {
		long := strings.Repeat("penalty ", n/8)
		in := "What are the late payment penalties?\n" + long + "\nWhat is the termination notice period?\n"
		r := runLedger(t, t.TempDir(), in, "chat", "--docs", "examples/contract", "--json")
		if r.code != exitError {
			t.Errorf("%d bytes: exit %d, want %d (a question was refused)", n, r.code, exitError)
		}
		if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 2 {
			t.Fatalf("%d bytes: chat printed %d lines, want the 2 answers around the refused line:\n%s", n, len(lines), r.stdout)
		}
		want := fmt.Sprintf("docmind: skipped a question of %d bytes: a question may have at most 64 KiB", len(long))
		if strings.Count(r.stderr, "\n") != 3 || !strings.Contains(r.stderr, want) {
			t.Errorf("%d bytes: stderr = %q, want the mode and thread lines and %q", n, r.stderr, want)
		}
	}
}
