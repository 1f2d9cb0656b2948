package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/docmind/docmind/schema"
)

// stores returns a fresh store of each kind.
func stores(t *testing.T) map[string]Store {
	t.Helper()
	db, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "data", FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return map[string]Store{"memory": NewMemory(), "sqlite": db}
}

var (
	secLate = schema.Section{ID: "contract#late", Title: "Late Payment Penalties", Content: "A late fee of 1.5% per month applies.", Source: "contract.md", Page: 8}
	secTerm = schema.Section{ID: "contract#term", Title: "Termination", Content: "Either party may terminate with 30 days notice.", Source: "contract.md", Page: 11}
)

// pipelineStates returns the states after decompose, retrieve, generate,
// judge and output for a one-pass run.
func pipelineStates(q string) []*schema.State {
	st := schema.NewState(q)
	var out []*schema.State
	add := func(node string, f func(s *schema.State)) {
		st = st.Clone()
		f(st)
		st.NodeHistory = append(st.NodeHistory, node)
		out = append(out, st)
	}
	add(schema.NodeDecompose, func(s *schema.State) {
		s.Decomposition = &schema.Decomposition{Intent: "amount", SubQueries: []string{q}, KeyTerms: []string{"late", "payment"}}
	})
	add(schema.NodeRetrieve, func(s *schema.State) {
		a, b := secLate, secTerm
		a.RelevanceScore, b.RelevanceScore = 0.9, 0.4
		s.RetrievedSections = []schema.Section{a, b}
	})
	add(schema.NodeGenerate, func(s *schema.State) {
		r := "A late fee of 1.5% per month applies (Late Payment Penalties, page 8)."
		s.GeneratedResponse = &r
		s.Usage = &schema.RunUsage{Total: schema.Usage{Calls: 1, TotalTokens: 42}, ByNode: map[string]schema.Usage{"generate": {Calls: 1, TotalTokens: 42}}}
		s.PromptVersions = map[string]string{"generate": "v3"}
	})
	add(schema.NodeJudge, func(s *schema.State) {
		s.JudgeVerdict = &schema.Verdict{ShouldReturn: true, ConfidenceScore: 0.9, Reasoning: "supported",
			Claims: []schema.ClaimCheck{{Claim: "1.5% per month", Supported: true, Evidence: &schema.Evidence{Quote: "1.5% per month", Title: "Late Payment Penalties", Page: 8}}}}
	})
	add(schema.NodeOutput, func(s *schema.State) { s.FinalOutput = s.GeneratedResponse })
	return out
}

var nodes = []string{"", schema.NodeDecompose, schema.NodeRetrieve, schema.NodeGenerate, schema.NodeJudge, schema.NodeOutput}

// saveRun saves a run with its initial state and n node checkpoints.
func saveRun(t *testing.T, s Store, id, thread string, created time.Time, n int, status Status) []*schema.State {
	t.Helper()
	ctx := context.Background()
	if err := s.SaveRun(ctx, Run{ID: id, Thread: thread, Created: created, Question: "What are the late payment penalties?", Status: status}); err != nil {
		t.Fatal(err)
	}
	states := append([]*schema.State{schema.NewState("What are the late payment penalties?")}, pipelineStates("What are the late payment penalties?")...)
	for i := 0; i <= n; i++ {
		next := ""
		if i+1 < len(nodes) {
			next = nodes[i+1]
		}
		cp := Checkpoint{RunID: id, Step: i, Node: nodes[i], Next: next, State: states[i], Duration: time.Duration(i) * time.Millisecond,
			Usage: schema.Usage{Calls: i % 2, TotalTokens: 10 * i}}
		if err := s.Put(ctx, cp); err != nil {
			t.Fatalf("put %s/%d: %v", id, i, err)
		}
	}
	return states[:n+1]
}

func TestPutGetList(t *testing.T) {
	ctx := context.Background()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			states := saveRun(t, s, "r1", "t1", time.Now(), 5, StatusDone)
			cps, err := s.List(ctx, "r1")
			if err != nil {
				t.Fatal(err)
			}
			if len(cps) != 6 {
				t.Fatalf("List returned %d checkpoints, want 6", len(cps))
			}
			for i, cp := range cps {
				if cp.Step != i || cp.Node != nodes[i] || cp.Thread != "t1" || cp.RunID != "r1" {
					t.Errorf("step %d: got step %d node %q thread %q run %q", i, cp.Step, cp.Node, cp.Thread, cp.RunID)
				}
				if cp.Duration != time.Duration(i)*time.Millisecond || cp.Usage.TotalTokens != 10*i {
					t.Errorf("step %d: duration %v tokens %d", i, cp.Duration, cp.Usage.TotalTokens)
				}
				if !reflect.DeepEqual(cp.State, states[i]) {
					t.Errorf("step %d: state round trip differs:\n got %+v\nwant %+v", i, cp.State, states[i])
				}
			}
			latest, err := s.Get(ctx, "r1", -1)
			if err != nil || latest.Step != 5 || latest.State.Answer() == "" {
				t.Fatalf("Get latest = step %d answer %q, %v", latest.Step, latest.State.Answer(), err)
			}
			two, err := s.Get(ctx, "r1", 2)
			if err != nil || two.Node != schema.NodeRetrieve || len(two.State.RetrievedSections) != 2 || two.State.RetrievedSections[0].RelevanceScore != 0.9 {
				t.Fatalf("Get step 2 = %+v, %v", two, err)
			}
			r, err := s.Run(ctx, "r1")
			if err != nil || r.Steps != 5 {
				t.Fatalf("Run = %+v, %v; want 5 steps", r, err)
			}
		})
	}
}

func TestSavedStatesAreImmutable(t *testing.T) {
	ctx := context.Background()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			states := saveRun(t, s, "r1", "t1", time.Now(), 3, StatusRunning)
			want := states[3].Clone()
			// Changing the caller's state after Put, or a state read back,
			// must not change what is stored.
			states[3].RetrievedSections[0].Content = "changed"
			states[3].NodeHistory[0] = "changed"
			got, err := s.Get(ctx, "r1", 3)
			if err != nil {
				t.Fatal(err)
			}
			got.State.RetrievedSections[0].Title = "changed"
			*got.State.GeneratedResponse = "changed"
			again, err := s.Get(ctx, "r1", 3)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again.State, want) {
				t.Fatalf("stored state changed:\n got %+v\nwant %+v", again.State, want)
			}
			err = s.Put(ctx, Checkpoint{RunID: "r1", Step: 3, Node: "judge", State: want})
			if !errors.Is(err, ErrExists) {
				t.Fatalf("second Put of step 3: %v, want ErrExists", err)
			}
			err = s.Put(ctx, Checkpoint{RunID: "nope", Step: 0, State: want})
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("Put for unknown run: %v, want ErrNotFound", err)
			}
			if _, err := s.Get(ctx, "r1", 9); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Get step 9: %v, want ErrNotFound", err)
			}
		})
	}
}

func TestRunsFilterAndPrefix(t *testing.T) {
	ctx := context.Background()
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			for i, th := range []string{"a", "b", "a", "a"} {
				saveRun(t, s, fmt.Sprintf("run%02d", i), th, base.Add(time.Duration(i)*time.Minute), 1, StatusDone)
			}
			all, err := s.Runs(ctx, RunFilter{})
			if err != nil || len(all) != 4 || all[0].ID != "run00" || all[3].ID != "run03" {
				t.Fatalf("Runs() = %v, %v", ids(all), err)
			}
			a, _ := s.Runs(ctx, RunFilter{Thread: "a", Limit: 2})
			if got := ids(a); !reflect.DeepEqual(got, []string{"run02", "run03"}) {
				t.Fatalf("thread a, limit 2 = %v", got)
			}
			if !all[1].Created.Equal(base.Add(time.Minute)) {
				t.Errorf("created %v, want %v", all[1].Created, base.Add(time.Minute))
			}
			if r, err := s.Run(ctx, "run01"); err != nil || r.Thread != "b" {
				t.Fatalf("Run(run01) = %+v, %v", r, err)
			}
			if _, err := s.Run(ctx, "run0"); err == nil || errors.Is(err, ErrNotFound) {
				t.Fatalf("ambiguous prefix: %v", err)
			}
			if _, err := s.Run(ctx, "zz"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("unknown id: %v", err)
			}
			// Updating a run keeps its step count and creation time.
			r := all[2]
			r.Status, r.Outcome, r.Created = StatusDone, OutcomeAnswered, time.Time{}
			if err := s.SaveRun(ctx, r); err != nil {
				t.Fatal(err)
			}
			got, _ := s.Run(ctx, r.ID)
			if got.Steps != 1 || got.Outcome != OutcomeAnswered || !got.Created.Equal(all[2].Created) {
				t.Fatalf("after update: %+v", got)
			}
		})
	}
}

func ids(rs []Run) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestGCRetention(t *testing.T) {
	ctx := context.Background()
	base := time.Now().Add(-time.Hour)
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			for i := 0; i < 10; i++ {
				status := StatusDone
				if i == 1 {
					status = StatusAwaitingReview
				}
				saveRun(t, s, fmt.Sprintf("r%02d", i), "t", base.Add(time.Duration(i)*time.Second), 5, status)
			}
			st, err := s.GC(ctx, Retention{KeepRuns: 3})
			if err != nil {
				t.Fatal(err)
			}
			// r00, r02..r06 pruned (6 runs x 5 steps); r01 awaits review.
			if st.PrunedRuns != 6 || st.DeletedCheckpoints != 30 || st.DeletedRuns != 0 {
				t.Fatalf("GC stats %+v", st)
			}
			for i := 0; i < 10; i++ {
				id := fmt.Sprintf("r%02d", i)
				cps, err := s.List(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				want := 6
				if i != 1 && i < 7 {
					want = 1
				}
				if len(cps) != want {
					t.Errorf("%s: %d checkpoints after GC, want %d", id, len(cps), want)
				}
				last := cps[len(cps)-1]
				if last.Step != 5 || last.State.Answer() == "" || len(last.State.RetrievedSections) != 2 {
					t.Errorf("%s: final checkpoint lost: step %d", id, last.Step)
				}
				r, _ := s.Run(ctx, id)
				if r.Pruned != (want == 1) {
					t.Errorf("%s: pruned = %v", id, r.Pruned)
				}
			}
			// A second GC has nothing to do.
			if st, err := s.GC(ctx, Retention{KeepRuns: 3}); err != nil || st != (GCStats{}) {
				t.Fatalf("second GC: %+v, %v", st, err)
			}
			st, err = s.GC(ctx, Retention{KeepRuns: 3, MaxRuns: 4})
			if err != nil {
				t.Fatal(err)
			}
			// r00, r02..r05 are deleted; r01 awaits review and stays.
			if st.DeletedRuns != 5 {
				t.Fatalf("MaxRuns GC stats %+v", st)
			}
			left, _ := s.Runs(ctx, RunFilter{})
			if got := ids(left); !reflect.DeepEqual(got, []string{"r01", "r06", "r07", "r08", "r09"}) {
				t.Fatalf("runs left %v", got)
			}
		})
	}
}

func TestSQLiteStoresSectionsOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := OpenSQLite(ctx, PathInDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		saveRun(t, s, fmt.Sprintf("r%d", i), "t", time.Now().Add(time.Duration(i)*time.Second), 5, StatusDone)
	}
	count := func(table string) int {
		var n int
		if err := s.DB().QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// 3 runs x 4 steps carry the same two sections: two rows.
	if n := count("sections"); n != 2 {
		t.Fatalf("%d section rows, want 2", n)
	}
	if _, err := s.GC(ctx, Retention{KeepRuns: -1, MaxRuns: 1}); err != nil {
		t.Fatal(err)
	}
	if n := count("sections"); n != 2 {
		t.Fatalf("%d section rows while r2 still refers to them, want 2", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopening reads the same data.
	s, err = OpenSQLite(ctx, PathInDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cp, err := s.Get(ctx, "r2", -1)
	if err != nil || cp.State.RetrievedSections[1].Title != "Termination" {
		t.Fatalf("after reopen: %+v, %v", cp, err)
	}
	if _, err := s.GC(ctx, Retention{MaxRuns: -1, KeepRuns: 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`DELETE FROM runs`); err != nil {
		t.Fatal(err)
	}
	st, err := s.GC(ctx, Retention{})
	if err != nil || st.DeletedSections != 2 || count("sections") != 0 {
		t.Fatalf("orphan sections not collected: %+v, %v", st, err)
	}
}

// A checkpoint's JSON gives its duration in milliseconds and reads back.
func TestCheckpointJSONDurationInMilliseconds(t *testing.T) {
	cp := Checkpoint{RunID: "r", Step: 2, Node: "judge", Duration: 1500 * time.Microsecond, State: schema.NewState("q")}
	b, err := json.Marshal(cp)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["duration_ms"] != 1.5 || m["node"] != "judge" || m["step"] != 2.0 {
		t.Errorf("json = %s", b)
	}
	if _, ok := m["duration_ns"]; ok {
		t.Errorf("json still has duration_ns: %s", b)
	}
	var back Checkpoint
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Duration != cp.Duration || back.Node != "judge" || back.State == nil || back.State.Query != "q" {
		t.Errorf("read back %+v", back)
	}
}
