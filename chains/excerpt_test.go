package chains

import (
	"slices"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
)

// A refusal's closest passage shows the sentence that meets the question,
// not the section's opening: the sentence stating the most of the
// question's words (not those that chose the document), with the one
// before it when both fit; a long sentence is cut near the first such
// word. A section that states none keeps its opening.
func TestClosestPassageExcerpts(t *testing.T) {
	long := strings.Repeat("The Provider shall perform the Services with reasonable skill and care. ", 2) +
		"In addition to anything else in this Agreement and without limiting any other right or remedy that the Client may have under this Agreement or at law, " +
		strings.Repeat("and subject always to the other provisions of this clause and of the schedules, ", 3) +
		"the Client may withhold payment of any disputed invoice until the dispute is resolved under the dispute resolution procedure."
	cases := []struct {
		name, query string
		sec         schema.Section
		want        string
	}{
		{
			name:  "the sentence with the most of the question's words, not the opening",
			query: "Can users update their account information?",
			sec: schema.Section{ID: "s", Content: "We care about your privacy. This policy explains what we do. " +
				"You may update the information in your account at any time from the settings page."},
			want: "…This policy explains what we do. You may update the information in your account at any time from the settings page.",
		},
		{
			name:  "the sentence before it joins when both fit",
			query: "How long must confidential information be kept secret?",
			sec: schema.Section{ID: "s", Content: "The obligations in this Section 12 continue for five (5) years after the termination of this Agreement. " +
				"Obligations relating to trade secrets continue for as long as the information remains a trade secret."},
			want: "The obligations in this Section 12 continue for five (5) years after the termination of this Agreement. Obligations relating to trade secrets continue for as long as the information remains a trade secret.",
		},
		{
			name:  "the words that chose the document do not count",
			query: "According to the Acme privacy policy, is my location shared?",
			sec: schema.Section{ID: "s", NamedBy: []string{"Acme", "privacy", "policy"}, Content: "This Acme privacy policy applies to all Acme services and this privacy policy covers Acme. " +
				"Lorem " + strings.Repeat("ipsum dolor sit amet consectetur adipiscing elit ", 6) + "sed do eiusmod tempor. " +
				"Your location is shared with advertising partners."},
			want: "…Your location is shared with advertising partners.",
		},
		{
			name:  "a long sentence is cut a few words before the question's words are densest",
			query: "Can the Client withhold payment of a disputed invoice?",
			sec:   schema.Section{ID: "s", Content: long},
			want:  "…of this clause and of the schedules, the Client may withhold payment of any disputed invoice until the dispute is resolved under the dispute resolution procedure.",
		},
	}
	for _, c := range cases {
		got := closestPassages([]schema.Section{c.sec}, c.query, 1)
		if len(got) != 1 {
			t.Fatalf("%s: %d passages, want 1", c.name, len(got))
		}
		if got[0].Excerpt != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got[0].Excerpt, c.want)
		}
	}
	none := schema.Section{ID: "n", Content: "Fees are due monthly. Invoices are sent by email."}
	if got := closestPassages([]schema.Section{none}, "Who signed the agreement?", 1); got[0].Excerpt != "Fees are due monthly. Invoices are sent by email." {
		t.Errorf("no word of the question: got %q, want the section's opening", got[0].Excerpt)
	}
}

// A refusal points first at the sections with a sentence stating the most
// of the question's words, retrieval's order among equals: retrieval
// ranks a section by all its words, the user reads one sentence of it.
func TestClosestPassagesStateTheQuestion(t *testing.T) {
	secs := []schema.Section{
		{ID: "a", Title: "Definitions", Source: "msa.pdf", Page: 1, RelevanceScore: 0.9, Content: "Notice means a written notice. Agreement means this agreement."},
		{ID: "b", Title: "Renewal", Source: "msa.pdf", Page: 4, RelevanceScore: 0.8, Content: "The Term renews each year."},
		{ID: "c", Title: "Non-renewal", Source: "msa.pdf", Page: 5, RelevanceScore: 0.7, Content: "Either Party may stop the Term renewing by written notice given ninety (90) days before it ends."},
		{ID: "d", Title: "Fees", Source: "msa.pdf", Page: 8, RelevanceScore: 0.6, Content: "Fees are due monthly."},
	}
	got := closestPassages(secs, "How much notice stops the term renewing?", 3)
	var ids []string
	for _, p := range got {
		ids = append(ids, p.SectionID)
	}
	if want := []string{"c", "b", "a"}; !slices.Equal(ids, want) {
		t.Errorf("closest passages %v, want %v", ids, want)
	}
}

// Copies of one document (the same notes in two encodings) show their
// text once: the other places go to other passages.
func TestClosestPassagesShowEachTextOnce(t *testing.T) {
	text := "Either Party may stop the Term renewing by written notice given ninety (90) days before it ends."
	secs := []schema.Section{
		{ID: "a", Title: "Renewal", Source: "notes_utf8.txt", RelevanceScore: 0.9, Content: text},
		{ID: "b", Title: "Renewal", Source: "notes_cp1252.txt", RelevanceScore: 0.9, Content: text},
		{ID: "c", Title: "Renewal", Source: "notes_utf16.txt", RelevanceScore: 0.9, Content: "Either party may  stop the term renewing by written notice given ninety (90) days before it ends."},
		{ID: "d", Title: "Fees", Source: "msa.pdf", Page: 8, RelevanceScore: 0.6, Content: "Fees are due monthly, and notice of a change is given in writing."},
	}
	got := closestPassages(secs, "How much notice stops the term renewing?", 3)
	var ids []string
	for _, p := range got {
		ids = append(ids, p.SectionID)
	}
	if want := []string{"a", "d"}; !slices.Equal(ids, want) {
		t.Errorf("closest passages %v, want %v", ids, want)
	}
}
