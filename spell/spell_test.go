package spell_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/spell"
)

var sections = []schema.Section{
	{Title: "Carlsbad", Content: "Carlsbad is a city on the coast of San Diego County. Carlsbad was founded in 1887."},
	{Title: "Normans", Content: "The Normans ultimately drove the Byzantines out of Italy. Emma married King Ethelred."},
	{Title: "Complexity", Content: "Resources used to gauge complexity are time and storage."},
	{Title: "Aristocracy", Content: "The Norman aristocracy served as Crusaders; the aristocracy held land."},
	{Title: "Armies", Content: "The army defended the castle; Crusaders made money."},
	{Title: "Dublin", Content: "D'Olier Street is named after Jeremiah D'Olier; the older street was wider."},
}

func corrector() *spell.Corrector {
	return spell.New(judge.NewMemCorpus(sections).(spell.Vocabulary))
}

func TestCorrectsWordsTheDocumentsHoldOneEditAway(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		q, want string
		fixes   []spell.Fix
	}{
		// swapped letters, a name keeps its capital
		{"When was Carslbad founded?", "When was Carlsbad founded?", []spell.Fix{{From: "Carslbad", To: "Carlsbad"}}},
		// a letter missing; all capitals kept
		{"Who ULTIMATLY drove the Byzantines out?", "Who ULTIMATELY drove the Byzantines out?", []spell.Fix{{From: "ULTIMATLY", To: "ULTIMATELY"}}},
		// a letter doubled, and two typos in one question
		{"Whose arristocracy served in carslbad?", "Whose aristocracy served in carlsbad?",
			[]spell.Fix{{From: "arristocracy", To: "aristocracy"}, {From: "carslbad", To: "carlsbad"}}},
		// a known English word is not a typo, however rare in the documents
		{"Who did Emma marry?", "Who did Emma marry?", nil},
		// nor is a word the documents hold, nor a short one
		{"What gauges complexity?", "What gauges complexity?", nil},
		{"Who is Emmx?", "Who is Emmx?", nil},
		// a possessive is corrected without its "'s"
		{"Who founded Carslbad's harbour?", "Who founded Carlsbad's harbour?", []spell.Fix{{From: "Carslbad", To: "Carlsbad"}}},
		// a word with an apostrophe is one word ("D'Olier", not "Olier")
		{"Where is D'Olier Street?", "Where is D'Olier Street?", nil},
		// a word outside the vocabulary is corrected only to the
		// documents' stem with a short ending, not to a made-up word
		// sharing the stem ("moneyizing", stem "money")
		{"Who is monetizing the Crusaders?", "Who is monetizing the Crusaders?", nil},
		{"Who collected the ccarlsbadizing?", "Who collected the ccarlsbadizing?", nil},
		// a word with no neighbour in the documents stays as asked
		{"What is the zqxwvjk rate?", "What is the zqxwvjk rate?", nil},
	} {
		got, fixes, err := corrector().Correct(ctx, c.q)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want || !slices.Equal(fixes, c.fixes) {
			t.Errorf("Correct(%q) = %q %v, want %q %v", c.q, got, fixes, c.want, c.fixes)
		}
	}
}

// A question in another language than English is left as asked: its
// words are not English ones, and a word a letter away from one of the
// documents is another form of it ("welcher", "welches").
func TestQuestionsInOtherLanguagesAreLeftAlone(t *testing.T) {
	secs := []schema.Section{
		{Title: "Gerichtsstand", Content: "Welches Gericht zuständig ist, bestimmt der Vertrag."},
		{Title: "Laufzeit", Content: "Der Vertrag beginnt am ersten Januar."},
	}
	c := spell.New(judge.NewMemCorpus(secs).(spell.Vocabulary))
	q := "Welcher Vertrag regelt das Gericht?"
	if got, fixes, err := c.Correct(context.Background(), q); err != nil || got != q || fixes != nil {
		t.Errorf("Correct(%q) = %q %v %v, want it as asked", q, got, fixes, err)
	}
	// the same word in an English question is read as a typo of one of
	// the documents' words
	q = "What does the Welcher clause say about the court?"
	if got, fixes, _ := c.Correct(context.Background(), q); got == q || len(fixes) != 1 {
		t.Errorf("Correct(%q) = %q %v, want Welcher corrected", q, got, fixes)
	}
}

type failing struct{}

func (failing) DocFreqs(context.Context, []string) ([]int, error) {
	return nil, errors.New("store down")
}

func TestVocabularyErrorsAreReturned(t *testing.T) {
	q := "When was Carslbad founded?"
	got, fixes, err := spell.New(failing{}).Correct(context.Background(), q)
	if err == nil || got != q || fixes != nil {
		t.Errorf("Correct with a failing vocabulary = %q %v %v; want the question unchanged and the error", got, fixes, err)
	}
}

// Fuzzing-style robustness: any text comes back whole when nothing is
// corrected, and corrections only replace words.
func FuzzCorrect(f *testing.F) {
	for _, s := range []string{"When was Carslbad founded?", "", "Ünïcödé Carslbad\xff", "ULTIMATLY ULTIMATLY"} {
		f.Add(s)
	}
	c := corrector()
	f.Fuzz(func(t *testing.T, q string) {
		got, fixes, err := c.Correct(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if len(fixes) == 0 && got != q {
			t.Fatalf("no fixes but %q became %q", q, got)
		}
	})
}

// counting wraps a vocabulary and counts the stems it is asked about.
type counting struct {
	v     spell.Vocabulary
	stems int
}

func (c *counting) DocFreqs(ctx context.Context, stems []string) ([]int, error) {
	c.stems += len(stems)
	return c.v.DocFreqs(ctx, stems)
}

// A question of 64 KiB of words no vocabulary has costs a bounded number
// of lookups and corrects at most four words.
func TestLongQuestionsCostBoundedWork(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 64<<10; i++ {
		// "carslbad" with two more letters: no neighbour one edit away
		// for most; "carslbad" itself every 50th word
		if i%50 == 0 {
			b.WriteString("Carslbad ")
		} else {
			fmt.Fprintf(&b, "qz%cx%cwv%c ", 'a'+i%26, 'a'+(i/26)%26, 'a'+(i/676)%26)
		}
	}
	v := &counting{v: judge.NewMemCorpus(sections).(spell.Vocabulary)}
	got, fixes, err := spell.New(v).Correct(context.Background(), b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(fixes) > 4 || len(got) < len(b.String())-8 {
		t.Errorf("%d fixes, %d bytes from %d", len(fixes), len(got), b.Len())
	}
	if max := 16 + 4*(54*24+25); v.stems > max {
		t.Errorf("%d stems looked up, want at most %d", v.stems, max)
	}
	long := strings.Repeat("carlsbad", 4) + "x" // 33 letters: left as it is
	if got, fixes, _ := spell.New(v).Correct(context.Background(), long); got != long || fixes != nil {
		t.Errorf("a %d-letter word was corrected to %q", len(long), got)
	}
}

// titledCorpus is an in-memory vocabulary of sections whose documents and
// sections have titles (judge.NewMemCorpus gives spell.Titled).
func titledCorpus(secs ...schema.Section) *spell.Corrector {
	return spell.New(judge.NewMemCorpus(secs).(spell.Vocabulary))
}

// An acronym no section holds is read as the title it is the initials of:
// people name a contract by the letters of its title, which the contract
// seldom writes.
func TestAcronymsReadAsTheTitlesTheyStandFor(t *testing.T) {
	c := titledCorpus(
		schema.Section{DocTitle: "Master Services Agreement", Title: "Late Payment Penalties", Content: "A late fee of 1.5% per month applies."},
		schema.Section{DocTitle: "Master Services Agreement", Title: "Exhibit B - Statement of Work", Content: "The Services are described here."},
		schema.Section{DocTitle: "Order Form", Title: "Service Level Agreement (SLA)", Content: "The SLA sets uptime at 99.9%."},
		schema.Section{DocTitle: "Data Processing Addendum", Title: "Roles", Content: "Client is the controller."},
		schema.Section{DocTitle: "Deed of Partnership Agreement", Title: "Partners", Content: "The partners agree."},
	)
	ctx := context.Background()
	for _, tc := range []struct {
		q, want string
		fixes   []spell.Fix
	}{
		{"In the MSA, what is the late fee?", "In the Master Services Agreement, what is the late fee?", []spell.Fix{{From: "MSA", To: "Master Services Agreement"}}},
		// an English word in capitals is an acronym too ("sow")
		{"What does the SOW describe?", "What does the Statement of Work describe?", []spell.Fix{{From: "SOW", To: "Statement of Work"}}},
		// the sections write it: as asked
		{"What uptime does the SLA set?", "What uptime does the SLA set?", nil},
		// two names share the initials: as asked
		{"Who signs the DPA?", "Who signs the DPA?", nil},
		// no title stands for it, or too short to read
		{"Is there an NDA?", "Is there an NDA?", nil},
		{"Is the MS agreement signed?", "Is the MS agreement signed?", nil},
		// an acronym and a typo in one question
		{"What is the MSA's late paymnet fee?", "What is the Master Services Agreement's late payment fee?",
			[]spell.Fix{{From: "MSA", To: "Master Services Agreement"}, {From: "paymnet", To: "payment"}}},
	} {
		got, fixes, err := c.Correct(ctx, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want || !slices.Equal(fixes, tc.fixes) {
			t.Errorf("Correct(%q) = %q %v, want %q %v", tc.q, got, fixes, tc.want, tc.fixes)
		}
	}
}
