package generator

import (
	"testing"

	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/schema"
)

func TestSynonymSentenceScoring(t *testing.T) {
	secs := []schema.Section{
		{Title: "Collections", Page: 8, Content: "Unpaid invoices are referred to a collection agency."},
		{Title: "Suspension", Page: 8, Content: "Overdue invoices allow the Provider to suspend the Services."},
		{Title: "Notices", Page: 9, Content: "Invoices are sent by email to the billing contact."},
	}
	q := newQuery("What happens to unpaid invoices?", []string{"unpaid", "invoices"}, "")
	with := NewOffline()
	without := NewOffline(WithThesaurus(nil))
	exact := with.score(secs[0].Content, secs[0], with.withSynonyms(q))
	syn := with.score(secs[1].Content, secs[1], with.withSynonyms(q))
	off := without.score(secs[1].Content, secs[1], without.withSynonyms(q))
	none := with.score(secs[2].Content, secs[2], with.withSynonyms(q))
	if !(exact > syn && syn > off) {
		t.Errorf("scores exact %.3f, synonym %.3f, thesaurus off %.3f: want exact > synonym > off", exact, syn, off)
	}
	if none >= syn {
		t.Errorf("sentence without the key term or a synonym scores %.3f >= synonym sentence %.3f", none, syn)
	}
	// the synonym hit is worth lexicon.SynonymWeight of the exact one
	// ("unpaid" weighs 2 of the query's total)
	if diff, want := exact-syn, 2*(1-lexicon.SynonymWeight)/q.total; diff < want-1e-9 || diff > want+1e-9 {
		t.Errorf("exact - synonym = %.4f, want %.4f", diff, want)
	}
}

// A key term stated by a form WordNet derives it from ("departed" for
// "departure") makes a sentence a candidate, at a synonym's weight; a
// sentence without any form of it is none.
func TestDerivedFormSentenceScoring(t *testing.T) {
	g := NewOffline()
	q := g.withSynonyms(newQuery("When was the fleet's departure from Plymouth?", []string{"departure"}, ""))
	sec := schema.Section{Title: "Voyages", Page: 3}
	if got := g.score("The fleet departed from Plymouth in April 1620.", sec, q); got <= 0 {
		t.Errorf("sentence with a derived form scores %.3f, want > 0", got)
	}
	if got := g.score("The fleet was refitted at Plymouth over the winter.", sec, q); got != 0 {
		t.Errorf("sentence without a form of the key term scores %.3f, want 0", got)
	}
}
