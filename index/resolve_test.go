package index

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
)

// twoContracts is an index of two agreements whose preambles and signature
// blocks name their parties, and whose clauses name none, plus a handbook.
func twoContracts(t *testing.T) *Index {
	t.Helper()
	ctx := context.Background()
	ix, _ := openTest(t)
	docs := []struct {
		path  string
		title string
		secs  []schema.Section
	}{
		{"/c/NORTHWIND_LICENSE_AGREEMENT.pdf", "License Agreement", []schema.Section{
			{Title: "License Agreement", Kind: schema.KindPreamble, Page: 1, Content: `This License Agreement is made between Northwind Traders Ltd. ("Licensor") and Contoso Goods LLC ("Licensee"). Northwind Traders and Contoso Goods agree as follows.`},
			{Title: "Fees", Page: 2, Content: "Licensee shall pay the royalty within thirty days of each quarter's end."},
			{Title: "Non-Solicitation", Page: 3, Content: "During the term neither party shall solicit or hire any employee of the other party."},
			{Title: "Signatures", Kind: schema.KindSignature, Page: 5, Content: "NORTHWIND TRADERS LTD. By: /s/ Jane Roe Name: Jane Roe CONTOSO GOODS LLC By: /s/ John Doe Name: John Doe"},
		}},
		{"/c/FABRIKAM_SUPPLY_AGREEMENT.pdf", "Supply Agreement", []schema.Section{
			{Title: "Supply Agreement", Kind: schema.KindPreamble, Page: 1, Content: `This Supply Agreement is made between Fabrikam Inc. ("Supplier") and Tailspin Toys Corp. ("Buyer").`},
			{Title: "Non-Solicitation", Page: 2, Content: "Neither party shall solicit the employees or customers of the other party for one year."},
			{Title: "Delivery", Page: 3, Content: "Supplier shall deliver the goods to the Buyer's warehouse."},
		}},
		{"/c/handbook.md", "Employee Handbook", []schema.Section{
			{Title: "Leave", Content: "Employees accrue two days of paid leave each month."},
			{Title: "Payment", Content: "Salaries are paid on the last working day of each month."},
		}},
	}
	for _, d := range docs {
		for i := range d.secs {
			d.secs[i].DocTitle = d.title
		}
		if err := ix.PutDocument(ctx, Document{Path: d.path, Hash: d.path, Format: "pdf", Title: d.title}, d.secs); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

const northwindQuestion = "Does the License Agreement between Northwind Traders and Contoso Goods forbid soliciting the other party's employees?"

// The question's party names choose the document; they do not rank
// passages inside it.
func TestResolveNamesTheDocument(t *testing.T) {
	ctx := context.Background()
	ix := twoContracts(t)
	res, err := ix.Resolve(ctx, northwindQuestion)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Documents, []string{"/c/NORTHWIND_LICENSE_AGREEMENT.pdf"}) {
		t.Errorf("documents %v, want the Northwind agreement alone", res.Documents)
	}
	for _, w := range []string{"northwind", "contoso"} {
		if !slices.Contains(res.Naming, w) {
			t.Errorf("naming terms %v lack %q", res.Naming, w)
		}
	}
	if slices.Contains(res.Naming, "employe") || slices.Contains(res.Naming, "solicit") {
		t.Errorf("naming terms %v take the passage's words", res.Naming)
	}
	if len(res.Missing) != 0 {
		t.Errorf("missing %v, want none", res.Missing)
	}

	// one BM25 over sections puts the preamble, which repeats the names,
	// first: the design gap the resolution closes
	hits, err := ix.Search(ctx, northwindQuestion, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Section.Kind != schema.KindPreamble {
		t.Fatalf("plain search no longer ranks the preamble first (%v): this test shows nothing", titles(hits))
	}
	r := ix.Retriever()
	report := &schema.RetrieveReport{}
	secs, err := r.Retrieve(ctx, schema.RetrieveRequest{Query: northwindQuestion, Report: report})
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) == 0 || secs[0].Title != "Non-Solicitation" || secs[0].Source != "/c/NORTHWIND_LICENSE_AGREEMENT.pdf" {
		t.Fatalf("first section %v, want Northwind's non-solicitation clause", secTitles(secs))
	}
	for _, s := range secs {
		if s.Source != "/c/NORTHWIND_LICENSE_AGREEMENT.pdf" {
			t.Errorf("section of another document handed on: %s %q", s.Source, s.Title)
		}
	}
	if !slices.Equal(report.Documents, res.Documents) {
		t.Errorf("report documents %v", report.Documents)
	}
}

// A question that names no document ranks across all of them.
func TestResolveNothingNamed(t *testing.T) {
	ix := twoContracts(t)
	res, err := ix.Resolve(context.Background(), "When are salaries paid?")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != 0 || len(res.Missing) != 0 {
		t.Errorf("resolution %+v, want none", res)
	}
}

// A name no document contains is reported, and nothing is retrieved; a
// name the documents have with a word they lack is not.
func TestResolveMissingName(t *testing.T) {
	ctx := context.Background()
	ix := twoContracts(t)
	q := "What royalty does the agreement with Globex require?"
	res, err := ix.Resolve(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Missing, []string{"Globex"}) {
		t.Errorf("missing %v, want [Globex]", res.Missing)
	}
	report := &schema.RetrieveReport{}
	secs, err := ix.Retriever().Retrieve(ctx, schema.RetrieveRequest{Query: q, Report: report})
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != 0 || !slices.Equal(report.Missing, []string{"Globex"}) {
		t.Errorf("retrieved %v, report %+v: want nothing and Globex missing", secTitles(secs), report)
	}
	res, err = ix.Resolve(ctx, "What royalty does Northwind Holdings receive?")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Missing) != 0 {
		t.Errorf("missing %v: Northwind is known", res.Missing)
	}
}

func TestPassageQuery(t *testing.T) {
	an := newAnalyzer()
	drop := an.terms("acbj.com privacy policy")
	got := PassageQuery("According to the acbj.com privacy policy, can users edit their information?", drop)
	if want := "According to the, can users edit their information?"; got != want {
		t.Errorf("PassageQuery = %q, want %q", got, want)
	}
	if got := PassageQuery("Privacy policy?", drop); got != "Privacy policy?" {
		t.Errorf("all words named: %q, want the question", got)
	}
}

// Sections of identifying kinds follow the body text unless they match
// clearly better.
func TestDemoteIdentifying(t *testing.T) {
	hit := func(title string, kind schema.SectionKind, rel float64) Hit {
		return Hit{Section: schema.Section{Title: title, Kind: kind, RelevanceScore: rel}}
	}
	got := demoteIdentifying([]Hit{hit("dated", schema.KindPreamble, 0.9), hit("preamble", schema.KindPreamble, 0.6), hit("clause", "", 0.5)}, false)
	if want := []string{"dated", "clause", "preamble"}; !slices.Equal(titles(got), want) {
		t.Errorf("order %v, want %v", titles(got), want)
	}
	// a question that asks when keeps in place the preamble that states
	// the document's date, not the one that states none
	dated := hit("made", schema.KindPreamble, 0.6)
	dated.Section.Content = "This Agreement is made this 23rd day of September 1998 between Alpha Inc. and Beta LLC."
	undated := hit("parties", schema.KindPreamble, 0.6)
	undated.Section.Content = "This Agreement is between Alpha Inc. and Beta LLC."
	// a signature block's date is when someone signed, not the
	// document's date: it follows the body text still
	signed := hit("signed", schema.KindSignature, 0.6)
	signed.Section.Content = "By: /s/ Tom Roe Date: January 13, 2005"
	got = demoteIdentifying([]Hit{signed, dated, undated, hit("clause", "", 0.5)}, true)
	if want := []string{"made", "clause", "signed", "parties"}; !slices.Equal(titles(got), want) {
		t.Errorf("asking when: order %v, want %v", titles(got), want)
	}
}

func titles(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Section.Title)
	}
	return out
}

func secTitles(secs []schema.Section) []string {
	var out []string
	for _, s := range secs {
		out = append(out, filepath.Base(s.Source)+":"+s.Title)
	}
	return out
}

// A store that lists its sections (Weaviate) resolves as the index does.
func TestListResolverMatchesIndex(t *testing.T) {
	ctx := context.Background()
	ix := twoContracts(t)
	lr := NewListResolver(ix)
	for _, q := range []string{northwindQuestion, "When are salaries paid?", "What royalty does the agreement with Globex require?",
		"What does the Supply Agreement between Fabrikam and Tailspin Toys say about delivery?"} {
		want, err := ix.Resolve(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := lr.Resolve(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Documents, want.Documents) || !slices.Equal(got.Naming, want.Naming) || !slices.Equal(got.Missing, want.Missing) ||
			got.Sections != want.Sections {
			t.Errorf("%q: list resolver %+v, index %+v", q, got, want)
		}
	}
	// a new document is seen
	if err := ix.PutDocument(ctx, Document{Path: "/c/GLOBEX.pdf", Hash: "g", Format: "pdf", Title: "Globex royalty schedule"},
		[]schema.Section{{Title: "Royalty", Content: "Globex pays a royalty of 4%.", DocTitle: "Globex royalty schedule"}}); err != nil {
		t.Fatal(err)
	}
	got, err := lr.Resolve(ctx, "What royalty does the agreement with Globex require?")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Missing) != 0 || !slices.Equal(got.Documents, []string{"/c/GLOBEX.pdf"}) {
		t.Errorf("after adding Globex: %+v", got)
	}
}

// A passage that points to a numbered part of its document brings that
// part along, in place of the weakest section.
func TestFollowPointers(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	secs := []schema.Section{
		{Title: "Income Taxes", Kind: schema.KindCrossReference, Content: "Refer to Note 11 – Income Taxes of the Notes to Consolidated Financial Statements for further discussion."},
		{Title: "Note 11 – Income Taxes", Content: "The effective tax rate was 16.2% in 2023."},
		{Title: "Notices", Content: "9.3 Notices. Every notice shall be in writing."},
		{Title: "Term", Content: "The term is described in Section 9.3 and runs three years."},
		{Title: "Other", Content: "Unrelated text."},
	}
	if err := ix.PutDocument(ctx, Document{Path: "/d/report.pdf", Hash: "h", Format: "pdf"}, secs); err != nil {
		t.Fatal(err)
	}
	stored, err := ix.Sections(ctx, "/d/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	byTitle := map[string]schema.Section{}
	for _, s := range stored {
		byTitle[s.Title] = s
	}
	out := followPointers(ctx, ix, []schema.Section{byTitle["Income Taxes"], byTitle["Other"]}, 2, nil)
	if got := secTitles(out); !slices.Equal(got, []string{"report.pdf:Income Taxes", "report.pdf:Note 11 – Income Taxes"}) {
		t.Errorf("got %v, want the pointer then its note (the weakest section gone)", got)
	}
	out = followPointers(ctx, ix, []schema.Section{byTitle["Term"]}, 5, nil)
	if got := secTitles(out); !slices.Equal(got, []string{"report.pdf:Term", "report.pdf:Notices"}) {
		t.Errorf("got %v, want Section 9.3 followed", got)
	}
	// an excluded target is not brought back; no lister, no change
	out = followPointers(ctx, ix, []schema.Section{byTitle["Term"]}, 5, map[string]bool{byTitle["Notices"].Key(): true})
	if len(out) != 1 {
		t.Errorf("excluded target followed: %v", secTitles(out))
	}
	if out := followPointers(ctx, nil, []schema.Section{byTitle["Term"]}, 5, nil); len(out) != 1 {
		t.Errorf("no lister: %v", secTitles(out))
	}
}

func TestProfiles(t *testing.T) {
	ix := twoContracts(t)
	ps, err := ix.Profiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 {
		t.Fatalf("%d profiles, want 3", len(ps))
	}
	p := ps[0]
	if p.Path != "/c/NORTHWIND_LICENSE_AGREEMENT.pdf" || p.Title != "License Agreement" || p.Sections != 4 ||
		p.Kinds["preamble"] != 1 || p.Kinds["signature-block"] != 1 || !strings.HasPrefix(p.Parties, "This License Agreement is made between Northwind") {
		t.Errorf("profile %+v", p)
	}
	if ps[2].Kinds != nil || ps[2].Parties != "" {
		t.Errorf("handbook profile %+v, want no kinds and no parties", ps[2])
	}
	if got := clip("alpha beta gamma", 12); got != "alpha beta …" {
		t.Errorf("clip = %q", got)
	}
}

// In a folder of documents that each state whom they are about, a company
// named only in passing (a director's other board seat) is no document's
// subject: the question about it gets no sections, and the note names it.
func TestResolveNameMentionedInPassing(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	for _, d := range []struct{ path, entity, text string }{
		{"/f/NORTHWIND_2023_10K.pdf", "Northwind Traders Inc.", "Total revenues were 50,000 million. Our chair also serves as a director of Globex, Inc."},
		{"/f/CONTOSO_2023_10K.pdf", "Contoso Ltd.", "Total revenues were 20,000 million."},
		{"/f/FABRIKAM_2023_10K.pdf", "Fabrikam Inc.", "Total revenues were 9,000 million."},
	} {
		secs := []schema.Section{{Title: "Revenues", Content: d.text, DocEntity: d.entity, DocPeriod: "fiscal year 2023"}}
		if err := ix.PutDocument(ctx, Document{Path: d.path, Hash: d.path, Format: "pdf"}, secs); err != nil {
			t.Fatal(err)
		}
	}
	res, err := ix.Resolve(ctx, "What were Globex's total revenues in fiscal 2023?")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Missing, []string{"Globex"}) {
		t.Errorf("missing %v, want [Globex]", res.Missing)
	}
	res, err = ix.Resolve(ctx, "What were Contoso's total revenues in fiscal 2023?")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Missing) != 0 || !slices.Equal(res.Documents, []string{"/f/CONTOSO_2023_10K.pdf"}) {
		t.Errorf("Contoso: %+v", res)
	}
}

// Inside named documents a passage that says the question's words in other
// words ("change or update" for "edit") leads one that matches as many of
// them lexically.
func TestSoftRerankReadsMeaning(t *testing.T) {
	hit := func(title, text string) Hit {
		return Hit{Section: schema.Section{Title: title, Content: text, RelevanceScore: 0.5}}
	}
	got := softRerank("can users edit their information?", []Hit{
		hit("cookies", "We store information about your visits in cookies and share it with advertisers."),
		hit("access", "You may change or update your account details at any time."),
	})
	if got[0].Section.Title != "access" {
		t.Errorf("order %v, want the change-or-update passage first", titles(got))
	}
}

// The sections of the document a question names carry the question's
// words that named it (Section.NamedBy): the names its profile states and
// the terms that chose it, never the question's periods; the sections of
// a question that names no document carry none.
func TestRetrieveMarksTheNamingWords(t *testing.T) {
	ctx := context.Background()
	r := twoContracts(t).Retriever()
	secs, err := r.Retrieve(ctx, schema.RetrieveRequest{Query: "What royalty does the License Agreement between Northwind Traders and Contoso Goods set for 2020?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) == 0 {
		t.Fatal("nothing retrieved")
	}
	for _, s := range secs {
		for _, w := range []string{"Northwind", "Contoso Goods"} {
			if !slices.Contains(s.NamedBy, w) {
				t.Errorf("%q: named by %q, want %q among them", s.Title, s.NamedBy, w)
			}
		}
		if slices.Contains(s.NamedBy, "2020") || slices.Contains(s.NamedBy, "royalty") {
			t.Errorf("%q: named by %q, which takes the question's period or passage words", s.Title, s.NamedBy)
		}
	}
	secs, err = r.Retrieve(ctx, schema.RetrieveRequest{Query: "When are salaries paid?"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secs {
		if len(s.NamedBy) > 0 {
			t.Errorf("%q: named by %q for a question that names no document", s.Title, s.NamedBy)
		}
	}
}

// A name's words that another document's parties use too ("Links" of
// "Wireless Links Inc." and of "Golden Links Corp.") name no document
// alone, but the chosen document's profile states them: they say whose
// document it is, not which passage, so they leave the passage query.
func TestResolveNameWordsSharedWithOthers(t *testing.T) {
	ctx := context.Background()
	ix := indexDocs(t, "pdf", []testDoc{
		{path: "/c/WLI_DISTRIBUTOR_AGREEMENT.pdf", secs: []schema.Section{
			{Title: "Distributor Agreement", Kind: schema.KindPreamble, Page: 1, Content: `This Distributor Agreement is made between Wireless Links Inc. ("WLI") and Jaguar Investments, Inc. ("Distributor").`},
			{Title: "Term", Page: 2, Content: "The agreement takes effect on the first day of April and runs for two years."},
		}},
		{path: "/c/GOLDEN_SERVICES_AGREEMENT.pdf", secs: []schema.Section{
			{Title: "Services Agreement", Kind: schema.KindPreamble, Page: 1, Content: `This Services Agreement is made between Golden Links Corp. ("Golden") and Harbor Investments LLC ("Harbor").`},
			{Title: "Fees", Page: 2, Content: "Harbor pays the fees monthly."},
		}},
		{path: "/c/handbook.md", secs: []schema.Section{{Title: "Leave", Content: "Employees accrue two days of paid leave each month."}}},
	})
	q := "When does the Distributor Agreement between Wireless Links Inc. and Jaguar Investments, Inc. take effect?"
	res, err := ix.Resolve(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Documents, []string{"/c/WLI_DISTRIBUTOR_AGREEMENT.pdf"}) {
		t.Fatalf("documents %v", res.Documents)
	}
	an := newAnalyzer()
	for _, w := range []string{"Links", "Investments"} {
		if ts := an.terms(w); !slices.Contains(res.Naming, ts[0]) {
			t.Errorf("naming terms %v lack %q", res.Naming, w)
		}
	}
	if pq := PassageQuery(q, res.Naming); strings.Contains(pq, "Links") || !strings.Contains(pq, "effect") {
		t.Errorf("passage query %q", pq)
	}
	// a capitalised word no chosen profile holds stays a passage word
	res, err = ix.Resolve(ctx, "Under the Distributor Agreement between Wireless Links and Jaguar Investments, what is the Term?")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(res.Naming, an.terms("Term")[0]) {
		t.Errorf("naming terms %v take Term", res.Naming)
	}
}

// Inside a named document every section is read for the meaning of its
// words, not only those BM25 finds: the passage that answers may share
// no word with the question.
func TestNamedDocumentReadWhole(t *testing.T) {
	ctx := context.Background()
	ix := indexDocs(t, "md", []testDoc{
		{path: "/p/acme.com.md", secs: []schema.Section{
			{Title: "Segment 1", Page: 1, Content: "We collect information when you register, such as your email address."},
			{Title: "Segment 2", Page: 2, Content: "You may change or update your account details at any time from the settings page."},
			{Title: "Segment 3", Page: 3, Content: "Cookies remember your preferences between visits."},
		}},
		{path: "/p/globex.com.md", secs: []schema.Section{
			{Title: "Segment 1", Page: 1, Content: "Globex collects information to process orders."},
		}},
	})
	q := "According to the acme.com policy, can users edit their information?"
	if res, err := ix.Resolve(ctx, q); err != nil || res.Sections != 3 {
		t.Fatalf("resolution %+v (%v), want acme.com's 3 sections", res, err)
	}
	secs, err := ix.Retriever().Retrieve(ctx, schema.RetrieveRequest{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(secs, func(s schema.Section) bool { return s.Title == "Segment 2" }) {
		t.Errorf("sections %v lack the change-or-update passage", secTitles(secs))
	}
	for _, s := range secs {
		if s.Source != "/p/acme.com.md" {
			t.Errorf("section of another document: %s", s.Source)
		}
	}
}

// testDoc is a document for indexDocs.
type testDoc struct {
	path string
	secs []schema.Section
}

// indexDocs is a new index holding docs, each of format.
func indexDocs(t *testing.T, format string, docs []testDoc) *Index {
	t.Helper()
	ix, _ := openTest(t)
	for _, d := range docs {
		if err := ix.PutDocument(context.Background(), Document{Path: d.path, Hash: d.path, Format: format}, d.secs); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

// In a folder whose documents mostly have a preamble or cover page, a
// document's first section names it too, though the classifier took it
// for body text ("Party A: … Party B: …"); in a folder of articles, whose
// first sections are text like any other, it does not.
func TestResolveOpeningNamesTheDocument(t *testing.T) {
	ctx := context.Background()
	preamble := func(text string) schema.Section {
		return schema.Section{Title: "Agreement", Kind: schema.KindPreamble, Page: 1, Content: text}
	}
	body := func(page int, text string) schema.Section {
		return schema.Section{Title: "Agreement", Page: page, Content: text}
	}
	ix := indexDocs(t, "pdf", []testDoc{
		{path: "/c/FABRIKAM_SUPPLY.pdf", secs: []schema.Section{preamble(`This Supply Agreement is made between Fabrikam Inc. ("Supplier") and Tailspin Toys Corp. ("Buyer").`), body(2, "Supplier delivers monthly.")}},
		{path: "/c/NORTHWIND_LICENSE.pdf", secs: []schema.Section{preamble(`This License Agreement is made between Northwind Traders Ltd. ("Licensor") and Contoso Goods LLC ("Licensee").`), body(2, "Licensee pays a royalty.")}},
		{path: "/c/ADVENTURE_SERVICES.pdf", secs: []schema.Section{preamble(`This Services Agreement is made between Adventure Works Inc. ("Provider") and Margie's Travel LLC ("Client").`), body(2, "Client pays monthly.")}},
		{path: "/c/EX-10.4.pdf", secs: []schema.Section{body(1, "Party A: Beike Security Technology Co., Ltd. Party B: Wingtip Online Network Co., Ltd."), body(2, "Party A shall not use the information provided by Party B for commercial activities.")}},
		// a stub above the parties: the opening reads on past it
		{path: "/c/EX-10.43.pdf", secs: []schema.Section{body(1, "Contract No.: 151315UD0081"), body(1, "Party A: Litware Internet (Beijing) Co., Ltd. Party B: Proseware Online Co., Ltd."),
			body(2, "Party A shall pay the service fee within ten days.")}},
	})
	lr := NewListResolver(ix)
	for q, want := range map[string]string{
		"What does the agreement between Beike and Wingtip forbid?":                      "/c/EX-10.4.pdf",
		"When does the Cooperation Agreement between Litware and Proseware take effect?": "/c/EX-10.43.pdf",
	} {
		for name, r := range map[string]interface {
			Resolve(context.Context, string) (Resolution, error)
		}{"index": ix, "list": lr} {
			res, err := r.Resolve(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Documents, []string{want}) {
				t.Errorf("%s resolver, %q: documents %v, want %s", name, q, res.Documents, want)
			}
		}
	}
	articles := indexDocs(t, "md", []testDoc{
		{path: "/a/rivers.md", secs: []schema.Section{body(1, "The Wingtip river rises in the hills."), body(2, "Rivers carry silt.")}},
		{path: "/a/lakes.md", secs: []schema.Section{body(1, "Lakes hold still water."), body(2, "Lakes freeze in winter.")}},
		{path: "/a/seas.md", secs: []schema.Section{body(1, "Seas are salt water."), body(2, "Tides move the seas.")}},
	})
	res, err := articles.Resolve(ctx, "Where does the Wingtip rise?")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != 0 {
		t.Errorf("documents %v, want none: an article's first section names nothing", res.Documents)
	}
}

// A company's own report names it even where other reports mention it
// too (a customer, a director's employer): its entity's words need a
// lower share of their sections than a title's words. The day and year of
// a date do not choose the reports of other companies dated the 31st, a
// legal form ("Co., Ltd.") names no one, and one word of a longer name
// ("Kiosk Concepts" against "Collectible Concepts Group") is not its name.
func TestResolveOwnName(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	for _, d := range []struct {
		path, entity, period string
		texts                []string
	}{
		{"/f/CONTOSO_2022Q3_10Q.pdf", "Contoso, Inc.", "quarterly period ended October 31, 2022", []string{
			"Contoso's goodwill was 48,555 million.", "Contoso repurchased shares.", "Contoso employees numbered 79,000."}},
		{"/f/NORTHWIND_2022_10K.pdf", "Northwind Co., Ltd.", "fiscal year ended December 31, 2022", []string{
			"Our largest customers include Contoso and Fabrikam.", "We resell Contoso software.", "Goodwill was 2,900 million in October.", "New store concepts opened in October."}},
		{"/f/FABRIKAM_2022_10K.pdf", "Collectible Concepts Group", "fiscal year ended May 31, 2022", []string{
			"Goodwill was 1,100 million in October.", "Our concepts are new.", "Concepts we sell.", "Kiosk sales grew."}},
	} {
		var secs []schema.Section
		for _, s := range d.texts {
			secs = append(secs, schema.Section{Title: "Notes", Content: s, DocEntity: d.entity, DocPeriod: d.period})
		}
		if err := ix.PutDocument(ctx, Document{Path: d.path, Hash: d.path, Format: "pdf"}, secs); err != nil {
			t.Fatal(err)
		}
	}
	for q, want := range map[string][]string{
		"How much goodwill did Contoso report as of October 31, 2022?":                          {"/f/CONTOSO_2022Q3_10Q.pdf"},
		"When does the agreement between Beike Co., Ltd and Baidu Online Co., Ltd take effect?": nil,
		"What does the addendum between Kiosk Concepts, Inc. and Contoso say about employees?":  {"/f/CONTOSO_2022Q3_10Q.pdf"},
	} {
		res, err := ix.Resolve(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Documents, want) {
			t.Errorf("%q: documents %v, want %v", q, res.Documents, want)
		}
	}
}

// A question that writes a document's name as its file is named (a web
// site's address, "answers.com") names that document, though the
// address's word ("answers") is a common word that most sections using it
// hold elsewhere.
func TestResolveAddressNamesTheDocument(t *testing.T) {
	ctx := context.Background()
	seg := func(page int, text string) schema.Section {
		return schema.Section{Title: "Segment", Page: page, Content: text}
	}
	ix := indexDocs(t, "md", []testDoc{
		{path: "/p/answers.com.md", secs: []schema.Section{seg(1, "This privacy policy describes how we collect your information."), seg(2, "We collect your email address when you register.")}},
		{path: "/p/gadgets.com.md", secs: []schema.Section{seg(1, "Our privacy policy: answers to common questions."), seg(2, "The answers we give are not advice."), seg(3, "We collect your address to ship orders.")}},
		{path: "/p/news.com.md", secs: []schema.Section{seg(1, "Readers send answers to our puzzles."), seg(2, "Answers are published weekly."), seg(3, "We collect cookies.")}},
	})
	res, err := ix.Resolve(ctx, "According to the answers.com privacy policy, how do you collect my information?")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Documents, []string{"/p/answers.com.md"}) {
		t.Errorf("documents %v, want answers.com's policy", res.Documents)
	}
	// the word alone, not written as the address, names nothing
	if res, err = ix.Resolve(ctx, "Which answers do you publish?"); err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != 0 {
		t.Errorf("documents %v, want none", res.Documents)
	}
}

func TestAddresses(t *testing.T) {
	for text, want := range map[string][]string{
		"According to the reference.com privacy policy, do you?": {"reference.com"},
		"Privacy policy of mlb.mlb.com and Education.JLab.org":   {"mlb.mlb.com", "education.jlab.org"},
		"The U.S. and e.g. other states; a 1.5% fee; Inc., Ltd.": nil,
		"EX-10.17-OUTSOURCING_AGREEMENT":                         nil,
	} {
		if got := addresses(text); !slices.Equal(got, want) {
			t.Errorf("addresses(%q) = %q, want %q", text, got, want)
		}
	}
}

// A name every document states (the parties of a contract and of its
// addendum) chooses none, and the passage of either that answers need
// not repeat it: its section carries the name (Section.NamedBy), as the
// sections of a chosen document carry the names that chose it. A name
// only one document states is carried by that document's sections only.
func TestRetrieveMarksNamesEveryDocumentStates(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	for _, d := range []struct {
		path, title string
		secs        []schema.Section
	}{
		{"/c/msa.md", "Master Services Agreement", []schema.Section{
			{Title: "Master Services Agreement", Kind: schema.KindPreamble, Content: `This Agreement is made between Brightline Consulting Group, Inc. ("Provider") and Harborview Logistics Ltd. ("Client").`},
			{Title: "Late Payment", Content: "Client shall pay a late fee of 1.5% per month on overdue amounts."},
		}},
		{"/c/dpa.md", "Data Processing Addendum", []schema.Section{
			{Title: "Data Processing Addendum", Kind: schema.KindPreamble, Content: `This Addendum forms part of the Agreement between Brightline Consulting Group, Inc. ("Provider") and Harborview Logistics Ltd. ("Client"), audited by Northwind Audit LLP.`},
			{Title: "Breach Notice", Content: "Provider shall notify Client of a personal data breach within 48 hours."},
		}},
	} {
		for i := range d.secs {
			d.secs[i].DocTitle = d.title
		}
		if err := ix.PutDocument(ctx, Document{Path: d.path, Hash: d.path, Format: "md", Title: d.title}, d.secs); err != nil {
			t.Fatal(err)
		}
	}
	r := ix.Retriever()
	secs, err := r.Retrieve(ctx, schema.RetrieveRequest{Query: "What late fee does Brightline charge Harborview on overdue amounts?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) == 0 {
		t.Fatal("nothing retrieved")
	}
	for _, s := range secs {
		if !slices.Contains(s.NamedBy, "Brightline") || !slices.Contains(s.NamedBy, "Harborview") {
			t.Errorf("%q: named by %q, want Brightline and Harborview", s.Title, s.NamedBy)
		}
	}
	secs, err = r.Retrieve(ctx, schema.RetrieveRequest{Query: "How soon must a breach be reported to Harborview under the Northwind audit?"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secs {
		if s.Source == "/c/msa.md" && slices.Contains(s.NamedBy, "Northwind") {
			t.Errorf("%q of the agreement: named by %q, but only the addendum names Northwind", s.Title, s.NamedBy)
		}
	}
}
