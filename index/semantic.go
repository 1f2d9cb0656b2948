package index

import (
	"math"
	"sort"

	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/wordvec"
)

// Inside the documents a question names, passages are few enough to read
// each against the question word by word: a passage that says "change or
// update your information" answers "can users edit their information?"
// though BM25 sees only "information" in common. softRerank adds to each
// passage's lexical relevance how closely its words match the question's
// in meaning (the embedded GloVe vectors, package wordvec): for each
// content word of the question, the cosine of the passage's closest word,
// averaged over the question's words. An exact word scores 1.

// softWeight is the weight of the word-meaning match against the lexical
// relevance (both in [0,1]).
const softWeight = 0.5

// softMin is the cosine under which a passage word does not count as
// close to a question word at all.
const softMin = 0.35

// softRerank reorders hits (all from the named documents) by lexical
// relevance plus softWeight times the word-meaning match with query. The
// hits' RelevanceScore is left as it is.
func softRerank(query string, hits []Hit) []Hit {
	if softWeight <= 0 || len(hits) < 2 {
		return hits
	}
	m := wordvec.Default()
	var qv [][]float32
	var qw []string
	seen := map[string]bool{}
	for _, w := range textproc.Tokens(wordvec.Fold(query)) {
		if textproc.IsStopWord(w) || seen[w] {
			continue
		}
		seen[w] = true
		if v, ok := m.Vector(w); ok {
			qv = append(qv, v)
			qw = append(qw, w)
		}
	}
	// a question word that most candidates share tells them apart less
	df := make([]int, len(qw))
	secWords := make([]map[string]bool, len(hits))
	for i, h := range hits {
		secWords[i] = map[string]bool{}
		for _, w := range textproc.Tokens(wordvec.Fold(h.Section.Title + "\n" + h.Section.Content)) {
			if !textproc.IsStopWord(w) {
				secWords[i][w] = true
			}
		}
		for j, w := range qw {
			if secWords[i][w] {
				df[j]++
			}
		}
	}
	weight := make([]float64, len(qw))
	sumW := 0.0
	for j := range qw {
		weight[j] = math.Log(1 + float64(len(hits))/float64(1+df[j]))
		sumW += weight[j]
	}
	if len(qv) == 0 {
		return hits
	}
	cache := map[string][]float32{}
	score := make([]float64, len(hits))
	for i, h := range hits {
		best := make([]float64, len(qv))
		for w := range secWords[i] {
			v, ok := cache[w]
			if !ok {
				v, _ = m.Vector(w)
				cache[w] = v
			}
			if v == nil {
				continue
			}
			for j, q := range qv {
				var d float32
				for k := range q {
					d += q[k] * v[k]
				}
				if c := float64(d); c > best[j] {
					best[j] = c
				}
			}
		}
		soft := 0.0
		for j, b := range best {
			if b >= softMin {
				soft += weight[j] * (b - softMin) / (1 - softMin)
			}
		}
		score[i] = h.Section.RelevanceScore + softWeight*soft/sumW
	}
	idx := make([]int, len(hits))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return score[idx[a]] > score[idx[b]] })
	out := make([]Hit, len(hits))
	for i, j := range idx {
		out[i] = hits[j]
	}
	return out
}
