package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/schema"
)

// heldRetriever holds every retrieval until its context ends, telling
// entered when one starts.
type heldRetriever struct{ entered chan struct{} }

func (h heldRetriever) Retrieve(ctx context.Context, _ schema.RetrieveRequest) ([]schema.Section, error) {
	select {
	case h.entered <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// ledgerServer is a Server over the contract index answering with
// retriever, its run ledger at path.
func ledgerServer(t *testing.T, path string, retriever schema.Retriever) (*Server, checkpoint.Store) {
	t.Helper()
	m, store := newManager(t, contractIndex(t), retriever, path)
	s, err := New(Config{Manager: m, Index: contractIndex(t)})
	if err != nil {
		t.Fatal(err)
	}
	return s, store
}

// TestShutdownCutsOffRunsResumable: a run still in flight when the
// shutdown's wait ends is interrupted, not failed: its client gets a 503
// saying so, the ledger keeps it with its completed steps, reported
// interrupted once the process (here: the store) is gone, and a server
// started again finishes it with POST runs/{id}/resume.
func TestShutdownCutsOffRunsResumable(t *testing.T) {
	ledger := checkpoint.PathInDir(t.TempDir())
	held := heldRetriever{entered: make(chan struct{}, 1)}
	s, store := ledgerServer(t, ledger, held)
	ts := httptest.NewServer(s)
	defer ts.Close()

	type answer struct {
		status int
		body   []byte
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := ts.Client().Post(ts.URL+"/api/v1/ask", "application/json", strings.NewReader(`{"question": "`+lateFee+`"}`))
		if err != nil {
			answered <- answer{0, []byte(err.Error())}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- answer{resp.StatusCode, b}
	}()
	select {
	case <-held.entered:
	case <-time.After(time.Minute):
		t.Fatal("the run never reached the retriever")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := s.Shutdown(ctx, ts.Config); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v, want the wait's deadline (a run was in flight)", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Shutdown took %s after its 200ms wait", took)
	}
	a := <-answered
	var out Outcome
	if err := json.Unmarshal(a.body, &out); err != nil || a.status != http.StatusServiceUnavailable || out.Run == nil ||
		!strings.Contains(out.Error, "interrupted") || out.Run.Status != checkpoint.StatusInterrupted {
		t.Fatalf("the cut-off request got %d %s: want 503, the run interrupted", a.status, a.body)
	}
	id := out.Run.ID
	if r, err := store.Run(context.Background(), id); err != nil || r.Status == checkpoint.StatusFailed || r.Error != "" {
		t.Fatalf("run %s in the ledger: %+v %v: want it left running, not failed", id, r, err)
	}
	cps, err := store.List(context.Background(), id)
	if err != nil || len(cps) < 2 || cps[len(cps)-1].Node != schema.NodeDecompose {
		t.Fatalf("checkpoints of the cut-off run: %d %v, want the start and decompose", len(cps), err)
	}

	// The process ends (its store closes): the run is interrupted.
	store.Close()
	again, store2 := ledgerServer(t, ledger, contractIndex(t).Retriever())
	if r, err := store2.Run(context.Background(), id); err != nil || r.Status != checkpoint.StatusInterrupted {
		t.Fatalf("run %s after a restart: %+v %v, want interrupted", id, r, err)
	}
	ts2 := httptest.NewServer(again)
	defer ts2.Close()
	status, _, b := call(t, ts2, "POST", "/api/v1/runs/"+id+"/resume", "")
	res := decodeOutcome(t, b)
	if status != 200 || res.Run.Status != checkpoint.StatusDone || !strings.Contains(res.Answer(), "1.5%") {
		t.Fatalf("resume %s: %d %s", id, status, b)
	}
}

// A client that disconnects mid-run interrupts its run: the ledger keeps
// it as interrupted, resumable, not failed with "context canceled".
func TestClientGoneInterruptsTheRun(t *testing.T) {
	ledger := checkpoint.PathInDir(t.TempDir())
	held := heldRetriever{entered: make(chan struct{}, 1)}
	s, store := ledgerServer(t, ledger, held)
	ts := httptest.NewServer(s)
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/v1/ask", strings.NewReader(`{"question": "`+lateFee+`"}`))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := ts.Client().Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case <-held.entered:
	case <-time.After(time.Minute):
		t.Fatal("the run never reached the retriever")
	}
	cancel()
	<-done
	// the handler ends once the run has stopped
	for deadline := time.Now().Add(20 * time.Second); len(s.slots) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the run still holds its slot 20 s after its client went away")
		}
	}
	runs, err := store.Runs(context.Background(), checkpoint.RunFilter{})
	if err != nil || len(runs) != 1 || runs[0].Status == checkpoint.StatusFailed || runs[0].Error != "" {
		t.Fatalf("run after its client went away: %+v %v, want it left to resume, not failed", runs, err)
	}
	// The process ends (its store closes): the run is interrupted.
	store.Close()
	_, store2 := ledgerServer(t, ledger, contractIndex(t).Retriever())
	if r, err := store2.Run(context.Background(), runs[0].ID); err != nil || r.Status != checkpoint.StatusInterrupted {
		t.Fatalf("run after a restart: %+v %v, want interrupted", r, err)
	}
}

// TestRunSlotClientGoneInterruptsTheRun: a run in a slot taken with
// RunSlot (MCP's asks) whose caller goes away (its request's context is
// cancelled) is interrupted and left to resume, not failed, as a run of
// the HTTP API is (TestClientGoneInterruptsTheRun).
func TestRunSlotClientGoneInterruptsTheRun(t *testing.T) {
	ledger := checkpoint.PathInDir(t.TempDir())
	held := heldRetriever{entered: make(chan struct{}, 1)}
	m, store := newManager(t, contractIndex(t), held, ledger)
	s, err := New(Config{Manager: m, Index: contractIndex(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	runCtx, release, err := s.RunSlot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		defer release()
		_, err := m.Ask(runCtx, "mcp-client", lateFee)
		done <- err
	}()
	select {
	case <-held.entered:
	case err := <-done:
		t.Fatalf("the run ended before its retrieval: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the run never reached the retriever")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(context.Cause(runCtx), errClientGone) {
			t.Errorf("the run's context ended with %v (ask: %v), want %v", context.Cause(runCtx), err, errClientGone)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the run still runs 20 s after its caller went away")
	}
	runs, err := store.Runs(context.Background(), checkpoint.RunFilter{})
	if err != nil || len(runs) != 1 || runs[0].Status == checkpoint.StatusFailed || runs[0].Error != "" {
		t.Fatalf("run after its caller went away: %+v %v, want it left to resume, not failed", runs, err)
	}
}
