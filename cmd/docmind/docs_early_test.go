package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind/internal/testenv"
)

// ask --docs on a folder not read before answers a question that names
// one of its documents as soon as that document is read, from the
// documents read so far, and says so in one line; the answer comes from
// the document named.
func TestAskDocsAnswersFromTheDocumentsReadSoFar(t *testing.T) {
	src := testenv.SharedPath(t, "fixtures", "filings")
	testenv.Long(t, "reads some of the ten filings")
	if raceEnabled {
		t.Skip("PDFium under the race detector is too slow for a folder of filings")
	}
	files, err := filepath.Glob(filepath.Join(src, "*.pdf"))
	if err != nil || len(files) < 3 {
		t.Skip("fewer than three filings")
	}
	// a folder no earlier run has read (the index cache is per folder)
	dir := t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runCLITimeout(t, 5*time.Minute, nil, "ask", "--docs", dir, "--json", "What were Apple's total net sales in fiscal 2022?")
	if r.code != exitOK && r.code != exitFallback {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	m := regexp.MustCompile(`(?m)^docmind: answered from (\d+) of (\d+) documents read so far; the question names (\S+), which is read; the others are read on the next run$`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no line saying the answer comes from the documents read so far:\n%s", r.stderr)
	}
	read, _ := strconv.Atoi(m[1])
	if total, _ := strconv.Atoi(m[2]); read < 1 || read >= total || total != len(files) {
		t.Errorf("answered from %d of %d documents; want some of the %d", read, total, len(files))
	}
	if !strings.Contains(m[3], "2022") {
		t.Errorf("the question names %s; want the 2022 filing", m[3])
	}
	st := decodeState(t, r.stdout)
	if len(st.RetrievedSections) == 0 || !strings.Contains(st.RetrievedSections[0].Source, m[3]) {
		t.Errorf("the passages do not come from %s: %+v", m[3], st.RetrievedSections)
	}
}
