//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// checkPrivate fails unless every folder at or under dir is 0700 and every
// file 0600.
func checkPrivate(t *testing.T, dir string) {
	t.Helper()
	n := 0
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %#o, want %#o", p, got, want)
		}
		n++
		return nil
	})
	if err != nil || n < 2 {
		t.Fatalf("walk %s: %v (%d entries)", dir, err, n)
	}
}

// The index, the per-folder cache and the run database are private: files
// 0600 in folders 0700 (the folders DocMind creates), including SQLite's
// -wal and -shm files; folder names holding '?', '#' or '%' work.
func TestDataFilesArePrivate(t *testing.T) {
	base := t.TempDir()
	ixDir := filepath.Join(base, "index", "a?b#c%d")
	r := runCLITimeout(t, time.Minute, nil, "ingest", "--index", ixDir, "examples/contract")
	if r.code != 0 {
		t.Fatalf("ingest: exit %d\n%s", r.code, r.stderr)
	}
	checkPrivate(t, filepath.Join(base, "index"))

	cache, data := filepath.Join(base, "cache"), filepath.Join(base, "state?#%25")
	r = runCLITimeout(t, 2*time.Minute, []string{"XDG_CACHE_HOME=" + cache}, "ask", "--docs", "examples/contract", "--thread", "t1", "--data-dir", data, "What are the late payment penalties?")
	if r.code != 0 {
		t.Fatalf("ask: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "runs.db")); err != nil {
		t.Fatal(err)
	}
	checkPrivate(t, filepath.Join(cache, "docmind", "folders"))
	checkPrivate(t, data)
}

// A symbolic link out of the --docs folder or the ingested folder is
// skipped with a reason; --follow-symlinks reads it; a later run without
// the flag no longer answers from it.
func TestSymlinksOutOfFolderSkipped(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fees.md"), []byte("# Fees\n\nThe monthly fee is 400 euros, payable in advance.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(elsewhere, "passwords.md")
	if err := os.WriteFile(secret, []byte("# Vault\n\nThe vault combination is zanzibar quokka.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "notes.md")); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CACHE_HOME=" + t.TempDir()}
	q := "What is the vault combination?"
	cites := func(r result) bool {
		t.Helper()
		if r.code != 0 && r.code != exitFallback {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		for _, s := range decodeState(t, r.stdout).RetrievedSections {
			if strings.HasSuffix(s.Source, "notes.md") || strings.Contains(s.Content, "zanzibar") {
				return true
			}
		}
		return false
	}
	reason := "skipped " + filepath.Join(dir, "notes.md") + ": symbolic link to " + secret + ", outside the folder"

	r := runCLITimeout(t, time.Minute, env, "-v", "ask", "--docs", dir, "--json", q)
	if cites(r) {
		t.Error("ask --docs read a link out of the folder")
	}
	if !strings.Contains(r.stderr, reason) {
		t.Errorf("stderr does not say why notes.md was skipped (%q):\n%s", reason, r.stderr)
	}
	if r = runCLITimeout(t, time.Minute, env, "ask", "--docs", dir, "--follow-symlinks", "--json", q); !cites(r) {
		t.Errorf("ask --docs --follow-symlinks did not read the link:\n%s", r.stdout)
	}
	if r = runCLITimeout(t, time.Minute, env, "ask", "--docs", dir, "--json", q); cites(r) {
		t.Error("after --follow-symlinks, a run without it still answers from the link (cached index)")
	}

	ixDir := t.TempDir()
	r = runCLITimeout(t, time.Minute, nil, "ingest", "--index", ixDir, dir)
	if r.code != 0 || !strings.Contains(r.stdout, "1 indexed, 0 unchanged, 1 skipped") || !strings.Contains(r.stdout, reason) {
		t.Errorf("ingest: exit %d, want 1 indexed and notes.md skipped (%q):\n%s%s", r.code, reason, r.stdout, r.stderr)
	}
	r = runCLITimeout(t, time.Minute, nil, "ingest", "--follow-symlinks", "--index", ixDir, dir)
	if r.code != 0 || !strings.Contains(r.stdout, "1 indexed, 1 unchanged, 0 skipped") {
		t.Errorf("ingest --follow-symlinks: exit %d, want notes.md indexed:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
