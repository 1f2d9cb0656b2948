package splits

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/docmind/docmind/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the split files from the sets (only when the sets themselves changed: see README.md)")

// frozen pins every split file: a split changed without this table
// changing with it fails here. Change both only when a set gained or lost
// questions, never to move a question between splits.
var frozen = map[string]string{
	"contract.json": "90122e89e7efe55c8849bfbf48e9070815db6e72212f2dbdb90e587b86b1d2e2",
	"cuad.json":     "193de2869844821f583827bab4ee64d5ece74602a8312379e967abe4eb0e2252",
	"filings.json":  "00e3513c2b31e28216767747bf73c15acff72a5f04d46983ca1677790f664c1a",
	"policyqa.json": "0d455d196b96b3cbfda89195c0dae6a51f51614cdf6a66244eb5cd0fb16dd9fc",
	"squad2.json":   "2643db5c69ed90ea4ec29e17f590cf4b25126a4aab252cb0618c34104005e443",
}

const (
	docRule      = "whole documents: a document is in test when FNV-32a(its file's base name) mod 4 == 0; a question naming no document of the set by the same rule on its id"
	squadRule    = "every 8th question of qa.jsonl, the first included (awk 'NR%8==1')"
	contractRule = "contract.jsonl is dev, contract_heldout.jsonl (the held-out set) is test"
)

type qaLine struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	File   string `json:"file"`
}

func readLines(t *testing.T, path string) []qaLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []qaLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var l qaLine
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// byDocument splits a set's questions by their document: the row's
// source, else the gold row's file (gold may be empty), else none.
func byDocument(t *testing.T, set, qa, gold string) File {
	t.Helper()
	files := map[string]string{}
	if gold != "" {
		for _, g := range readLines(t, gold) {
			files[g.ID] = g.File
		}
	}
	f := File{Set: set, Rule: docRule, Test: []string{}, Dev: []string{}}
	docs := map[string]bool{}
	for _, r := range readLines(t, qa) {
		doc := r.Source
		if doc == "" {
			doc = files[r.ID]
		}
		key := r.ID
		if doc != "" {
			docs[doc] = true
			key = doc
		}
		if TestDocument(key) {
			f.Test = append(f.Test, r.ID)
		} else {
			f.Dev = append(f.Dev, r.ID)
		}
	}
	for d := range docs {
		if TestDocument(d) {
			f.TestDocuments = append(f.TestDocuments, d)
		} else {
			f.DevDocuments = append(f.DevDocuments, d)
		}
	}
	sort.Strings(f.TestDocuments)
	sort.Strings(f.DevDocuments)
	return f
}

func ids(t *testing.T, path string) []string {
	var out []string
	for _, r := range readLines(t, path) {
		out = append(out, r.ID)
	}
	return out
}

// generate draws every split from the sets by the rules.
func generate(t *testing.T) map[string]File {
	repo := testenv.RepoRoot(t)
	data := testenv.SharedPath(t, "data")
	qa := filepath.Join(repo, "internal", "eval", "testdata", "qa")
	out := map[string]File{
		"contract.json": {Set: "contract", Rule: contractRule, Test: ids(t, filepath.Join(qa, "contract_heldout.jsonl")), Dev: ids(t, filepath.Join(qa, "contract.jsonl"))},
		"cuad.json":     byDocument(t, "cuad", filepath.Join(data, "cuad", "qa.jsonl"), filepath.Join(data, "cuad", "gold.jsonl")),
		"policyqa.json": byDocument(t, "policyqa", filepath.Join(data, "policyqa", "qa.jsonl"), filepath.Join(data, "policyqa", "gold.jsonl")),
		"filings.json":  byDocument(t, "filings", filepath.Join(data, "filings", "qa.jsonl"), ""),
	}
	sq := File{Set: "squad2", Rule: squadRule, Test: []string{}, Dev: []string{}}
	for i, id := range ids(t, filepath.Join(data, "squad2", "qa.jsonl")) {
		if i%8 == 0 {
			sq.Test = append(sq.Test, id)
		} else {
			sq.Dev = append(sq.Dev, id)
		}
	}
	out["squad2.json"] = sq
	return out
}

func encode(t *testing.T, f File) []byte {
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// The split files are what the rules draw from the sets today (checked
// when ../shared/data is present), and they are the files this test pins
// (always checked): a split cannot change silently.
func TestSplitsFollowTheRulesAndAreFrozen(t *testing.T) {
	t.Run("rules", func(t *testing.T) {
		for name, f := range generate(t) {
			want := encode(t, f)
			if *update {
				if err := os.WriteFile(name, want, 0o644); err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(want)
				t.Logf("%s: %d test, %d dev; sha256 %s", name, len(f.Test), len(f.Dev), hex.EncodeToString(sum[:]))
				continue
			}
			got, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from what the rule draws from the set today: the set changed, or the file was edited (README.md)", name)
			}
		}
	})
	for name, want := range frozen {
		b, err := files.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s changed (sha256 %s, frozen %s): a frozen split moves only when its set changes; see README.md", name, got, want)
		}
	}
	names, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, ok := frozen[n.Name()]; !ok {
			t.Errorf("%s is not pinned in frozen", n.Name())
		}
	}
}

// Every question of a split set is in exactly one split; the document
// sets have whole documents on each side and a test split that is
// neither empty nor most of the set.
func TestSplitsShape(t *testing.T) {
	fs, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != len(frozen) {
		t.Fatalf("%d split files, want %d", len(fs), len(frozen))
	}
	for _, f := range fs {
		n := len(f.Test) + len(f.Dev)
		if len(f.Test) == 0 || len(f.Test)*2 > n {
			t.Errorf("%s: %d test questions of %d", f.Set, len(f.Test), n)
		}
		for _, d := range f.TestDocuments {
			if slices.Contains(f.DevDocuments, d) || !TestDocument(d) {
				t.Errorf("%s: document %s on the wrong side", f.Set, d)
			}
		}
		for _, id := range f.Test[:1] {
			if set, split, ok, err := Of(id); err != nil || !ok || set != f.Set || split != Test {
				t.Errorf("Of(%s) = %s %s %v %v", id, set, split, ok, err)
			}
		}
	}
	if _, _, ok, err := Of("no-such-question"); ok || err != nil {
		t.Errorf("Of(unknown) = %v %v", ok, err)
	}
	for _, s := range []string{"", "all", "dev", "test"} {
		if _, err := Parse(s); err != nil {
			t.Errorf("Parse(%q): %v", s, err)
		}
	}
	if _, err := Parse("train"); err == nil {
		t.Error("Parse(train): no error")
	}
}
