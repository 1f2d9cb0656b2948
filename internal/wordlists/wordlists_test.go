package wordlists

import (
	"regexp"
	"slices"
	"strings"
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
		// …", "pro forma / non gaap / constant currency", "and or to
		// through"; lists of fewer than four words stay in code
		least := 4
		if name == "complement_markers" || name == "other_basis" {
			least = 3
		}
		if len(ws) < least {
			t.Errorf("%s: %d words", name, len(ws))
		}
		if !strings.HasPrefix(Text(name), "# ") {
			t.Errorf("%s: no header saying what the list is for", name)
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

func TestAlternation(t *testing.T) {
	if got := AlternationOf("sep", "sept", "a.b", "may"); got != `(?:sept|sep|a\.b|may)` {
		t.Errorf("AlternationOf = %s", got)
	}
	re := regexp.MustCompile(`^` + Alternation("reference_nouns") + `$`)
	if !re.MatchString("section") || !re.MatchString("exhibit") || re.MatchString("sections") || re.MatchString("#") {
		t.Error("Alternation(reference_nouns) matches other than the list's words")
	}
}

func TestMonths(t *testing.T) {
	ms := Months()
	if len(ms) != 12 || ms[0].Name != "january" || ms[11].Name != "december" {
		t.Fatalf("Months = %v", ms)
	}
	if ms[4].Name != "may" || ms[4].Abbreviations != nil {
		t.Errorf("may = %v, want no abbreviation", ms[4])
	}
	if !slices.Equal(ms[8].Abbreviations, []string{"sep", "sept"}) {
		t.Errorf("september = %v", ms[8])
	}
	words := MonthWords()
	if len(words) != 12+12 || words[12] != "jan" || !slices.Contains(words, "sept") || slices.Contains(words, "-") {
		t.Errorf("MonthWords = %v", words)
	}
	if stems := MonthStems(); len(stems) != 12 || stems[4] != "may" || stems[8] != "sep" {
		t.Errorf("MonthStems = %v", stems)
	}
	if got := Capitalised([]string{"jan", "may"}); !slices.Equal(got, []string{"Jan", "May"}) {
		t.Errorf("Capitalised = %v", got)
	}
}

// The loader's cross-reference nouns are reference nouns: a word added
// to them and not to reference_nouns.txt would be a label the loader
// reads and relevance does not.
func TestCrossReferenceNounsAreReferenceNouns(t *testing.T) {
	ref := Set(Words("reference_nouns")...)
	for _, w := range Words("cross_reference_nouns") {
		if !ref[w] {
			t.Errorf("%q is not in reference_nouns.txt", w)
		}
	}
}

func TestNamedAndJoined(t *testing.T) {
	s := Named("rate_words", "range_words")
	if len(s) != len(Words("rate_words"))+len(Words("range_words")) || !s["per"] || !s["through"] || s["#"] {
		t.Errorf("Named = %v", s)
	}
	if j := Joined("rate_words"); j != "per a an each every" {
		t.Errorf("Joined = %q", j)
	}
}
