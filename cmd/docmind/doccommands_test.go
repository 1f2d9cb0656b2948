package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/docmind/docmind/internal/testenv"
)

// goCommand matches a go command in the docs up to the end of its code
// span or line, with the folder a "cd DIR &&" before it moves to.
var goCommand = regexp.MustCompile("(?:cd ([A-Za-z0-9_./-]+) && )?go (?:test|run|build|generate)[^`|\n]*")

// The go commands that README.md, BENCHMARKS.md and the pages of docs/
// give name packages that exist: after eval moved to internal/eval,
// BENCHMARKS.md still said go test ./eval.
func TestDocsGoCommandsNameExistingPackages(t *testing.T) {
	root := testenv.RepoRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{"README.md", "BENCHMARKS.md"}
	for _, p := range pages {
		docs = append(docs, filepath.Join("docs", filepath.Base(p)))
	}
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range goCommand.FindAllStringSubmatch(string(b), -1) {
			for _, arg := range strings.Fields(m[0]) {
				if !strings.HasPrefix(arg, "./") || strings.Contains(arg, "...") {
					continue
				}
				if _, err := os.Stat(filepath.Join(root, m[1], arg)); err != nil {
					t.Errorf("%s: %q names %s, which does not exist", doc, m[0], arg)
				}
			}
		}
	}
}
