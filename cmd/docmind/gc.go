package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/checkpoint"
)

func (a *app) gcCmd() *cobra.Command {
	var (
		tf       threadFlags
		keepRuns int
		maxRuns  int
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Apply retention to the run ledger: older runs keep only their final state",
		Long: `gc keeps every step of the newest --keep-runs runs and only the final state of
older finished runs, deletes finished runs beyond --max-runs (when set), drops
sections no run refers to and shrinks the file. It also runs after every
question with the default policy. Runs that are running or awaiting review
are never touched.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			if keepRuns == 0 {
				return usageError{cmd: cmdPath(c), err: fmt.Errorf("--keep-runs must be positive, or negative to keep every step")}
			}
			store, err := a.openStore(ctx, &tf)
			if err != nil {
				return err
			}
			defer store.Close()
			stats, err := store.GC(ctx, checkpoint.Retention{KeepRuns: keepRuns, MaxRuns: maxRuns})
			if err != nil {
				return err
			}
			if err := store.FlushWAL(ctx); err != nil {
				return err
			}
			var size int64
			if fi, err := os.Stat(store.Path()); err == nil {
				size = fi.Size()
			}
			if asJSON {
				return writeJSON(a.stdout, struct {
					checkpoint.GCStats
					Path  string `json:"path"`
					Bytes int64  `json:"size_bytes"`
				}{stats, store.Path(), size})
			}
			fmt.Fprintf(a.stdout, "Pruned %d runs to their final state, deleted %d runs, %d checkpoints and %d sections.\n",
				stats.PrunedRuns, stats.DeletedRuns, stats.DeletedCheckpoints, stats.DeletedSections)
			fmt.Fprintf(a.stdout, "%s: %d bytes\n", store.Path(), size)
			return nil
		},
	}
	tf.registerData(cmd)
	cmd.Flags().IntVar(&keepRuns, "keep-runs", checkpoint.DefaultKeepRuns, "newest runs that keep every step (negative: all)")
	cmd.Flags().IntVar(&maxRuns, "max-runs", 0, "delete finished runs beyond the newest N (0: keep all final states)")
	addJSONFlag(cmd, &asJSON, "what was removed")
	return cmd
}
