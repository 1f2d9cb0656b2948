package lexicon

import (
	"slices"
	"testing"

	"github.com/docmind/docmind/textproc"
)

func texts(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Text
	}
	return out
}

func TestDefaultSynonyms(t *testing.T) {
	th := Default()
	tests := []struct {
		word    string
		want    []string // must be synonyms
		notWant []string // must not be
	}{
		{"unpaid", []string{"overdue", "outstanding", "late", "past due", "not paid"}, []string{"paid", "payment"}},
		{"uptime", []string{"availability"}, []string{"downtime"}},
		{"retained", []string{"keep", "kept", "store", "held"}, nil},
		{"terminating", []string{"cancel", "end", "rescind"}, nil},
		{"fees", []string{"charge", "cost", "price"}, []string{"penalty"}},
		{"promise", []string{"guarantee", "commit", "undertake"}, []string{"warranty", "warrant"}},
		{"guarantee", []string{"promise"}, []string{"warranty"}},
		{"warranty", []string{"warrant"}, []string{"guarantee", "promise"}},
		{"employees", []string{"staff", "personnel"}, nil},
		{"erase", []string{"delete", "remove"}, nil},
		{"breach", []string{"violation"}, nil},
		{"cap", []string{"limit", "ceiling"}, nil},
		{"renew", []string{"extend"}, nil},
		{"notify", []string{"notice", "inform"}, nil},
		{"umbrella", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			got := texts(th.Synonyms(textproc.Stem(tt.word)))
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("Synonyms(%q) = %v, missing %q", tt.word, got, w)
				}
			}
			for _, w := range tt.notWant {
				if slices.Contains(got, w) {
					t.Errorf("Synonyms(%q) = %v, must not contain %q", tt.word, got, w)
				}
			}
			if tt.want == nil && tt.notWant == nil && len(got) > 0 {
				t.Errorf("Synonyms(%q) = %v, want none", tt.word, got)
			}
		})
	}
}

func TestDefaultSize(t *testing.T) {
	if n := Default().Len(); n < 150 || n > 320 {
		t.Errorf("Default has %d groups, want 150-320", n)
	}
}

func TestGroupsAreNotTransitive(t *testing.T) {
	// "inform" is in the notice group and (as Porter2's stem of
	// "information") in the data group; "data" and "notice" stay apart.
	th := Default()
	if slices.Contains(th.SynonymStems("data"), "notic") {
		t.Errorf("data and notice were merged through inform: %v", th.SynonymStems("data"))
	}
	if !slices.Contains(th.SynonymStems("data"), "inform") || !slices.Contains(th.SynonymStems("notic"), "inform") {
		t.Errorf("inform missing from a group: data %v, notice %v", th.SynonymStems("data"), th.SynonymStems("notic"))
	}
}

func TestFind(t *testing.T) {
	th := Default()
	tests := []struct {
		term, text string
		want       Match
	}{
		{"unpaid", "Any amount more than sixty (60) days overdue.", SynonymMatch},
		{"unpaid", "An invoice that has not been paid.", SynonymMatch},
		{"unpaid", "The unpaid balance.", ExactMatch},
		{"unpaid", "Invoices are paid monthly.", NoMatch},           // "paid" is not "not paid"
		{"yearly", "A fee of 100 dollars per annum.", SynonymMatch}, // phrase
		{"yearly", "Per month and annum.", NoMatch},                 // words, not the phrase
		{"warranty", "Provider guarantees 99.5% availability.", NoMatch},
		{"umbrella", "Commercial general liability insurance.", NoMatch},
	}
	for _, tt := range tests {
		if got := th.Find(textproc.Stem(tt.term), NewText(tt.text)); got != tt.want {
			t.Errorf("Find(%q, %q) = %v, want %v", tt.term, tt.text, got, tt.want)
		}
	}
}

func TestParseAndNil(t *testing.T) {
	th := Parse("# comment\n\nalpha, beta , gamma delta\nsolo\nsame, same\n")
	if th.Len() != 1 {
		t.Fatalf("Len = %d, want 1 (single-entry and duplicate groups dropped)", th.Len())
	}
	if got := texts(th.Synonyms("alpha")); !slices.Equal(got, []string{"beta", "gamma delta"}) {
		t.Errorf("Synonyms(alpha) = %v", got)
	}
	if got := th.SynonymStems("alpha"); !slices.Equal(got, []string{"beta"}) {
		t.Errorf("SynonymStems(alpha) = %v, want only the one-word entry", got)
	}
	var none *Thesaurus
	if none.Len() != 0 || none.Synonyms("alpha") != nil || none.Find("alpha", NewText("beta")) != NoMatch {
		t.Error("nil thesaurus has synonyms")
	}
	if none.Find("alpha", NewText("alpha")) != ExactMatch {
		t.Error("nil thesaurus misses an exact mention")
	}
}

func BenchmarkFind(b *testing.B) {
	th := Default()
	x := NewText("If any undisputed amount is more than sixty (60) days overdue, Provider may suspend the Services.")
	for b.Loop() {
		th.Find("unpaid", x)
	}
}
