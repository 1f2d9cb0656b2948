// Package splits holds the frozen dev/test splits of DocMind's
// development sets (README.md says how they were drawn): one JSON file
// per set listing the ids of its questions in each split, embedded in the
// binary, so that eval qa and eval evidence can run on either split
// (--split dev|test) and no rule or fit reads a test question by
// accident.
package splits

import (
	"embed"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"path"
	"sort"
	"sync"
)

// Split names a part of a set.
type Split string

// The splits. All is every question, split or not.
const (
	Dev  Split = "dev"
	Test Split = "test"
	All  Split = "all"
)

// Parse reads a split's name ("" is All).
func Parse(s string) (Split, error) {
	switch Split(s) {
	case "", All:
		return All, nil
	case Dev, Test:
		return Split(s), nil
	}
	return "", fmt.Errorf("unknown split %q (use dev, test or all)", s)
}

// TestDocument is the rule that puts whole documents in a test split: a
// document is in it when the FNV-32a hash of its file's base name is 0
// modulo 4. A question with no document (it names one the set lacks) is
// placed by the same rule on its id.
func TestDocument(name string) bool {
	h := fnv.New32a()
	h.Write([]byte(path.Base(name)))
	return h.Sum32()%4 == 0
}

// File is one set's split file.
type File struct {
	Set string `json:"set"`
	// Rule says how the split was drawn.
	Rule string `json:"rule"`
	// TestDocuments and DevDocuments are the documents of each split,
	// for the sets split by document.
	TestDocuments []string `json:"test_documents,omitempty"`
	DevDocuments  []string `json:"dev_documents,omitempty"`
	// Test and Dev are the question ids of each split.
	Test []string `json:"test"`
	Dev  []string `json:"dev"`
}

//go:embed *.json
var files embed.FS

type entry struct {
	set   string
	split Split
}

var (
	loadOnce sync.Once
	byID     map[string]entry
	sets     []File
	loadErr  error
)

func load() {
	byID = map[string]entry{}
	names, err := files.ReadDir(".")
	if err != nil {
		loadErr = err
		return
	}
	for _, n := range names {
		b, err := files.ReadFile(n.Name())
		if err != nil {
			loadErr = err
			return
		}
		var f File
		if err := json.Unmarshal(b, &f); err != nil {
			loadErr = fmt.Errorf("splits: %s: %w", n.Name(), err)
			return
		}
		for _, l := range []struct {
			ids   []string
			split Split
		}{{f.Test, Test}, {f.Dev, Dev}} {
			for _, id := range l.ids {
				if prev, dup := byID[id]; dup {
					loadErr = fmt.Errorf("splits: question %s is in %s (%s) and %s (%s)", id, prev.set, prev.split, f.Set, l.split)
					return
				}
				byID[id] = entry{f.Set, l.split}
			}
		}
		sets = append(sets, f)
	}
	sort.Slice(sets, func(i, j int) bool { return sets[i].Set < sets[j].Set })
}

// Files returns the split files, by set name.
func Files() ([]File, error) {
	loadOnce.Do(load)
	return sets, loadErr
}

// Of returns the set and split a question id is frozen in; ok is false
// for a question of no split set.
func Of(id string) (set string, split Split, ok bool, err error) {
	loadOnce.Do(load)
	if loadErr != nil {
		return "", "", false, loadErr
	}
	e, ok := byID[id]
	return e.set, e.split, ok, nil
}
