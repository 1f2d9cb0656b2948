// Package testenv locates, for tests, the repository root and the shared
// benchmark data and document fixtures that sit beside it in ../shared.
// Tests that need the shared data skip when it is absent.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot returns the folder holding go.mod, walking up from the test's
// working directory (its package folder).
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the test's folder")
		}
		dir = parent
	}
}

// SharedDir returns the shared folder: $DOCMIND_SHARED when set (for a
// checkout that does not sit beside it), else ../shared next to the
// repository. The test is skipped when the folder is absent.
func SharedDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("DOCMIND_SHARED")
	if dir == "" {
		dir = filepath.Join(RepoRoot(tb), "..", "shared")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		tb.Skipf("shared data folder %s not present", dir)
	}
	return dir
}

// SharedPath returns a path inside the shared folder, skipping the test
// when it does not exist.
func SharedPath(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{SharedDir(tb)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("%s not present", p)
	}
	return p
}
