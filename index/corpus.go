package index

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/docmind/docmind/internal/sqlitedb"
	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/spell"
	"github.com/docmind/docmind/textproc"
)

// phraseVerifyLimit is how many candidate sections of a synonym phrase are
// read to check that the phrase really occurs (its words in order); beyond
// it every candidate counts, which can only overstate how common a term is.
const phraseVerifyLimit = 256

// Corpus gives the judge the statistics of the whole index (it implements
// judge.Corpus): how many sections the index holds and how many of them
// mention a term, exactly or through a synonym, read from the postings
// without loading the corpus. It is safe for concurrent use.
type Corpus struct{ ix *Index }

// Corpus returns the index's corpus statistics.
func (ix *Index) Corpus() *Corpus { return &Corpus{ix: ix} }

// Size returns the number of sections in the index.
func (c *Corpus) Size(ctx context.Context) (int, error) {
	var n int
	if err := c.ix.db.QueryRowContext(ctx, `SELECT n FROM lex_stats WHERE id = 1`).Scan(&n); err != nil {
		return 0, fmt.Errorf("index %s: read the number of sections: %w", c.ix.path, err)
	}
	return n, nil
}

// GroupDocFreq returns how many sections mention every stem of term, each
// either exactly or through a synonym in lex (a synonym phrase must occur
// as consecutive words); with a nil lex, exactly. It agrees with the
// judge's in-memory CorpusStats.GroupDocFreq over the same sections.
func (c *Corpus) GroupDocFreq(ctx context.Context, term string, lex *lexicon.Thesaurus) (int, error) {
	stems := textproc.Terms(term)
	if len(stems) == 0 {
		return c.Size(ctx)
	}
	n, err := c.groupDocFreq(ctx, stems, lex)
	if err != nil {
		return 0, fmt.Errorf("index %s: count the sections that mention %q: %w", c.ix.path, term, err)
	}
	return n, nil
}

// alternative is one way a section can mention a stem: a single indexed
// term, or a phrase (its indexed terms, all present, and the entry to
// verify word order with).
type alternative struct {
	terms  []string
	phrase *lexicon.Entry
}

func (c *Corpus) groupDocFreq(ctx context.Context, stems []string, lex *lexicon.Thesaurus) (int, error) {
	alts := make([][]alternative, len(stems))
	need := map[string]bool{}
	for i, st := range stems {
		alts[i] = append(alts[i], alternative{terms: []string{st}})
		need[st] = true
		for _, e := range lex.Synonyms(st) {
			terms := textproc.Terms(e.Text) // the words the index holds (no stop words)
			if len(terms) == 0 {
				continue
			}
			a := alternative{terms: terms}
			if e.IsPhrase() {
				a.phrase = &e
			}
			alts[i] = append(alts[i], a)
			for _, t := range terms {
				need[t] = true
			}
		}
	}
	conn, err := c.ix.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	// one term and no synonym: the count of its postings, which the
	// blocks' directories hold, when no section is deleted (a deleted
	// section's postings stay until a merge)
	if len(stems) == 1 && len(alts[0]) == 1 {
		deleted, err := deletedSections(ctx, conn)
		if err != nil {
			return 0, err
		}
		if len(deleted) == 0 {
			qt := []queryTerm{{term: stems[0]}}
			if _, _, err := readPostings(ctx, conn, qt, skipPostings); err != nil {
				return 0, err
			}
			return qt[0].df, nil
		}
	}
	sets, err := c.ix.postingSets.get(ctx, conn, need)
	if err != nil {
		return 0, err
	}

	var result bitset
	for i := range stems {
		var mentions bitset
		for _, a := range alts[i] {
			cand := sets[a.terms[0]]
			if len(a.terms) > 1 {
				cand = cand.clone() // and works in place
				for _, t := range a.terms[1:] {
					cand = cand.and(sets[t])
				}
			}
			if a.phrase != nil {
				if ids := cand.ids(phraseVerifyLimit + 1); len(ids) > 0 && len(ids) <= phraseVerifyLimit {
					kept, err := c.withPhrase(ctx, conn, ids, *a.phrase)
					if err != nil {
						return 0, err
					}
					cand = nil
					for _, id := range kept {
						cand = cand.add(id)
					}
				}
			}
			mentions = mentions.or(cand)
		}
		if i == 0 {
			result = mentions
		} else {
			result = result.and(mentions)
		}
		if result.count() == 0 {
			return 0, nil
		}
	}
	// Postings of deleted sections stay until their segment is merged.
	dead, err := sqlitedb.Column[int64](ctx, conn, `SELECT section FROM lex_deleted`)
	if err != nil {
		return 0, err
	}
	for _, id := range dead {
		result.remove(id)
	}
	return result.count(), nil
}

// withPhrase keeps the sections of ids whose title or content has the
// phrase as consecutive words, exactly as lexicon.Text.HasEntry decides
// over lexicon.NewText(title + "\n" + content).
func (c *Corpus) withPhrase(ctx context.Context, q querier, ids []int64, e lexicon.Entry) ([]int64, error) {
	texts, err := c.ix.phrases.texts(ctx, q, ids)
	if err != nil {
		return nil, err
	}
	want := " " + strings.Join(e.Stems, " ") + " "
	var out []int64
	for i, id := range ids {
		if texts[i] != "" && strings.Contains(texts[i], want) {
			out = append(out, id)
		}
	}
	return out, nil
}

// phraseCache keeps, per section id, the stemmed words of the section's
// title and content joined by spaces (what lexicon.NewText matches phrases
// against), and a cache of stems. Checking a synonym phrase used to read
// and stem up to phraseVerifyLimit sections for every phrase of every
// question term; with the cache a section is read and stemmed once per
// process. A section id is never reused for other content (ids only grow),
// so entries never go stale; a deleted section's entry is just unused.
type phraseCache struct {
	mu    sync.Mutex
	text  map[int64]string
	stems map[string]string
	size  int // bytes held in text
}

// phraseCacheBytes bounds the cached texts; past it the cache starts over.
const phraseCacheBytes = 64 << 20

// texts returns the joined stems of every section of ids (in order; ""
// for a section that no longer exists).
func (pc *phraseCache) texts(ctx context.Context, q querier, ids []int64) ([]string, error) {
	out := make([]string, len(ids))
	var missing []int64
	pc.mu.Lock()
	for i, id := range ids {
		t, ok := pc.text[id]
		if !ok {
			missing = append(missing, id)
			continue
		}
		out[i] = t
	}
	pc.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	args := make([]any, len(missing))
	for i, id := range missing {
		args[i] = id
	}
	rows, err := q.QueryContext(ctx, `SELECT id, title, content FROM sections WHERE id IN (?`+strings.Repeat(",?", len(missing)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("load sections: %w", err)
	}
	defer rows.Close()
	loaded := make(map[int64]string, len(missing))
	var sb strings.Builder
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.text == nil || pc.size > phraseCacheBytes {
		pc.text, pc.stems, pc.size = map[int64]string{}, map[string]string{}, 0
	}
	for rows.Next() {
		var id int64
		var title, content string
		if err := rows.Scan(&id, &title, &content); err != nil {
			return nil, fmt.Errorf("load sections: %w", err)
		}
		sb.Reset()
		sb.WriteByte(' ')
		for _, tok := range textproc.Tokens(title + "\n" + content) {
			st, ok := pc.stems[tok]
			if !ok {
				st = textproc.Stem(tok)
				pc.stems[tok] = st
			}
			sb.WriteString(st)
			sb.WriteByte(' ')
		}
		t := sb.String()
		loaded[id] = t
		pc.text[id] = t
		pc.size += len(t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load sections: %w", err)
	}
	for i, id := range ids {
		if out[i] == "" {
			out[i] = loaded[id]
		}
	}
	return out, nil
}

// bitset is a set of section ids (row ids of sections, dense from 1).
type bitset []uint64

func (b bitset) add(id int64) bitset {
	w := int(id >> 6)
	if w >= len(b) {
		if w >= cap(b) {
			// doubled: postings add ascending ids, a word at a time,
			// and append's growth by a quarter reallocated a
			// 100k-section set about twenty times
			nb := make(bitset, len(b), max(w+1, 2*cap(b)))
			copy(nb, b)
			b = nb
		}
		n := len(b)
		b = b[:w+1]
		clear(b[n:])
	}
	b[w] |= 1 << (uint(id) & 63)
	return b
}

func (b bitset) remove(id int64) {
	if w := int(id >> 6); w < len(b) {
		b[w] &^= 1 << (uint(id) & 63)
	}
}

func (b bitset) clone() bitset { return append(bitset(nil), b...) }

// and intersects b with o in place.
func (b bitset) and(o bitset) bitset {
	if len(o) < len(b) {
		b = b[:len(o)]
	}
	for i := range b {
		b[i] &= o[i]
	}
	return b
}

// or unites b with o in place.
func (b bitset) or(o bitset) bitset {
	if len(o) > len(b) {
		b = append(b, make([]uint64, len(o)-len(b))...)
	}
	for i, w := range o {
		b[i] |= w
	}
	return b
}

func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// ids lists up to max ids of the set, in order.
func (b bitset) ids(max int) []int64 {
	var out []int64
	for i, w := range b {
		for w != 0 {
			if len(out) == max {
				return out
			}
			t := bits.TrailingZeros64(w)
			out = append(out, int64(i<<6+t))
			w &= w - 1
		}
	}
	return out
}

// DocFreqs returns how many sections hold each stem, in one read of the
// postings per docFreqBatch stems (for package spell).
func (c *Corpus) DocFreqs(ctx context.Context, stems []string) ([]int, error) {
	out := make([]int, len(stems))
	if len(stems) == 0 {
		return out, nil
	}
	uniq := distinct(slices.Clone(stems))
	qts := queryTerms(uniq)
	fail := func(err error) ([]int, error) {
		return nil, fmt.Errorf("index %s: count the sections of %d terms: %w", c.ix.path, len(uniq), err)
	}
	conn, err := c.ix.db.Conn(ctx)
	if err != nil {
		return fail(err)
	}
	defer conn.Close()
	deleted, err := deletedSections(ctx, conn)
	if err != nil {
		return fail(err)
	}
	live := make([]int, len(qts))
	// in statements of at most docFreqBatch terms (SQLite bounds a
	// statement's parameters)
	for lo := 0; lo < len(qts); lo += docFreqBatch {
		batch := qts[lo:min(lo+docFreqBatch, len(qts))]
		if len(deleted) == 0 { // every posting is live: count them from the directories
			if _, _, err := readPostings(ctx, conn, batch, skipPostings); err != nil {
				return fail(err)
			}
			for i, qt := range batch {
				live[lo+i] = qt.df
			}
			continue
		}
		if _, _, err := readPostings(ctx, conn, batch, func(i int, postings []byte) error {
			return decodePostings(postings, func(p posting) {
				if !deleted[p.id] {
					live[lo+i]++
				}
			})
		}); err != nil {
			return fail(err)
		}
	}
	for i, s := range stems {
		j, _ := slices.BinarySearch(uniq, s)
		out[i] = live[j]
	}
	return out, nil
}

// postingSets caches, per term, the set of sections whose postings hold
// it, for Corpus.GroupDocFreq: a question's key terms and their synonyms
// ("fee", "charge", "price") are common words with long postings lists, and
// decoding them was a quarter of the answer path's CPU at 100,000
// sections. The sets are valid for one state of the index, its generation:
// the newest segment's id and the number of deleted sections. Every write
// adds a segment (ids only grow) or a deletion, so a write by this process
// or another changes the generation and empties the cache. Memory is
// bounded by postingSetsBytes; past it the cache starts over.
type postingSets struct {
	mu    sync.Mutex
	gen   [2]int64
	sets  map[string]bitset
	bytes int
	max   int // bytes; 0 is postingSetsBytes
}

// postingSetsBytes bounds the cached sets (a set is one bit per section id:
// 12.5 KiB at 100,000 sections).
const postingSetsBytes = 32 << 20

// reset empties the cache.
func (ps *postingSets) reset() {
	ps.mu.Lock()
	ps.sets, ps.bytes = nil, 0
	ps.mu.Unlock()
}

// get returns the set of sections of each term of need, read from the
// cache or decoded from the index. The returned sets must not be
// modified.
func (ps *postingSets) get(ctx context.Context, conn querier, need map[string]bool) (map[string]bitset, error) {
	var gen [2]int64
	if err := conn.QueryRowContext(ctx, `SELECT (SELECT coalesce(max(id), 0) FROM lex_segments), (SELECT count(*) FROM lex_deleted)`).Scan(&gen[0], &gen[1]); err != nil {
		return nil, err
	}
	out := make(map[string]bitset, len(need))
	var qts []queryTerm
	ps.mu.Lock()
	if ps.gen != gen || ps.sets == nil {
		ps.gen, ps.sets, ps.bytes = gen, map[string]bitset{}, 0
	}
	for t := range need {
		if b, ok := ps.sets[t]; ok {
			out[t] = b
		} else {
			qts = append(qts, queryTerm{term: t})
		}
	}
	ps.mu.Unlock()
	if len(qts) == 0 {
		return out, nil
	}
	slices.SortFunc(qts, func(a, b queryTerm) int { return strings.Compare(a.term, b.term) })
	bits := make([]bitset, len(qts))
	if _, _, err := readPostings(ctx, conn, qts, func(i int, postings []byte) error {
		return decodePostings(postings, func(p posting) { bits[i] = bits[i].add(p.id) })
	}); err != nil {
		return nil, err
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for i, qt := range qts {
		// an exact copy: add grows a set by doubling, and the budget
		// counts what is held
		b := make(bitset, len(bits[i]))
		copy(b, bits[i])
		out[qt.term] = b
		if ps.gen != gen || ps.sets == nil {
			continue // the index changed, or the cache was emptied, meanwhile: keep nothing
		}
		if limit := cmp.Or(ps.max, postingSetsBytes); ps.bytes+8*len(b) > limit {
			ps.sets, ps.bytes = map[string]bitset{}, 0
		}
		ps.sets[qt.term] = b
		ps.bytes += 8 * len(b)
	}
	return out, nil
}

// skipPostings is a readPostings callback for a caller that needs only
// the terms' counts (queryTerm.df), not their postings.
func skipPostings(int, []byte) error { return nil }

// docFreqBatch bounds the terms of one DocFreqs statement.
const docFreqBatch = 512

// Titles returns the distinct titles of the index's documents and
// sections, documents first, at most spell.MaxTitles in all (for package
// spell, which reads the names an acronym of the question stands for).
func (c *Corpus) Titles(ctx context.Context) ([]string, error) {
	rows, err := c.ix.db.QueryContext(ctx, `SELECT title FROM (SELECT DISTINCT title FROM documents) UNION ALL SELECT title FROM (SELECT DISTINCT title FROM sections) LIMIT ?`, spell.MaxTitles)
	if err != nil {
		return nil, fmt.Errorf("index %s: read the titles: %w", c.ix.path, err)
	}
	defer rows.Close()
	var out []string
	seen := map[string]bool{}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, fmt.Errorf("index %s: read the titles: %w", c.ix.path, err)
		}
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("index %s: read the titles: %w", c.ix.path, err)
	}
	return out, nil
}
