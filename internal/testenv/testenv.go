// Package testenv locates, for tests, the repository root, the shared
// benchmark data and document fixtures that sit beside it in ../shared,
// and a real llama-server named by DOCMIND_LLAMA_SERVER. Tests that need
// one of them skip when it is absent.
package testenv

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// LlamaServer returns the URL of the real llama.cpp llama-server named by
// DOCMIND_LLAMA_SERVER (e.g. http://127.0.0.1:40123, as
// scripts/llama-server.sh start prints it), without a trailing slash. The
// test is skipped when the variable is unset (it fails instead with
// CI_REQUIRE_LLAMA=1: CI starts a server and must not skip silently), and
// fails when the server does not answer GET /health with 200: a server
// that was asked for must be there.
func LlamaServer(tb testing.TB) string {
	tb.Helper()
	u := strings.TrimRight(strings.TrimSpace(os.Getenv("DOCMIND_LLAMA_SERVER")), "/")
	if u == "" {
		if os.Getenv("CI_REQUIRE_LLAMA") == "1" {
			tb.Fatal("DOCMIND_LLAMA_SERVER is not set and CI_REQUIRE_LLAMA=1 (scripts/llama-server.sh build, then start, and export the URL it prints)")
		}
		tb.Skip("DOCMIND_LLAMA_SERVER is not set (a real llama-server: scripts/llama-server.sh build, then start, and export the URL it prints)")
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(u + "/health")
	if err != nil {
		tb.Fatalf("DOCMIND_LLAMA_SERVER=%s: %v", u, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("DOCMIND_LLAMA_SERVER=%s: GET /health answered %s", u, resp.Status)
	}
	return u
}

// LongEnv names the environment variable that runs the long tests: set
// to 1, Long lets them run.
const LongEnv = "DOCMIND_LONG_TESTS"

// Long skips tb unless DOCMIND_LONG_TESTS=1. It marks a test that takes
// tens of seconds or more on a two-core machine (a sweep over a benchmark
// set, a file of tens of MiB): go test ./... stays quick, and .ci/run
// runs these tests in a step of their own, with the variable set.
func Long(tb testing.TB, what string) {
	tb.Helper()
	if os.Getenv(LongEnv) != "1" {
		tb.Skipf("long test (%s): set %s=1 to run it (.ci/run does)", what, LongEnv)
	}
}
