package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"

	"github.com/docmind/docmind/internal/testenv"
)

// The CLI tests run the real command as a user would, with a clean
// environment (no LLM keys: offline mode). Without the race detector the
// command is this test binary itself, run through a link named docmind
// (TestMain runs main when called by that name): nothing is compiled or
// linked beyond the test binary. Under the race detector the command is
// built once, without it (CGO_ENABLED=0, as CI's static build, which
// leaves the packages in the build cache): a race-instrumented command
// is several times slower in every one of the tests' runs.

var binPath string

func TestMain(m *testing.M) {
	if name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe"); name == "docmind" {
		main() // exits
	}
	dir, err := os.MkdirTemp("", "docmind-cli-test")
	if err != nil {
		panic(err)
	}
	binPath = filepath.Join(dir, "docmind")
	if runtime.GOOS == "windows" {
		binPath += ".exe"
	}
	if err := commandBinary(binPath); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// commandBinary puts the docmind command at path: a link to this test
// binary, or under the race detector (or where links cannot be made) a
// build of the command.
func commandBinary(path string) error {
	if !raceEnabled {
		self, err := os.Executable()
		if err == nil && os.Symlink(self, path) == nil {
			return nil
		}
	}
	build := exec.Command("go", "build", "-o", path, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	return nil
}

type result struct {
	stdout, stderr string
	code           int
}

// runCLI runs the built command in the repository root with an
// environment free of LLM configuration.
func runCLI(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return runCLIInput(t, env, "", args...)
}

// runCLIInput is runCLI with stdin.
func runCLIInput(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Dir = testenv.RepoRoot(t)
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "XDG_CACHE_HOME=" + cacheDir(t)}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running docmind: %v", err)
	}
	return result{so.String(), se.String(), code}
}

// cacheDir is shared by the tests so that caches (e.g. compiled wasm) are
// reused within one test run.
func cacheDir(t *testing.T) string {
	d := filepath.Join(os.TempDir(), "docmind-cli-test-cache")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

func decodeState(t *testing.T, out string) *schema.State {
	t.Helper()
	var st schema.State
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("stdout is not one JSON state: %v\n%s", err, out)
	}
	return &st
}

// assertOneLineError checks that stderr is a short error, not a stack trace.
func assertOneLineError(t *testing.T, r result, want string) {
	t.Helper()
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
		t.Fatalf("stderr shows a crash:\n%s", r.stderr)
	}
	first := strings.SplitN(strings.TrimSpace(r.stderr), "\n", 2)[0]
	if !strings.HasPrefix(first, "docmind: ") || !strings.Contains(first, want) {
		t.Fatalf("stderr first line = %q, want a 'docmind: ...%s...' line; full stderr:\n%s", first, want, r.stderr)
	}
	if n := len(strings.Split(strings.TrimSpace(r.stderr), "\n")); n > 2 {
		t.Errorf("stderr has %d lines, want at most an error and a usage hint:\n%s", n, r.stderr)
	}
}

func TestAskLatePaymentJSON(t *testing.T) {
	r := runCLI(t, nil, "ask", "--docs", "examples/contract", "--json", "What are the late payment penalties?")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	st := decodeState(t, r.stdout)
	if want := []string{"decompose", "retrieve", "generate", "judge", "output"}; !reflect.DeepEqual(st.NodeHistory, want) {
		t.Errorf("node_history = %v, want %v", st.NodeHistory, want)
	}
	for _, s := range []string{"1.5%", "page 8", "thirty (30) days", "Late Payment Penalties"} {
		if !strings.Contains(st.Answer(), s) {
			t.Errorf("final_output lacks %q: %s", s, st.Answer())
		}
	}
	if st.RetryCount != 0 || st.JudgeVerdict == nil || st.JudgeVerdict.IsHallucinated {
		t.Errorf("retry_count %d verdict %+v", st.RetryCount, st.JudgeVerdict)
	}
	// The seed field names are the contract.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"query", "decomposition", "retrieved_sections", "generated_response", "judge_verdict", "final_output", "retry_count", "node_history"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("JSON lacks field %q", k)
		}
	}
}

func TestAskWarrantyFallsBack(t *testing.T) {
	r := runCLI(t, nil, "ask", "--docs", "examples/contract", "--json", "What is the warranty period?")
	if r.code != exitFallback {
		t.Fatalf("exit %d, want %d; stderr:\n%s\nstdout:\n%s", r.code, exitFallback, r.stderr, r.stdout)
	}
	st := decodeState(t, r.stdout)
	want := []string{"decompose", "retrieve", "generate", "judge", "retrieve", "generate", "judge", "output"}
	if !reflect.DeepEqual(st.NodeHistory, want) {
		t.Errorf("node_history = %v, want %v", st.NodeHistory, want)
	}
	if st.RetryCount != 2 || st.Answer() != schema.FallbackMessage {
		t.Errorf("retry_count %d final_output %q", st.RetryCount, st.Answer())
	}
}

func TestAskHumanOutput(t *testing.T) {
	r := runCLI(t, nil, "ask", "--docs", "examples/contract", "What are the late payment penalties?")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, s := range []string{"1.5% per month", "Sources:", "Verdict: grounded", "Path: decompose → retrieve → generate → judge → output"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("output lacks %q:\n%s", s, r.stdout)
		}
	}
}

func TestAskMaxRetriesFlag(t *testing.T) {
	r := runCLI(t, nil, "ask", "--docs", "examples/contract", "--json", "--max-retries", "0", "What is the warranty period?")
	if r.code != exitFallback {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if st := decodeState(t, r.stdout); len(st.NodeHistory) != 5 || st.RetryCount != 1 {
		t.Errorf("history %v retry_count %d", st.NodeHistory, st.RetryCount)
	}
}

func TestAskBadInput(t *testing.T) {
	empty := t.TempDir()
	binary := t.TempDir()
	if err := os.WriteFile(filepath.Join(binary, "notes.txt"), []byte("\x00\x01\x02\x03binary\x00\xff\xfe"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"empty question", []string{"ask", "--docs", "examples/contract", "   "}, exitUsage, "question"},
		{"no question", []string{"ask", "--docs", "examples/contract"}, exitUsage, "question"},
		{"unknown flag", []string{"ask", "--bogus", "q"}, exitUsage, "bogus"},
		{"bad retries", []string{"ask", "--docs", "examples/contract", "--max-retries", "-1", "q?"}, exitUsage, "max-retries"},
		{"missing folder", []string{"ask", "--docs", "no/such/dir", "q?"}, exitError, "no/such/dir"},
		{"empty folder", []string{"ask", "--docs", empty, "q?"}, exitError, "no documents"},
		{"binary only", []string{"ask", "--docs", binary, "q?"}, exitError, "notes.txt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, nil, c.args...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, c.code, r.stderr)
			}
			assertOneLineError(t, r, c.want)
			// the hint names the command once: "docmind index --help"
			if strings.Contains(r.stderr, "docmind docmind") {
				t.Errorf("the usage hint names docmind twice:\n%s", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout should be empty on error, got:\n%s", r.stdout)
			}
		})
	}
}

// A command line that calls no command, or calls one the wrong way in a
// way cobra itself detects (an unknown subcommand, a stray argument, two
// exclusive flags, an unknown help topic), is a usage error: exit 2 and
// one line naming the mistake. Cobra printed a group's help and exited 0
// for an unknown subcommand of index, runs or eval, printed "Unknown help
// topic" and exited 0 for docmind help bogus, and exited 1 for the others.
func TestUsageErrorsCobraDetects(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, `unknown command "bogus" for "docmind"`},
		{[]string{"--bogus"}, "unknown flag: --bogus"},
		{[]string{"index", "stat"}, `unknown command "stat" for "docmind index"`},
		{[]string{"runs", "-v", "list"}, `unknown command "list" for "docmind runs"`},
		{[]string{"eval", "bogus", "--json"}, `unknown command "bogus" for "docmind eval"`},
		{[]string{"completion", "tcsh"}, `unknown command "tcsh" for "docmind completion"`},
		{[]string{"rules", "extra"}, "rules expects no arguments"},
		{[]string{"rules", "--json", "--markdown"}, "--json and --markdown cannot be used together"},
		{[]string{"eval", "rules", "extra"}, "rules expects no arguments"},
		{[]string{"eval", "calibrate"}, "calibrate expects at least one REPORT.json"},
		{[]string{"help", "bogus"}, `unknown help topic "bogus"`},
		{[]string{"help", "-v", "index", "stat"}, `unknown help topic "index stat"`},
		{[]string{"eval", "rules", "--sets", "contracts"}, `--sets: no set "contracts" (use contract, contract-heldout,`},
		{[]string{"eval", "rules", "--sets", "contract", "--every", "contrct=2"}, `--every: no set "contrct"`},
		{[]string{"eval", "rules", "--rules", "bogus"}, `--rules: no rule "bogus" (docmind rules lists them)`},
		{[]string{"eval", "rules", "--sets", "contract", "--rules", "period.unstated", "--off", "bogus"}, `--off: no rule "bogus" (docmind rules lists them)`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := runCLI(t, nil, c.args...)
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", r.code, exitUsage, r.stdout, r.stderr)
			}
			assertOneLineError(t, r, c.want)
			// the hint names the command once: "docmind index --help"
			if strings.Contains(r.stderr, "docmind docmind") {
				t.Errorf("the usage hint names docmind twice:\n%s", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout should be empty on a usage error, got:\n%s", r.stdout)
			}
		})
	}
	// A group alone, or with --help, still shows its help; shell
	// completion still works.
	for _, args := range [][]string{{"index"}, {"runs", "--help"}, {"eval", "bogus", "-h"}, {"help", "index"}, {"help"}, {"help", "runs", "ls"}, {"__complete", "index", ""}} {
		r := runCLI(t, nil, args...)
		if r.code != exitOK || r.stdout == "" {
			t.Errorf("docmind %s: exit %d, stdout %q, stderr %q; want its help (or completions) and exit 0", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
}

// A negative count or number of days is a usage error (exit 2, one line
// naming the flag): runs ls --limit -3 listed every run and gc --max-runs
// -3 kept every run, as if the flag were 0. gc --keep-runs keeps its
// documented meaning for a negative value (every step of every run).
func TestNegativeCountsAreUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"runs", "ls", "--limit", "-3"},
		{"gc", "--max-runs", "-3"},
		{"gc", "--cache-days", "-1"},
		{"gc", "--upload-days", "-1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := runCLI(t, []string{"XDG_CACHE_HOME=" + t.TempDir()}, args...)
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", r.code, exitUsage, r.stdout, r.stderr)
			}
			assertOneLineError(t, r, args[len(args)-2])
			if r.stdout != "" {
				t.Errorf("stdout should be empty on a usage error, got:\n%s", r.stdout)
			}
		})
	}
	for _, args := range [][]string{{"runs", "ls", "--limit", "0", "--json"}, {"gc", "--keep-runs", "-1", "--max-runs", "0", "--json"}} {
		// a cache folder of its own: gc deletes old caches there
		if r := runCLI(t, []string{"XDG_CACHE_HOME=" + t.TempDir()}, args...); r.code != exitOK {
			t.Errorf("docmind %s: exit %d, stderr %q; want exit 0", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

func TestOfflineNoticeOnStderr(t *testing.T) {
	r := runCLI(t, nil, "ask", "--docs", "examples/contract", "--json", "What are the late payment penalties?")
	if !strings.Contains(r.stderr, "offline") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("want one stderr line saying offline mode, got:\n%s", r.stderr)
	}
}

// The exit codes in --help say how to finish a run waiting for review
// with a command that exists: docmind resume, not "runs resume" (which
// is no command: it printed the runs help and exited 0).
func TestHelpReviewExitNamesTheResumeCommand(t *testing.T) {
	r := runInProcess(t, nil, "--help")
	help := strings.Join(strings.Fields(r.stdout), " ")
	_, review, ok := strings.Cut(help, "4 waiting for review (")
	if !ok {
		t.Fatalf("--help has no exit code 4:\n%s", r.stdout)
	}
	review, _, _ = strings.Cut(review, ")")
	if !strings.Contains(review, "docmind resume RUN --approve or --reject") {
		t.Errorf("exit code 4 in --help says %q, want it to name docmind resume RUN --approve or --reject", review)
	}
	root := (&app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}).rootCmd()
	for _, m := range regexp.MustCompile(`docmind ([a-z]+(?: [a-z]+)?)`).FindAllStringSubmatch(help, -1) {
		words := strings.Fields(m[1])
		c, rest, err := root.Find(words)
		if err != nil || c == root || (len(rest) > 0 && c.HasSubCommands()) {
			t.Errorf("--help names %q, which is no docmind command", "docmind "+m[1])
		}
	}
}

// --help lists every exit code the command uses, 4 (waiting for review)
// included.
func TestHelpListsExitCodes(t *testing.T) {
	r := runCLI(t, nil, "--help")
	for code, what := range map[int]string{exitOK: "0 answered", exitError: "1 error", exitUsage: "2 usage error", exitFallback: "3 no confident answer", exitReview: "4 waiting for review"} {
		if !strings.Contains(r.stdout+r.stderr, what) {
			t.Errorf("--help does not list exit code %d (%q):\n%s", code, what, r.stdout)
		}
	}
}

// docmind --version prints one line naming the build, and exits 0.
func TestVersionFlag(t *testing.T) {
	r := runCLI(t, nil, "--version")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "docmind ") || strings.Count(r.stdout, "\n") != 1 || r.stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want one line \"docmind VERSION\"", r.code, r.stdout, r.stderr)
	}
}
