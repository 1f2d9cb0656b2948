package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/index"
)

func (a *app) gcCmd() *cobra.Command {
	var (
		tf         threadFlags
		keepRuns   int
		maxRuns    int
		cacheDays  int
		uploadDays int
		asJSON     bool
	)
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Apply retention to the run ledger, the per-folder index caches and uploads",
		Long: `gc keeps every step of the newest --keep-runs runs and only the final state of
older finished runs, deletes finished runs beyond --max-runs (when set), drops
sections no run refers to and shrinks the file. It also runs after every
question with the default policy. Runs that are running or awaiting review
are never touched.

It also deletes the per-folder index caches (built by --docs) not used for
--cache-days days (default 30; 0 keeps them): a cache is rebuilt from its
folder when next needed. Files uploaded to docmind serve are kept unless
--upload-days N is given: then uploads older than N days are deleted, with
their documents in the default index and the per-folder caches (a served
folder's uploads, in DATA_DIR/uploads/ID, with their documents in that
folder's served cache). A server
running meanwhile drops such documents from its index when it next starts.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			if keepRuns == 0 {
				return usageError{cmd: cmdPath(c), err: fmt.Errorf("--keep-runs must be positive, or negative to keep every step")}
			}
			if maxRuns < 0 {
				return usageError{cmd: cmdPath(c), err: fmt.Errorf("--max-runs must be 0 (keep all final states) or more, got %d", maxRuns)}
			}
			if cacheDays < 0 || uploadDays < 0 {
				return usageError{cmd: cmdPath(c), err: fmt.Errorf("--cache-days and --upload-days must be 0 (keep) or more")}
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
			files, err := a.gcFiles(ctx, &tf, cacheDays, uploadDays)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, struct {
					checkpoint.GCStats
					Path  string `json:"path"`
					Bytes int64  `json:"size_bytes"`
					fileGC
				}{stats, store.Path(), size, files})
			}
			fmt.Fprintf(a.stdout, "Pruned %d runs to their final state, deleted %d runs, %d checkpoints and %d sections.\n",
				stats.PrunedRuns, stats.DeletedRuns, stats.DeletedCheckpoints, stats.DeletedSections)
			fmt.Fprintf(a.stdout, "%s: %d bytes\n", store.Path(), size)
			fmt.Fprintf(a.stdout, "Deleted %d unused folder index caches and %d old uploads.\n", files.Caches, files.Uploads)
			return nil
		},
	}
	tf.registerData(cmd)
	cmd.Flags().IntVar(&keepRuns, "keep-runs", checkpoint.DefaultKeepRuns, "newest runs that keep every step (negative: all)")
	cmd.Flags().IntVar(&maxRuns, "max-runs", 0, "delete finished runs beyond the newest N (0: keep all final states)")
	cmd.Flags().IntVar(&cacheDays, "cache-days", defaultCacheDays, "delete per-folder index caches (--docs) not used for N days (0: keep)")
	cmd.Flags().IntVar(&uploadDays, "upload-days", 0, "delete files uploaded to serve more than N days ago, with their documents (0: keep)")
	addJSONFlag(cmd, &asJSON, "what was removed")
	return cmd
}

// defaultCacheDays is how long gc keeps a per-folder index cache unused.
const defaultCacheDays = 30

// fileGC is what gc removed beyond the run ledger.
type fileGC struct {
	// Caches are the per-folder index caches deleted.
	Caches int `json:"caches_deleted"`
	// Uploads are the uploaded files deleted, with their documents.
	Uploads int `json:"uploads_deleted"`
}

// gcFiles applies the retention of per-folder index caches (unused for
// cacheDays days: their folder's modification time, which docsIndex sets
// at each use) and of uploads (older than uploadDays days, deleted from
// the default index and the remaining caches too); 0 keeps them.
func (a *app) gcFiles(ctx context.Context, tf *threadFlags, cacheDays, uploadDays int) (fileGC, error) {
	var out fileGC
	now := time.Now()
	var caches []string
	if dir, err := index.CacheDirForIn(".", a.getenv); err == nil {
		root := filepath.Dir(dir)
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			path := filepath.Join(root, e.Name())
			fi, err := e.Info()
			if err == nil && cacheDays > 0 && now.Sub(fi.ModTime()) > time.Duration(cacheDays)*24*time.Hour {
				if err := os.RemoveAll(path); err != nil {
					return out, fmt.Errorf("delete the index cache %s: %w", path, err)
				}
				out.Caches++
				continue
			}
			caches = append(caches, path)
		}
	}
	if uploadDays == 0 {
		return out, nil
	}
	data, err := a.dataDir(tf.dataDir)
	if err != nil {
		return out, err
	}
	uploads := filepath.Join(data, "uploads")
	entries, err := os.ReadDir(uploads)
	if err != nil && !os.IsNotExist(err) {
		return out, err
	}
	isOld := func(fi os.FileInfo) bool {
		return fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > time.Duration(uploadDays)*24*time.Hour
	}
	var old []string
	var folders []string // the uploads of served folders: DATA_DIR/uploads/CACHE
	for _, e := range entries {
		fi, err := e.Info()
		switch {
		case err != nil:
		case fi.IsDir():
			folders = append(folders, e.Name())
		case isOld(fi):
			old = append(old, filepath.Join(uploads, e.Name()))
		}
	}
	// a served folder's old uploads leave its cache, then the folder
	for _, name := range folders {
		n, err := a.gcFolderUploads(ctx, filepath.Join(uploads, name), caches, isOld)
		out.Uploads += n
		if err != nil {
			return out, err
		}
	}
	if len(old) == 0 {
		return out, nil
	}
	// the documents first, then the files: an upload is in both or neither
	indexes := caches
	if dir, err := index.DefaultDirIn(a.getenv); err == nil {
		indexes = append(indexes, dir)
	}
	for _, dir := range indexes {
		path := index.PathInDir(dir)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		ix, err := index.Open(ctx, path)
		if err != nil {
			return out, fmt.Errorf("open the index %s to delete old uploads: %w", dir, err)
		}
		for _, p := range old {
			if _, err := ix.DeleteDocument(ctx, p); err != nil {
				ix.Close()
				return out, fmt.Errorf("delete an old upload from %s: %w", dir, err)
			}
		}
		ix.Close()
	}
	for _, p := range old {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return out, err
		}
		out.Uploads++
	}
	return out, nil
}

// gcFolderUploads deletes the old uploads (isOld) of a served folder,
// kept in dir (DATA_DIR/uploads/CACHE), from the folder cache of that name
// among caches, then the files, and returns how many it deleted. A cache
// that is gone (deleted by --cache-days) leaves only the files to delete.
func (a *app) gcFolderUploads(ctx context.Context, dir string, caches []string, isOld func(os.FileInfo) bool) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var old []string
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && isOld(fi) {
			old = append(old, filepath.Join(dir, e.Name()))
		}
	}
	if len(old) == 0 {
		return 0, nil
	}
	for _, c := range caches {
		if filepath.Base(c) != filepath.Base(dir) {
			continue
		}
		if _, err := os.Stat(index.PathInDir(c)); err != nil {
			break
		}
		ix, err := index.Open(ctx, index.PathInDir(c))
		if err != nil {
			return 0, fmt.Errorf("open the index %s to delete old uploads: %w", c, err)
		}
		for _, p := range old {
			if _, err := ix.DeleteDocument(ctx, p); err != nil {
				ix.Close()
				return 0, fmt.Errorf("delete an old upload from %s: %w", c, err)
			}
		}
		ix.Close()
	}
	n := 0
	for _, p := range old {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return n, err
		}
		n++
	}
	return n, nil
}
