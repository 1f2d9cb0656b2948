package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docmind/docmind/index"
)

// TestGCRetainsCachesAndUploads: gc deletes the per-folder index caches
// unused for --cache-days and, given --upload-days, the uploads older
// than that with their documents in the default index; what is newer
// stays, and uploads stay without --upload-days.
func TestGCRetainsCachesAndUploads(t *testing.T) {
	cache, data := t.TempDir(), t.TempDir()
	env := []string{"XDG_CACHE_HOME=" + cache, "DOCMIND_DATA_DIR=" + data}
	// a cache in use (ask --docs) and one unused for 40 days
	if r := runCLI(t, env, "ask", "--docs", "examples/contract", "What are the late payment penalties?"); r.code != 0 {
		t.Fatalf("ask: %d %s", r.code, r.stderr)
	}
	folders := filepath.Join(cache, "docmind", "folders")
	used, _ := os.ReadDir(folders)
	if len(used) != 1 {
		t.Fatalf("%d folder caches after ask --docs, want 1", len(used))
	}
	stale := filepath.Join(folders, "stale")
	os.MkdirAll(stale, 0o700)
	long := time.Now().Add(-40 * 24 * time.Hour)
	os.Chtimes(stale, long, long)
	// two uploads in the default index, one 40 days old
	uploads := filepath.Join(data, "uploads")
	os.MkdirAll(uploads, 0o700)
	oldFile, newFile := filepath.Join(uploads, "old.md"), filepath.Join(uploads, "new.md")
	os.WriteFile(oldFile, []byte("# Old\n\nAn old upload about invoices.\n"), 0o600)
	os.WriteFile(newFile, []byte("# New\n\nA new upload about invoices.\n"), 0o600)
	if r := runCLI(t, env, "ingest", oldFile, newFile); r.code != 0 {
		t.Fatalf("ingest: %d %s", r.code, r.stderr)
	}
	os.Chtimes(oldFile, long, long)

	gc := func(args ...string) fileGC {
		r := runCLI(t, env, append([]string{"gc", "--json"}, args...)...)
		var out fileGC
		if err := json.Unmarshal([]byte(r.stdout), &out); r.code != 0 || err != nil {
			t.Fatalf("gc %v: %d %v\n%s%s", args, r.code, err, r.stdout, r.stderr)
		}
		return out
	}
	if got := gc(); got != (fileGC{Caches: 1}) {
		t.Errorf("gc: %+v, want the stale cache alone deleted", got)
	}
	if _, err := os.Stat(oldFile); err != nil {
		t.Errorf("gc without --upload-days deleted an upload: %v", err)
	}
	if got := gc("--upload-days", "30"); got != (fileGC{Uploads: 1}) {
		t.Errorf("gc --upload-days 30: %+v, want the old upload deleted", got)
	}
	if _, err := os.Stat(oldFile); !os.IsNotExist(err) {
		t.Errorf("the old upload is still there: %v", err)
	}
	if _, err := os.Stat(newFile); err != nil {
		t.Errorf("the new upload was deleted: %v", err)
	}
	if left, _ := os.ReadDir(folders); len(left) != 1 || left[0].Name() != used[0].Name() {
		t.Errorf("folder caches left: %v", left)
	}
	ix, err := index.Open(context.Background(), index.PathInDir(filepath.Join(cache, "docmind", "index")))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, ok, _ := ix.Document(context.Background(), oldFile); ok {
		t.Error("the old upload's document is still in the default index")
	}
	if _, ok, _ := ix.Document(context.Background(), newFile); !ok {
		t.Error("the new upload's document left the default index")
	}
}

// TestGCServedFolderUploads: the uploads of a served folder, kept in
// DATA_DIR/uploads/CACHE, leave that folder cache and the disk when
// older than --upload-days; newer ones stay in both.
func TestGCServedFolderUploads(t *testing.T) {
	cache, data := t.TempDir(), t.TempDir()
	env := []string{"XDG_CACHE_HOME=" + cache, "DOCMIND_DATA_DIR=" + data}
	served := filepath.Join(cache, "docmind", "folders", "0123456789abcdef")
	uploads := filepath.Join(data, "uploads", filepath.Base(served))
	if err := os.MkdirAll(uploads, 0o700); err != nil {
		t.Fatal(err)
	}
	oldFile, newFile := filepath.Join(uploads, "old.md"), filepath.Join(uploads, "new.md")
	os.WriteFile(oldFile, []byte("# Old\n\nAn old upload about invoices.\n"), 0o600)
	os.WriteFile(newFile, []byte("# New\n\nA new upload about invoices.\n"), 0o600)
	if r := runCLI(t, env, "ingest", "--index", served, oldFile, newFile); r.code != 0 {
		t.Fatalf("ingest: %d %s", r.code, r.stderr)
	}
	long := time.Now().Add(-40 * 24 * time.Hour)
	os.Chtimes(oldFile, long, long)
	r := runCLI(t, env, "gc", "--json", "--upload-days", "30")
	var out fileGC
	if err := json.Unmarshal([]byte(r.stdout), &out); r.code != 0 || err != nil || out != (fileGC{Uploads: 1}) {
		t.Fatalf("gc --upload-days 30: %d %v %+v\n%s", r.code, err, out, r.stderr)
	}
	if _, err := os.Stat(oldFile); !os.IsNotExist(err) {
		t.Errorf("the old upload is still there: %v", err)
	}
	ix, err := index.Open(context.Background(), index.PathInDir(served))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, ok, _ := ix.Document(context.Background(), oldFile); ok {
		t.Error("the old upload's document is still in the folder's cache")
	}
	if _, ok, _ := ix.Document(context.Background(), newFile); !ok {
		t.Error("the new upload's document left the folder's cache")
	}
}

// Each served index has its own upload folder: DATA_DIR/uploads for the
// default index, uploads/ID for a folder cache (its name) or an index
// elsewhere (from its path); two indexes never share one.
func TestUploadDirPerIndex(t *testing.T) {
	cache, data, other := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"XDG_CACHE_HOME": cache}
	getenv := func(k string) string { return env[k] }
	open := func(dir string) *index.Index {
		t.Helper()
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		ix, err := index.Open(context.Background(), index.PathInDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}
	def, err := index.DefaultDirIn(getenv)
	if err != nil {
		t.Fatal(err)
	}
	served, err := index.ServedCacheDirForIn(t.TempDir(), getenv)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{
		"default": uploadDir(data, open(def), getenv),
		"served":  uploadDir(data, open(served), getenv),
		"other":   uploadDir(data, open(other), getenv),
	}
	if want := filepath.Join(data, "uploads"); got["default"] != want {
		t.Errorf("default index: %s, want %s", got["default"], want)
	}
	if want := filepath.Join(data, "uploads", filepath.Base(served)); got["served"] != want {
		t.Errorf("served folder: %s, want %s", got["served"], want)
	}
	if filepath.Dir(got["other"]) != filepath.Join(data, "uploads") || got["other"] == got["served"] {
		t.Errorf("an index elsewhere: %s (served folder %s)", got["other"], got["served"])
	}
}
