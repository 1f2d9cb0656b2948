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
