package threads

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/docmind/docmind/checkpoint"
)

// RunRecord is a run with its checkpoints, the unit of Export.
type RunRecord struct {
	Run   checkpoint.Run          `json:"run"`
	Steps []checkpoint.Checkpoint `json:"steps"`
}

// Export writes one JSON object per line (a RunRecord) for every run the
// filter selects, oldest first.
func (m *Manager) Export(ctx context.Context, w io.Writer, f checkpoint.RunFilter) error {
	return Export(ctx, m.cfg.Store, w, f)
}

// Export writes the runs of any store as JSON lines; see Manager.Export.
func Export(ctx context.Context, s checkpoint.Store, w io.Writer, f checkpoint.RunFilter) error {
	runs, err := s.Runs(ctx, f)
	if err != nil {
		return fmt.Errorf("export runs: %w", err)
	}
	enc := json.NewEncoder(w)
	for _, r := range runs {
		cps, err := s.List(ctx, r.ID)
		if err != nil {
			return fmt.Errorf("export run %s: %w", r.ID, err)
		}
		if err := enc.Encode(RunRecord{Run: r, Steps: cps}); err != nil {
			return fmt.Errorf("export run %s: write: %w", r.ID, err)
		}
	}
	return nil
}
