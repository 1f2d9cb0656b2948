package wordlists

import (
	"slices"
	"testing"
)

func TestEveryListLoads(t *testing.T) {
	entries, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 6 {
		t.Fatalf("%d lists embedded", len(entries))
	}
	for _, e := range entries {
		name := e.Name()[:len(e.Name())-len(".txt")]
		ws := Words(name)
		// the short lists are closed classes: "before after excluding
		// …", "pro forma / non gaap / constant currency"
		least := 10
		if name == "complement_markers" || name == "other_basis" {
			least = 3
		}
		if len(ws) < least {
			t.Errorf("%s: %d words", name, len(ws))
		}
		for _, w := range ws {
			if w[0] == '#' {
				t.Errorf("%s: comment read as a word: %q", name, w)
			}
		}
	}
}

func TestCommentsAndBlankLinesSkipped(t *testing.T) {
	lines := Lines("thesaurus")
	if lines[0] != "pay, payment, paid, remit, remittance, disburse" {
		t.Errorf("first thesaurus group = %q", lines[0])
	}
	for _, l := range lines {
		if l == "" || l[0] == '#' {
			t.Errorf("line %q kept", l)
		}
	}
	if !slices.Contains(Words("stop"), "the") || slices.Contains(Words("stop"), "English") {
		t.Error("stop words: want 'the', not the header's words")
	}
}

func TestUnknownListPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for an unknown list")
		}
	}()
	Text("no-such-list")
}

func TestSet(t *testing.T) {
	s := Set("a b\n c", "d", "", "a")
	if len(s) != 4 || !s["a"] || !s["b"] || !s["c"] || !s["d"] {
		t.Errorf("Set = %v", s)
	}
}
