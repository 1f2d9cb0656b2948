package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/internal/testenv"
)

func TestIngestThenAskFromIndex(t *testing.T) {
	env := []string{"DOCMIND_INDEX=" + t.TempDir()}
	r := runCLI(t, env, "ingest", "--json", "examples/contract")
	if r.code != exitOK {
		t.Fatalf("ingest exit %d: %s", r.code, r.stderr)
	}
	var sum struct {
		Indexed, Unchanged, Skipped, Sections int
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("ingest --json: %v\n%s", err, r.stdout)
	}
	if sum.Indexed != 2 || sum.Sections == 0 {
		t.Fatalf("summary %+v", sum)
	}
	// The documented shape: snake_case, the duration in milliseconds.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"indexed", "unchanged", "skipped", "removed", "sections", "pages", "bytes", "duration_ms", "results", "ocr_pages", "needs_ocr", "pages_per_s", "peak_rss_bytes"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("ingest --json has no %q: %s", k, r.stdout)
		}
	}
	if len(raw) != 13 {
		t.Errorf("ingest --json has %d fields, want the 13 documented: %s", len(raw), r.stdout)
	}
	if r.stderr != "" {
		t.Errorf("ingest --json wrote to stderr:\n%s", r.stderr)
	}
	// Re-ingesting unchanged files is a no-op. Without a terminal, each
	// file gets a line on stderr as it is done.
	r = runCLI(t, env, "ingest", "examples/contract")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "0 indexed, 2 unchanged, 0 skipped") {
		t.Fatalf("re-ingest exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "\npeak memory (RSS) ") || strings.Contains(r.stdout, "pages/s") {
		t.Errorf("re-ingest summary: want the peak memory and no rate (no page read):\n%s", r.stdout)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 2 {
		t.Fatalf("ingest without a terminal printed %d lines on stderr, want one per file:\n%s", len(lines), r.stderr)
	}
	for i, l := range lines {
		if want := fmt.Sprintf("[%d/2] unchanged ", i+1); !strings.HasPrefix(l, want) || !strings.Contains(l, "examples/contract/") || !strings.HasSuffix(l, " sections") {
			t.Errorf("line %d = %q, want %q, the file and its sections", i+1, l, want)
		}
	}
	r = runCLI(t, env, "index", "stats", "--json")
	var st struct{ Documents, Sections, Pages int }
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &st) != nil || st.Documents != 2 || st.Pages != 15 {
		t.Fatalf("index stats exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, env, "ask", "--json", "What are the late payment penalties?")
	if r.code != exitOK {
		t.Fatalf("ask from the index: exit %d: %s", r.code, r.stderr)
	}
	if s := decodeState(t, r.stdout); !strings.Contains(s.Answer(), "1.5%") || !strings.Contains(s.Answer(), "page 8") {
		t.Errorf("answer from the index: %q", s.Answer())
	}
	r = runCLI(t, env, "ask", "--json", "What is the warranty period?")
	if r.code != exitFallback {
		t.Errorf("warranty from the index: exit %d", r.code)
	}
}

func TestAskWithoutIndexOrDocs(t *testing.T) {
	r := runCLI(t, []string{"DOCMIND_INDEX=" + t.TempDir()}, "ask", "What is the notice period?")
	if r.code != exitError {
		t.Fatalf("exit %d", r.code)
	}
	assertOneLineError(t, r, "docmind ingest")
}

func TestIngestReportsBadFilesAndKeepsGoodOnes(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("policy.md", []byte("# Leave Policy\n\nEmployees receive twenty-five (25) days of paid leave per year.\n"))
	write("empty.txt", nil)
	write("image.txt", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"))
	write("broken.pdf", []byte("%PDF-1.7\n1 0 obj << /Type /Catalog"))
	env := []string{"DOCMIND_INDEX=" + t.TempDir()}
	r := runCLI(t, env, "ingest", dir)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "1 indexed, 0 unchanged, 3 skipped") {
		t.Errorf("summary:\n%s", r.stdout)
	}
	for _, name := range []string{"empty.txt", "image.txt", "broken.pdf"} {
		if !strings.Contains(r.stdout, "skipped "+filepath.Join(dir, name)+": ") {
			t.Errorf("%s not reported with a reason:\n%s", name, r.stdout)
		}
	}
	r = runCLI(t, env, "ask", "How many days of paid leave do employees receive per year?")
	if r.code != exitOK || !strings.Contains(r.stdout, "twenty-five (25) days") {
		t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	// only bad files: the summary with the reasons, then one error line
	// and exit 1 (as ask --docs on such a folder)
	for _, args := range [][]string{{"ingest", filepath.Join(dir, "broken.pdf")}, {"ingest", "--json", filepath.Join(dir, "empty.txt"), filepath.Join(dir, "image.txt")}} {
		r = runCLI(t, env, args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != exitError || !strings.Contains(r.stdout, "skipped") || strings.Count(r.stderr, "docmind: ") != 1 || !strings.HasPrefix(lines[len(lines)-1], "docmind: nothing indexed: ") {
			t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestIngestSharedFixtures(t *testing.T) {
	fixtures := testenv.SharedPath(t, "fixtures", "docs")
	env := []string{"DOCMIND_INDEX=" + t.TempDir()}
	r := runCLI(t, env, "ingest", "--json", fixtures)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var sum struct {
		Indexed int
		Results []struct{ Path, Status, Reason string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, res := range sum.Results {
		if res.Status == "skipped" {
			reasons[filepath.Base(res.Path)] = res.Reason
		}
	}
	for name, want := range map[string]string{
		"enc_userpw.pdf": "encrypted", "garbage.pdf": "damaged", "trunc60.pdf": "damaged", "empty.pdf": "empty",
	} {
		if !strings.Contains(reasons[name], want) {
			t.Errorf("%s: reason %q, want one mentioning %q", name, reasons[name], want)
		}
	}
	for _, good := range []string{"contract.pdf", "contract.docx", "enc_ownerpw_only.pdf", "handbook.html"} {
		if _, skipped := reasons[good]; skipped {
			t.Errorf("%s was skipped: %s", good, reasons[good])
		}
	}
	if sum.Indexed < 20 {
		t.Errorf("only %d files indexed", sum.Indexed)
	}
	r = runCLI(t, env, "ask", "--json", "What is the interest on overdue amounts?")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if s := decodeState(t, r.stdout); !strings.Contains(s.Answer(), "1.5%") || !strings.Contains(s.Answer(), "page 8") {
		t.Errorf("answer: %q", s.Answer())
	}
}

// The older and other word processors' files a folder of contracts and
// policies holds: a Word 97-2003 .doc, an RTF and an OpenDocument text
// (LibreOffice wrote each from the shared fixtures' Word documents) are
// indexed and answer questions; a legacy .xls is skipped with a reason
// that says what to do.
func TestIngestDocRTFAndODT(t *testing.T) {
	repo := testenv.RepoRoot(t)
	dir := t.TempDir()
	for src, name := range map[string]string{
		"formats/doc/testdata/contract.doc": "msa.doc",
		"formats/rtf/testdata/handbook.rtf": "travel.rtf",
		"formats/odt/testdata/policy.odt":   "security.odt",
		"formats/doc/testdata/sheet.xls":    "budget.xls",
	} {
		b, err := os.ReadFile(filepath.Join(repo, src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"DOCMIND_INDEX=" + t.TempDir()}
	r := runCLI(t, env, "ingest", "--json", dir)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var sum struct {
		Results []struct{ Path, Status, Reason, Format string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, res := range sum.Results {
		got[filepath.Base(res.Path)] = res.Status + " " + res.Format + " " + res.Reason
	}
	for name, want := range map[string]string{"msa.doc": "indexed doc", "travel.rtf": "indexed rtf", "security.odt": "indexed odt"} {
		if strings.TrimSpace(got[name]) != want {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
	if !strings.HasPrefix(got["budget.xls"], "skipped") || !strings.Contains(got["budget.xls"], "save it as .xlsx") {
		t.Errorf("budget.xls: %q", got["budget.xls"])
	}
	for q, want := range map[string]string{
		"How far in advance must flights be booked?":                 "travel.rtf",
		"How long do the obligations survive termination or expiry?": "msa.doc",
	} {
		r = runCLI(t, env, "ask", q)
		if !strings.Contains(r.stdout, want) {
			t.Errorf("%s: exit %d, no source %s:\n%s%s", q, r.code, want, r.stdout, r.stderr)
		}
	}
}
