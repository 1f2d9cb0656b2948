package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// index documents lists documents in path order, whatever order they were
// written in (ingest's workers write them as they finish: the golden
// index-documents.json failed when the larger file finished first).
func TestIndexDocumentsInPathOrder(t *testing.T) {
	dir := ocrFolder(t, "examples/contract/master-services-agreement.md", "examples/contract/data-processing-addendum.md")
	idx := "DOCMIND_INDEX=" + t.TempDir()
	for _, name := range []string{"master-services-agreement.md", "data-processing-addendum.md"} {
		if r := runCLI(t, []string{idx}, "ingest", filepath.Join(dir, name)); r.code != exitOK {
			t.Fatalf("ingest %s: exit %d\n%s", name, r.code, r.stderr)
		}
	}
	r := runCLI(t, []string{idx}, "index", "documents", "--json")
	var docs []struct{ Path string }
	if err := json.Unmarshal([]byte(r.stdout), &docs); err != nil || len(docs) != 2 {
		t.Fatalf("index documents --json: %v\n%s", err, r.stdout)
	}
	if filepath.Base(docs[0].Path) != "data-processing-addendum.md" {
		t.Errorf("documents listed as %s, %s: not in path order", docs[0].Path, docs[1].Path)
	}
}
