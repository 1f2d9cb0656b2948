package checkpoint

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Memory is an in-memory Store, safe for concurrent use. Its content is
// lost when the program ends.
type Memory struct {
	mu    sync.Mutex
	runs  map[string]Run
	steps map[string][]Checkpoint // by run, in step order
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{runs: map[string]Run{}, steps: map[string][]Checkpoint{}}
}

// Put saves a copy of cp.
func (m *Memory) Put(ctx context.Context, cp Checkpoint) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if cp.State == nil {
		return fmt.Errorf("save checkpoint %s/%d: nil state", cp.RunID, cp.Step)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.runs[cp.RunID]
	if !ok {
		return fmt.Errorf("save checkpoint %s/%d: run %w", cp.RunID, cp.Step, ErrNotFound)
	}
	list := m.steps[cp.RunID]
	for _, old := range list {
		if old.Step == cp.Step {
			return fmt.Errorf("save checkpoint %s/%d: %w", cp.RunID, cp.Step, ErrExists)
		}
	}
	cp = cp.clone()
	cp.Thread = r.Thread
	if cp.Created.IsZero() {
		cp.Created = time.Now().UTC()
	}
	list = append(list, cp)
	sort.Slice(list, func(i, j int) bool { return list[i].Step < list[j].Step })
	m.steps[cp.RunID] = list
	if cp.Step > r.Steps {
		r.Steps = cp.Step
		m.runs[cp.RunID] = r
	}
	return nil
}

// StartRun saves a new run and its first checkpoints, all or nothing.
func (m *Memory) StartRun(ctx context.Context, r Run, cps ...Checkpoint) error {
	if err := m.SaveRun(ctx, r); err != nil {
		return err
	}
	for _, cp := range cps {
		cp.RunID = r.ID
		if err := m.Put(ctx, cp); err != nil {
			m.mu.Lock()
			delete(m.runs, r.ID)
			delete(m.steps, r.ID)
			m.mu.Unlock()
			return fmt.Errorf("start run %s: %w", r.ID, err)
		}
	}
	return nil
}

// Get returns a copy of one checkpoint; step < 0 means the latest.
func (m *Memory) Get(ctx context.Context, runID string, step int) (Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return Checkpoint{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	list := m.steps[runID]
	if len(list) == 0 {
		return Checkpoint{}, fmt.Errorf("checkpoint of run %s: %w", runID, ErrNotFound)
	}
	if step < 0 {
		return list[len(list)-1].clone(), nil
	}
	for _, cp := range list {
		if cp.Step == step {
			return cp.clone(), nil
		}
	}
	return Checkpoint{}, fmt.Errorf("checkpoint %d of run %s: %w", step, runID, ErrNotFound)
}

// List returns copies of a run's checkpoints in step order.
func (m *Memory) List(ctx context.Context, runID string) ([]Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.runs[runID]; !ok {
		return nil, fmt.Errorf("run %s: %w", runID, ErrNotFound)
	}
	out := make([]Checkpoint, len(m.steps[runID]))
	for i, cp := range m.steps[runID] {
		out[i] = cp.clone()
	}
	return out, nil
}

// SaveRun inserts or updates a run.
func (m *Memory) SaveRun(ctx context.Context, r Run) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.ID == "" {
		return fmt.Errorf("save run: empty run id")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.runs[r.ID]; ok {
		r.Steps, r.Pruned = old.Steps, old.Pruned
		if r.Created.IsZero() {
			r.Created = old.Created
		}
	} else {
		r.Steps, r.Pruned = 0, false
	}
	now := time.Now().UTC()
	if r.Created.IsZero() {
		r.Created = now
	}
	if r.Updated.IsZero() {
		r.Updated = now
	}
	m.runs[r.ID] = r
	return nil
}

// Run returns a run by id or unique id prefix.
func (m *Memory) Run(ctx context.Context, id string) (Run, error) {
	if err := ctx.Err(); err != nil {
		return Run{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.runs[id]; ok {
		return r, nil
	}
	var found []Run
	for k, r := range m.runs {
		if id != "" && strings.HasPrefix(k, id) {
			found = append(found, r)
		}
	}
	return uniqueRun(id, found)
}

// uniqueRun returns the single run a prefix matched.
func uniqueRun(id string, found []Run) (Run, error) {
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return Run{}, fmt.Errorf("run %q: %w", id, ErrNotFound)
	default:
		return Run{}, fmt.Errorf("run %q: the prefix matches %d runs; give more of the id", id, len(found))
	}
}

// Runs lists runs oldest first.
func (m *Memory) Runs(ctx context.Context, f RunFilter) ([]Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	var out []Run
	for _, r := range m.runs {
		if (f.Thread == "" || r.Thread == f.Thread) && (f.Status == "" || r.Status == f.Status) {
			out = append(out, r)
		}
	}
	m.mu.Unlock()
	sortRuns(out)
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out, nil
}

// sortRuns orders runs by creation time, then id.
func sortRuns(rs []Run) {
	sort.Slice(rs, func(i, j int) bool {
		if !rs[i].Created.Equal(rs[j].Created) {
			return rs[i].Created.Before(rs[j].Created)
		}
		return rs[i].ID < rs[j].ID
	})
}

// GC applies the retention policy.
func (m *Memory) GC(ctx context.Context, ret Retention) (GCStats, error) {
	var st GCStats
	if err := ctx.Err(); err != nil {
		return st, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if keep := ret.keepRuns(); (keep < 0 || len(m.runs) <= keep) && (ret.MaxRuns <= 0 || len(m.runs) <= ret.MaxRuns) {
		return st, nil
	}
	all := make([]Run, 0, len(m.runs))
	for _, r := range m.runs {
		all = append(all, r)
	}
	sortRuns(all)
	newestFirst(all, func(rank int, r Run) {
		if !prunable(r) {
			return
		}
		if ret.MaxRuns > 0 && rank >= ret.MaxRuns {
			st.DeletedRuns++
			st.DeletedCheckpoints += len(m.steps[r.ID])
			delete(m.runs, r.ID)
			delete(m.steps, r.ID)
			return
		}
		if keep := ret.keepRuns(); keep >= 0 && rank >= keep && !r.Pruned {
			list := m.steps[r.ID]
			if len(list) > 1 {
				st.DeletedCheckpoints += len(list) - 1
				m.steps[r.ID] = list[len(list)-1:]
			}
			r.Pruned = true
			m.runs[r.ID] = r
			st.PrunedRuns++
		}
	})
	return st, nil
}

// newestFirst calls fn for each run of an oldest-first list, newest first,
// with its rank (0 = newest).
func newestFirst(runs []Run, fn func(rank int, r Run)) {
	for i := len(runs) - 1; i >= 0; i-- {
		fn(len(runs)-1-i, runs[i])
	}
}

// Close does nothing.
func (m *Memory) Close() error { return nil }
