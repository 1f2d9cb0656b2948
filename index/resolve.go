package index

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// Document resolution: the words of a question that say which document it
// is about (a company, the parties, a site, a title, a year) are told
// apart from the words that say which passage answers, so that the first
// choose the documents and only the second rank passages inside them.
// Without it one BM25 over sections scores both together, and the parts
// of a document that repeat its names (cover page, preamble, signature
// block) outrank the clause or table row that answers.
//
// Each document has a profile: the terms of its context (title, entity,
// period, file name: the strong profile) and of its identifying sections
// (preamble, cover page, signature block: the weak profile). A question
// term names documents when it is in their profiles and most of the
// sections that contain it belong to them (its share): "Kiosk" in a
// franchise addendum's preamble and in few other places names that
// addendum; "school" in the title "Private school" names nothing when
// most sections about schools are elsewhere. The documents the naming
// terms point to, weighted by how few profiles each term is in, are the
// resolution.

// Resolution is what a question says about which documents it is about.
type Resolution struct {
	// Documents are the paths of the documents the question names, best
	// first; empty when it names none (it is then about all of them).
	Documents []string
	// Naming are the question's terms (analysed, as BM25 indexes them)
	// that name those documents, or that every document's context shares
	// (such as "privacy policy" over a folder of privacy policies): they
	// do not rank passages inside the documents.
	Naming []string
	// Stated are the question's terms (analysed) that the profile of
	// every one of Documents holds: its title, file name, organisation,
	// period, preamble, cover page or signature block states them.
	Stated []string
	// Missing are names the question gives (capitalised words past its
	// first) that no document contains at all, in the question's words.
	Missing []string
	// Sections is the number of sections of Documents together.
	Sections int
	// NamesIn maps, when the question names no document (Documents is
	// empty), each document whose profile holds terms of the names the
	// question gives to those terms: a name that every document states
	// (the parties of a contract and its addenda) chooses none, and a
	// passage of any of them need not repeat it.
	NamesIn map[string][]string
}

// namingShare is the share of a term's sections that must lie in the
// documents whose profile holds it for the term to name them. Chosen on
// the contract, filings, privacy-policy and SQuAD sets together (0.5, 0.7,
// 0.8 and 0.9 measured; see docs/retrieval.md): lower lets a common word
// of one title ("school", "force") pick that article; higher loses
// companies that other filings mention too.
const namingShare = 0.8

// ownShare is namingShare for a term of the name of whom a document is
// about (its entity: "Salesforce" of "Salesforce, Inc."): other filings
// name a company as a customer, a competitor or a director's employer,
// and its own report still holds most of its mentions.
const ownShare = 0.5

// ownName reports whether t is a word of the entity of one of holders
// whose whole entity the question's terms (sorted) hold: "Kiosk
// Concepts" does not name "Collectible Concepts Group".
func (m *docMap) ownName(holders []int32, t string, terms []string) bool {
	return slices.ContainsFunc(holders, func(d int32) bool {
		own := m.docs[d].own
		if !own[t] {
			return false
		}
		for w := range own {
			if _, ok := slices.BinarySearch(terms, w); !ok {
				return false
			}
		}
		return true
	})
}

// legalForm reports whether the term is a word of company names that
// identifies no company ("Inc.", "Co.", "Ltd").
func legalForm(t string) bool {
	legalFormsOnce.Do(func() {
		an := newAnalyzer()
		legalFormTerms = map[string]bool{}
		for w := range wordlists.Named("legal_forms") {
			for _, lt := range an.terms(w) {
				legalFormTerms[lt] = true
			}
		}
	})
	return legalFormTerms[t]
}

var (
	legalFormsOnce sync.Once
	legalFormTerms map[string]bool
)

// resolveTie keeps the documents whose score is at least this share of the
// best's.
const resolveTie = 0.75

// maxResolved is the most documents a resolution keeps; a question whose
// names fit more documents than this restricts nothing.
const maxResolved = 8

// docMap is, for one generation of the index, each section's document and
// each document's profile.
type docMap struct {
	gen    string
	secDoc map[int64]int32 // section rowid → index in docs
	docs   []docProfile
}

type docProfile struct {
	path string
	// strong holds the terms of the context field: title, entity,
	// period, file name; weak those of the identifying sections; period
	// those of the period alone ("fiscal year ended May 31, 2023"), whose
	// words also say which figure a question asks for.
	strong, weak, period map[string]bool
	// entity is whether the document states whom it is about.
	entity bool
	// entityName is whom it is about, folded to lower case; when is its
	// period (see narrowPeriod).
	entityName string
	when       docPeriod
	// identified is whether the document has a section of an identifying
	// kind; opening holds the terms of the capitalised words of its
	// opening (see openingNames and addOpenings).
	identified bool
	opening    []string
	// sections is the number of the document's sections.
	sections int
	// own holds the terms of whom the document is about (its entity),
	// legal forms left out
	own map[string]bool
	// addresses are the web addresses its file name or title is
	// ("reference.com" of reference.com.md), lower case
	addresses []string
}

// reAddress matches a web address ("reference.com", "mlb.mlb.com",
// "education.jlab.org"): labels joined by dots, the last of two letters or
// more. "U.S." and "e.g." are no address: see addresses.
var reAddress = regexp.MustCompile(`(?i)\b[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.[a-z]{2,}\b`)

// addresses returns the web addresses text writes, lower case: those with a
// label of two characters or more before the last.
func addresses(text string) []string {
	var out []string
	for _, a := range reAddress.FindAllString(text, -1) {
		a = strings.ToLower(a)
		labels := strings.Split(a, ".")
		if slices.ContainsFunc(labels[:len(labels)-1], func(l string) bool { return len(l) >= 2 }) && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// addSection adds a section's content to the profile: the terms of an
// identifying section (ident) to its weak profile.
func (p *docProfile) addSection(an *analyzer, ident bool, content string) {
	if ident && content != "" {
		p.identified = true
		for _, t := range an.terms(content) {
			p.weak[t] = true
		}
	}
}

// openingWords is how many words a document's opening reads, over at most
// openingSections sections: a first section shorter than that is a stub
// ("Exhibit 10.8", "Contract No.: 151315UD0081") above the part that
// names the parties, and the opening reads on into the sections after it.
const (
	openingWords    = 40
	openingSections = 3
)

// openingNames returns the terms of the names (capitalised words, each
// section's first left out) of a document's opening, whose first sections
// are contents, in order: the first, and the next ones while fewer than
// openingWords words are read.
func openingNames(contents []string) []string {
	var out []string
	words := 0
	for i, c := range contents {
		if i == openingSections || i > 0 && words >= openingWords {
			break
		}
		out = append(out, nameTerms(c)...)
		words += len(strings.Fields(c))
	}
	return out
}

// addOpenings adds, in a folder where most documents have a section that
// identifies them (contracts with preambles, filings with cover pages),
// the names of each document's opening (its first section, read on past a
// stub) to its weak profile: an opening names the parties too where the
// classifier did not recognise it as a preamble ("Party A: … Party B:
// …"), or where the preamble follows a title page. Elsewhere (articles,
// policies) a first section is text like any other, whose names say
// little about which document a question means.
func (m *docMap) addOpenings() {
	most := m.mostIdentified()
	for i := range m.docs {
		p := &m.docs[i]
		if most {
			for _, t := range p.opening {
				p.weak[t] = true
			}
		}
		p.opening = nil
	}
}

// docMapCache holds an index's docMap.
type docMapCache struct {
	mu sync.Mutex
	m  *docMap
}

// identifyingForProfile are the section kinds whose words go into a
// document's weak profile: the parts that name its parties.
var identifyingForProfile = []schema.SectionKind{schema.KindPreamble, schema.KindCover, schema.KindSignature}

// loadDocMap reads the document map of the index's current generation,
// or returns the cached one.
func (ix *Index) loadDocMap(ctx context.Context, conn querier) (*docMap, error) {
	gen, err := ix.generation(ctx, conn)
	if err != nil {
		return nil, err
	}
	ix.docMaps.mu.Lock()
	defer ix.docMaps.mu.Unlock()
	if m := ix.docMaps.m; m != nil && m.gen == gen {
		return m, nil
	}
	kinds := make([]string, len(identifyingForProfile))
	for i, k := range identifyingForProfile {
		kinds[i] = "'" + string(k) + "'"
	}
	rows, err := conn.QueryContext(ctx, `SELECT s.id, d.id, d.path, d.title, s.title, s.doc_title, s.doc_entity, s.doc_period,
			s.kind IN (`+strings.Join(kinds, ",")+`),
			CASE WHEN s.kind IN (`+strings.Join(kinds, ",")+`) THEN s.content ELSE '' END
		FROM sections s JOIN documents d ON d.id = s.doc_id ORDER BY d.id, s.id`)
	if err != nil {
		return nil, fmt.Errorf("read the documents' profiles: %w", err)
	}
	defer rows.Close()
	m := &docMap{gen: gen, secDoc: map[int64]int32{}}
	an := newAnalyzer()
	lastDoc := int64(-1)
	docIndex := map[int64]int32{} // document rowid → index in docs
	for rows.Next() {
		var sid, did int64
		var path, dtitle, stitle, docTitle, entity, period, content string
		var ident bool
		if err := rows.Scan(&sid, &did, &path, &dtitle, &stitle, &docTitle, &entity, &period, &ident, &content); err != nil {
			return nil, fmt.Errorf("read the documents' profiles: %w", err)
		}
		first := did != lastDoc
		if first {
			lastDoc = did
			m.docs = append(m.docs, newProfile(an, path, dtitle, schema.Section{DocTitle: docTitle, DocEntity: entity, DocPeriod: period}))
		}
		di := int32(len(m.docs) - 1)
		docIndex[did] = di
		m.secDoc[sid] = di
		m.docs[di].sections++
		m.docs[di].addSection(an, ident, content)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the documents' profiles: %w", err)
	}
	if m.mostIdentified() {
		// the documents' first sections, read only where addOpenings
		// uses them
		if err := readOpenings(ctx, conn, func(did int64, contents []string) {
			if di, ok := docIndex[did]; ok {
				m.docs[di].opening = openingNames(contents)
			}
		}); err != nil {
			return nil, err
		}
	}
	m.addOpenings()
	ix.docMaps.m = m
	return m, nil
}

// newProfile is the profile of the document at path, titled title, with
// the context its sections carry (first's DocTitle, DocEntity, DocPeriod)
// and no weak terms yet.
func newProfile(an *analyzer, path, title string, first schema.Section) docProfile {
	p := docProfile{path: path, strong: map[string]bool{}, weak: map[string]bool{}, period: map[string]bool{}, entity: first.DocEntity != "",
		entityName: strings.ToLower(strings.TrimSpace(first.DocEntity)), when: readDocPeriod(first.DocPeriod, path)}
	if first.DocTitle != "" {
		title = first.DocTitle
	}
	for _, t := range an.terms(strings.Join([]string{title, first.DocEntity, first.DocPeriod, FileNameWords(path)}, "\n")) {
		p.strong[t] = true
	}
	for _, t := range an.terms(first.DocPeriod) {
		p.period[t] = true
	}
	for _, t := range an.terms(first.DocEntity) {
		if !legalForm(t) {
			if p.own == nil {
				p.own = map[string]bool{}
			}
			p.own[t] = true
		}
	}
	for _, t := range an.terms(strings.Join([]string{title, first.DocEntity, FileNameWords(path)}, "\n")) {
		delete(p.period, t)
	}
	p.addresses = addresses(fileStem(path) + "\n" + title)
	return p
}

// SectionLister is a store that lists its documents and their sections:
// what ListResolver reads.
type SectionLister interface {
	Documents(ctx context.Context) ([]Document, error)
	Sections(ctx context.Context, path string) ([]schema.Section, error)
}

// ListResolver resolves documents (as Index.Resolve does) over any store
// that lists its sections, such as the Weaviate store: it reads every
// section once per change of the document list and keeps, per term, the
// number of sections holding it in each document.
type ListResolver struct {
	src    SectionLister
	mu     sync.Mutex
	key    string
	m      *docMap
	counts map[string]map[int32]int
}

// NewListResolver returns a resolver over src.
func NewListResolver(src SectionLister) *ListResolver { return &ListResolver{src: src} }

// Resolve reads which documents the question names (see Resolution).
func (r *ListResolver) Resolve(ctx context.Context, question string) (Resolution, error) {
	docs, err := r.src.Documents(ctx)
	if err != nil {
		return Resolution{}, fmt.Errorf("resolve documents: %w", err)
	}
	var key strings.Builder
	for _, d := range docs {
		fmt.Fprintf(&key, "%s\x00%s\x00%d\x00%d\n", d.Path, d.Hash, d.IngestedAt.UnixNano(), d.Sections)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil || r.key != key.String() {
		an := newAnalyzer()
		m := &docMap{}
		counts := map[string]map[int32]int{}
		for _, d := range docs {
			secs, err := r.src.Sections(ctx, d.Path)
			if err != nil {
				return Resolution{}, fmt.Errorf("resolve documents: %w", err)
			}
			first := schema.Section{}
			if len(secs) > 0 {
				first = secs[0]
			}
			m.docs = append(m.docs, newProfile(an, d.Path, d.Title, first))
			di := int32(len(m.docs) - 1)
			m.docs[di].sections = len(secs)
			for _, s := range secs {
				ts := an.terms(s.Title + "\n" + s.Content)
				slices.Sort(ts)
				for _, t := range slices.Compact(ts) {
					if counts[t] == nil {
						counts[t] = map[int32]int{}
					}
					counts[t][di]++
				}
				m.docs[di].addSection(an, slices.Contains(identifyingForProfile, s.Kind), s.Content)
			}
			var contents []string
			for _, s := range secs[:min(len(secs), openingSections)] {
				contents = append(contents, s.Content)
			}
			m.docs[di].opening = openingNames(contents)
		}
		m.addOpenings()
		r.key, r.m, r.counts = key.String(), m, counts
	}
	terms := distinct(newAnalyzer().terms(textproc.QueryText(question)))
	inDoc := make([]map[int32]int, len(terms))
	total := make([]int, len(terms))
	for i, t := range terms {
		inDoc[i] = r.counts[t]
		for _, c := range inDoc[i] {
			total[i] += c
		}
	}
	return r.m.resolve(question, terms, inDoc, total), nil
}

// Resolve reads which documents the question names (see Resolution).
func (ix *Index) Resolve(ctx context.Context, question string) (Resolution, error) {
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		return Resolution{}, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN DEFERRED`); err != nil {
		return Resolution{}, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
	m, err := ix.loadDocMap(ctx, conn)
	if err != nil {
		return Resolution{}, err
	}
	terms := distinct(newAnalyzer().terms(textproc.QueryText(question)))
	qts := queryTerms(terms)
	// per term: the number of its sections in each document, and in all
	inDoc := make([]map[int32]int, len(qts))
	total := make([]int, len(qts))
	_, _, err = readPostings(ctx, conn, qts, func(i int, postings []byte) error {
		if inDoc[i] == nil {
			inDoc[i] = map[int32]int{}
		}
		return decodePostings(postings, func(p posting) {
			if d, ok := m.secDoc[p.id]; ok {
				inDoc[i][d]++
				total[i]++
			}
		})
	})
	if err != nil {
		return Resolution{}, fmt.Errorf("resolve documents for %q: %w", question, err)
	}
	return m.resolve(question, terms, inDoc, total), nil
}

// resolve scores the documents for the question's terms.
func (m *docMap) resolve(question string, terms []string, inDoc []map[int32]int, total []int) Resolution {
	var res Resolution
	n := len(m.docs)
	if n == 0 {
		return res
	}
	score := make([]float64, n)
	everywhere := map[string]bool{} // in every document's strong profile
	chose := map[string]bool{}      // the terms that name documents
	periodAsked := asksForPeriod(question)
	addressed := m.addressed(question)
	for i, t := range terms {
		if ds := addressed[t]; len(ds) > 0 {
			// a word of a web address the question writes whole names
			// the documents that are that address, however common the
			// word ("reference" of "reference.com")
			chose[t] = true
			h := float64(len(ds))
			idf := math.Log(1 + (float64(n)-h+0.5)/(h+0.5))
			for _, d := range ds {
				score[d] += idf
			}
			continue
		}
		var holders []int32
		strongAll := true
		for d := range m.docs {
			p := &m.docs[d]
			if p.strong[t] || p.weak[t] {
				holders = append(holders, int32(d))
			}
			strongAll = strongAll && p.strong[t]
		}
		if strongAll {
			everywhere[t] = true
			continue
		}
		if len(holders) == 0 || len(holders) == n {
			continue
		}
		if periodAsked && slices.ContainsFunc(holders, func(d int32) bool { return m.docs[d].period[t] }) {
			// a word of the period ("fiscal", "2023") when the question
			// asks for a quarter or the latest: narrowPeriod reads it
			continue
		}
		if legalForm(t) {
			// "Co.", "Ltd", "Inc." are in every company's name
			continue
		}
		share := 1.0
		if total[i] > 0 {
			in := 0
			for _, d := range holders {
				in += inDoc[i][d]
			}
			share = float64(in) / float64(total[i])
		}
		if share < namingShare && !(share >= ownShare && m.ownName(holders, t, terms)) {
			continue
		}
		chose[t] = true
		h := float64(len(holders))
		idf := math.Log(1 + (float64(n)-h+0.5)/(h+0.5))
		for _, d := range holders {
			score[d] += idf
		}
	}
	best := 0.0
	for _, s := range score {
		best = max(best, s)
	}
	if best > 0 {
		var docs []int
		for d, s := range score {
			if s >= resolveTie*best {
				docs = append(docs, d)
			}
		}
		if byPeriod := m.narrowPeriod(docs, question); len(byPeriod) < len(docs) {
			docs = byPeriod // the quarter asked for, or the latest
		} else {
			docs = m.narrow(docs, terms)
		}
		if len(docs) <= maxResolved {
			slices.SortStableFunc(docs, func(a, b int) int {
				switch {
				case score[a] > score[b]:
					return -1
				case score[a] < score[b]:
					return 1
				}
				return strings.Compare(m.docs[a].path, m.docs[b].path)
			})
			naming := map[string]bool{}
			for _, d := range docs {
				res.Documents = append(res.Documents, m.docs[d].path)
				res.Sections += m.docs[d].sections
				for _, t := range terms {
					if m.docs[d].strong[t] && (chose[t] || !m.docs[d].period[t]) {
						naming[t] = true
					}
				}
			}
			// the terms that chose them name them too
			for _, t := range terms {
				if naming[t] {
					continue
				}
				all := true
				for _, d := range docs {
					all = all && m.docs[d].weak[t]
				}
				if all && !slices.ContainsFunc(m.docs, func(p docProfile) bool {
					return !slices.Contains(res.Documents, p.path) && (p.weak[t] || p.strong[t])
				}) {
					naming[t] = true
				}
			}
			for t := range everywhere {
				naming[t] = true
			}
			// the rest of the names the question gives that the chosen
			// documents' profiles state ("Links" and "Investments" of
			// "Wireless Links Inc. and Jaguar Investments, Inc.", words
			// other documents use too): they say whose document, not
			// which passage
			for _, t := range nameTerms(question) {
				if !naming[t] && !slices.ContainsFunc(docs, func(d int) bool { return !m.docs[d].strong[t] && !m.docs[d].weak[t] }) {
					naming[t] = true
				}
			}
			res.Naming = sortedKeys(naming)
			for _, t := range terms {
				if !slices.ContainsFunc(docs, func(d int) bool { return !m.docs[d].strong[t] && !m.docs[d].weak[t] }) {
					res.Stated = append(res.Stated, t)
				}
			}
		}
	}
	if len(res.Documents) == 0 && len(everywhere) > 0 && len(everywhere) < len(terms) {
		// every document is a privacy policy: the words say which kind
		// of document, not which passage
		res.Naming = sortedKeys(everywhere)
	}
	res.Missing = m.missingNames(question, terms, total, chose)
	if len(res.Documents) == 0 {
		for _, t := range nameTerms(question) {
			for _, p := range m.docs {
				if p.strong[t] || p.weak[t] {
					if res.NamesIn == nil {
						res.NamesIn = map[string][]string{}
					}
					res.NamesIn[p.path] = append(res.NamesIn[p.path], t)
				}
			}
		}
	}
	return res
}

// addressed maps each term of a web address the question writes
// ("According to the reference.com privacy policy") to the documents
// whose file name or title is that address.
func (m *docMap) addressed(question string) map[string][]int32 {
	asked := addresses(question)
	if len(asked) == 0 {
		return nil
	}
	out := map[string][]int32{}
	an := newAnalyzer()
	for d := range m.docs {
		for _, a := range m.docs[d].addresses {
			if slices.Contains(asked, a) {
				for _, t := range an.terms(a) {
					if !legalForm(t) && !slices.Contains(out[t], int32(d)) { // "Co.Ltd" is no site
						out[t] = append(out[t], int32(d))
					}
				}
			}
		}
	}
	return out
}

// narrow keeps, of several documents the question names, those whose
// context (title, period, file name) holds the most of its periods (its
// terms with digits: years, quarters): "Apple's iPhone net sales in fiscal
// 2022" names both of Apple's reports, and "2022" the one for that year,
// though other filings state 2022 too.
func (m *docMap) narrow(docs []int, terms []string) []int {
	if len(docs) < 2 {
		return docs
	}
	count := make([]int, len(docs))
	best := 0
	for _, t := range terms {
		if !strings.ContainsAny(t, "0123456789") {
			continue
		}
		in := 0
		for _, d := range docs {
			if m.docs[d].strong[t] {
				in++
			}
		}
		if in == 0 || in == len(docs) {
			continue
		}
		for i, d := range docs {
			if m.docs[d].strong[t] {
				count[i]++
				best = max(best, count[i])
			}
		}
	}
	if best == 0 {
		return docs
	}
	var out []int
	for i, d := range docs {
		if count[i] == best {
			out = append(out, d)
		}
	}
	return out
}

// mostIdentified reports whether most documents have a section of an
// identifying kind.
func (m *docMap) mostIdentified() bool {
	n := 0
	for _, p := range m.docs {
		if p.identified {
			n++
		}
	}
	return 2*n > len(m.docs)
}

// readOpenings calls f with each document's rowid and the contents of its
// first openingSections sections, in order.
func readOpenings(ctx context.Context, conn querier, f func(did int64, contents []string)) error {
	rows, err := conn.QueryContext(ctx, `SELECT s.doc_id, s.content FROM sections s
		JOIN (SELECT doc_id, min(id) AS first FROM sections GROUP BY doc_id) f
		ON s.id >= f.first AND s.id < f.first + ? AND s.doc_id = f.doc_id
		ORDER BY s.doc_id, s.id`, openingSections)
	if err != nil {
		return fmt.Errorf("read the documents' openings: %w", err)
	}
	defer rows.Close()
	last, contents := int64(-1), []string(nil)
	for rows.Next() {
		var did int64
		var content string
		if err := rows.Scan(&did, &content); err != nil {
			return fmt.Errorf("read the documents' openings: %w", err)
		}
		if did != last && contents != nil {
			f(last, contents)
			contents = nil
		}
		last, contents = did, append(contents, content)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the documents' openings: %w", err)
	}
	if contents != nil {
		f(last, contents)
	}
	return nil
}

// nameTerms are the terms of the capitalised words of text past its
// first: the names it gives.
func nameTerms(text string) []string {
	an := newAnalyzer()
	var out []string
	first := true
	for start, end := range textproc.TokenSpans(text) {
		if first {
			first = false
			continue
		}
		if r, _ := utf8.DecodeRuneInString(text[start:end]); unicode.IsUpper(r) {
			out = append(out, an.terms(text[start:end])...)
		}
	}
	return out
}

// mentionedInPassing is the most sections a name may stand in and still be
// missing as a subject from a folder of documents that each state whom
// they are about (a filing that names another company's board seat).
const mentionedInPassing = 5

// missingNames lists the capitalised words past the question's first that
// are in no section and no document's context (or, when most documents
// state whom they are about, in no document's profile and at most
// mentionedInPassing sections), unless another such word names documents
// or is known (the question then names a document the folder has, in
// words some of which it does not use).
func (m *docMap) missingNames(question string, terms []string, total []int, chose map[string]bool) []string {
	withEntity := 0
	for _, p := range m.docs {
		if p.entity {
			withEntity++
		}
	}
	aboutSomeone := 2*withEntity > len(m.docs)
	var out []string
	an := newAnalyzer()
	first, knownName := true, false
	for start, end := range textproc.TokenSpans(question) {
		w := strings.TrimSuffix(strings.TrimSuffix(question[start:end], "'s"), "’s")
		if first {
			first = false
			continue
		}
		r := []rune(w)
		if len(r) < 2 || !unicode.IsUpper(r[0]) || !unicode.IsLower(r[len(r)-1]) {
			continue
		}
		ts := an.terms(w)
		if len(ts) != 1 {
			continue
		}
		if chose[ts[0]] {
			return nil
		}
		i, ok := slices.BinarySearch(terms, ts[0])
		if !ok || total[i] > 0 && !(aboutSomeone && total[i] <= mentionedInPassing) {
			knownName = knownName || ok
			continue
		}
		known := false
		for _, p := range m.docs {
			if p.strong[ts[0]] || p.weak[ts[0]] {
				known = true
				break
			}
		}
		if known {
			knownName = true
		} else if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	if knownName {
		// "Bill Aiken": a name the documents have, with words they lack
		return nil
	}
	return out
}

// distinct sorts ss and removes repeats, in place.
func distinct(ss []string) []string {
	slices.Sort(ss)
	return slices.Compact(ss)
}

// queryTerms are the query terms for distinct, sorted terms.
func queryTerms(terms []string) []queryTerm {
	qts := make([]queryTerm, len(terms))
	for i, t := range terms {
		qts[i] = queryTerm{term: t}
	}
	return qts
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// PassageQuery is the question without the words whose terms are in drop:
// what ranks passages once the documents are chosen. It returns the
// question itself when nothing would be left.
func PassageQuery(question string, drop []string) string {
	if len(drop) == 0 {
		return question
	}
	return passageQuery(question, drop)
}

// NamedBy returns the question's words that say which of the resolved
// documents it is about: its words whose terms name them (Naming, the
// words PassageQuery drops) and the names among names (relevance.Frame's
// Entities, as written) whose every term the documents state (Stated).
// The question's periods (relevance.Frame's Periods, folded) are left
// out: a filing states several years, and the year asked for must be
// the passage's.
func (res Resolution) NamedBy(question string, names, periods []string) []string {
	an := newAnalyzer()
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for start, end := range textproc.TokenSpans(question) {
		w := question[start:end]
		if slices.Contains(periods, strings.ToLower(w)) {
			continue
		}
		ts := an.terms(w)
		if slices.ContainsFunc(ts, func(t string) bool { return slices.Contains(res.Naming, t) }) {
			add(w)
		}
	}
	for _, n := range names {
		ts := an.terms(n)
		if len(ts) > 0 && !slices.ContainsFunc(ts, func(t string) bool { return !slices.Contains(res.Stated, t) }) {
			add(n)
		}
	}
	return out
}

// NamesBy returns the names among names (relevance.Frame's Entities, as
// written) whose every term the profile of document path holds
// (NamesIn), for a question that names no document.
func (res Resolution) NamesBy(names []string, path string) []string {
	held := res.NamesIn[path]
	if len(held) == 0 {
		return nil
	}
	an := newAnalyzer()
	var out []string
	for _, n := range names {
		ts := an.terms(n)
		if len(ts) > 0 && !slices.ContainsFunc(ts, func(t string) bool { return !slices.Contains(held, t) }) {
			out = append(out, n)
		}
	}
	return out
}

func passageQuery(question string, drop []string) string {
	an := newAnalyzer()
	var b strings.Builder
	last := 0
	kept := 0
	dropped := false // the previous word was dropped
	for start, end := range textproc.TokenSpans(question) {
		ts := an.terms(question[start:end])
		if len(ts) > 0 && slices.ContainsFunc(ts, func(t string) bool { return slices.Contains(drop, t) }) {
			if !dropped {
				// the gap between two dropped words goes with them
				b.WriteString(question[last:start])
			}
			last, dropped = end, true
			continue
		}
		dropped = false
		if len(ts) > 0 {
			kept++
		}
	}
	b.WriteString(question[last:])
	if kept == 0 {
		return question
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	return strings.NewReplacer(" ,", ",", " ?", "?", " .", ".", " ;", ";").Replace(out)
}

// DocumentProfile is what identifies a document for resolution, as
// `docmind index documents` shows it.
type DocumentProfile struct {
	Path   string `json:"path"`
	Title  string `json:"title"`
	Entity string `json:"entity,omitempty"`
	Period string `json:"period,omitempty"`
	// Sections is the number of sections; Kinds counts those of each kind
	// other than body text.
	Sections int            `json:"sections"`
	Kinds    map[string]int `json:"kinds,omitempty"`
	// Parties is the opening of the document's first preamble or cover
	// page (at most 200 characters), where it has one.
	Parties string `json:"parties,omitempty"`
}

// Profiles lists every document's profile, in the order documents were
// added.
func (ix *Index) Profiles(ctx context.Context) ([]DocumentProfile, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT d.path, d.title, s.doc_title, s.doc_entity, s.doc_period, s.kind,
			CASE WHEN s.kind IN ('preamble', 'cover-page') THEN substr(s.content, 1, 400) ELSE '' END
		FROM documents d JOIN sections s ON s.doc_id = d.id ORDER BY d.id, s.id`)
	if err != nil {
		return nil, fmt.Errorf("list the documents' profiles: %w", err)
	}
	defer rows.Close()
	var out []DocumentProfile
	for rows.Next() {
		var path, title, docTitle, entity, period, kind, opening string
		if err := rows.Scan(&path, &title, &docTitle, &entity, &period, &kind, &opening); err != nil {
			return nil, fmt.Errorf("list the documents' profiles: %w", err)
		}
		if len(out) == 0 || out[len(out)-1].Path != path {
			if docTitle != "" {
				title = docTitle
			}
			out = append(out, DocumentProfile{Path: path, Title: title, Entity: entity, Period: period})
		}
		p := &out[len(out)-1]
		p.Sections++
		if kind != "" {
			if p.Kinds == nil {
				p.Kinds = map[string]int{}
			}
			p.Kinds[kind]++
		}
		if p.Parties == "" && opening != "" {
			p.Parties = clip(strings.Join(strings.Fields(opening), " "), 200)
		}
	}
	return out, rows.Err()
}

// clip cuts s to at most n bytes at a word's end, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut <= 0 {
		cut = n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return s[:cut] + " …"
}
