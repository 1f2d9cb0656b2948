//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/llm/openaitest"
)

// runsLs returns the runs `docmind runs ls --json` lists.
func runsLs(t *testing.T, data string) []checkpoint.Run {
	t.Helper()
	r := runCLITimeout(t, time.Minute, nil, "runs", "ls", "--json", "--data-dir", data)
	if r.code != 0 {
		t.Fatalf("runs ls: exit %d\n%s", r.code, r.stderr)
	}
	var runs []checkpoint.Run
	if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil {
		t.Fatalf("runs ls --json: %v\n%s", err, r.stdout)
	}
	return runs
}

// A run whose process is killed (kill -9) or interrupted (Ctrl-C) mid-run
// is listed as interrupted, not running forever nor failed, and resume
// finishes it.
func TestKilledRunIsInterrupted(t *testing.T) {
	for _, sig := range []os.Signal{os.Kill, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) { testRunInterruptedBy(t, sig) })
	}
}

func testRunInterruptedBy(t *testing.T, sig os.Signal) {
	srv := openaitest.New(t)
	var calls atomic.Int32
	srv.Respond(func(req openaitest.Request) openaitest.Reply {
		calls.Add(1)
		return openaitest.Reply{Delay: time.Minute, Status: 500, Message: "too late"} // the model never answers in time
	})
	data := filepath.Join(t.TempDir(), "state")
	cmd := exec.Command(binPath, "ask", "--docs", "examples/contract", "--thread", "t1", "--data-dir", data, "What are the late payment penalties?")
	cmd.Dir = testenv.RepoRoot(t)
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "XDG_CACHE_HOME=" + cacheDir(t)}, llmEnv(srv)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	deadline := time.Now().Add(time.Minute)
	for calls.Load() == 0 {
		select {
		case err := <-exited:
			t.Fatalf("docmind ended before calling the model: %v\n%s", err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("docmind did not call the model within a minute\n%s", out.String())
		}
	}
	runs := runsLs(t, data)
	if len(runs) != 1 || runs[0].Status != checkpoint.StatusRunning {
		t.Fatalf("while the process runs: %+v, want one running run", runs)
	}
	if err := cmd.Process.Signal(sig); err != nil { // SIGKILL: nothing can be cleaned up
		t.Fatal(err)
	}
	<-exited
	exited <- nil

	runs = runsLs(t, data)
	if len(runs) != 1 || runs[0].Status != checkpoint.StatusInterrupted {
		t.Fatalf("after %s: %+v, want one interrupted run", sig, runs)
	}
	id := runs[0].ID
	table := runCLITimeout(t, time.Minute, nil, "runs", "ls", "--data-dir", data)
	if !strings.Contains(table.stdout, id) || !strings.Contains(table.stdout, "interrupted") {
		t.Errorf("runs ls does not show the run as interrupted:\n%s", table.stdout)
	}
	if f := runCLITimeout(t, time.Minute, nil, "runs", "ls", "--json", "--status", "interrupted", "--data-dir", data); !strings.Contains(f.stdout, id) {
		t.Errorf("runs ls --status interrupted does not list it:\n%s", f.stdout)
	}
	if f := runCLITimeout(t, time.Minute, nil, "runs", "ls", "--json", "--status", "running", "--data-dir", data); strings.Contains(f.stdout, id) {
		t.Errorf("runs ls --status running lists it:\n%s", f.stdout)
	}

	// Resumable: resume (offline now) finishes it.
	r := runCLITimeout(t, 2*time.Minute, nil, "resume", id, "--docs", "examples/contract", "--data-dir", data)
	if r.code != exitOK && r.code != exitFallback {
		t.Fatalf("resume: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if runs = runsLs(t, data); len(runs) != 1 || runs[0].Status != checkpoint.StatusDone {
		t.Fatalf("after resume: %+v, want one done run", runs)
	}
}
