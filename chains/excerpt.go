package chains

import (
	"slices"
	"strings"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// maxExcerpt is about the most bytes a closest passage's excerpt shows.
const maxExcerpt = 300

// excerptLead is how many words before the first word of the question an
// excerpt cut from a long sentence keeps.
const excerptLead = 8

// closestPassages returns up to n passages of secs (one per section
// title and page, schema.ClosestPassages) for a refusal to point at: those
// with a sentence stating the most of the question's words first,
// retrieval's order among equals, each excerpted where it meets the
// question (questionExcerpt). Retrieval ranks a section by all its words;
// the user reads one sentence of it.
func closestPassages(secs []schema.Section, query string, n int) []schema.Passage {
	all := schema.ClosestPassages(secs, len(secs))
	byID := make(map[string]schema.Section, len(secs))
	for _, s := range secs {
		byID[s.ID] = s
	}
	hits := make(map[string]int, len(all))
	for i := range all {
		if s, ok := byID[all[i].SectionID]; ok && s.ID != "" {
			e, h := questionExcerpt(s, query)
			if e != "" {
				all[i].Excerpt = e
			}
			hits[all[i].SectionID] = h
		}
	}
	slices.SortStableFunc(all, func(a, b schema.Passage) int { return hits[b.SectionID] - hits[a.SectionID] })
	// copies of one document (the same notes saved in two encodings)
	// would fill every place with one text: each text is shown once
	seen := map[string]bool{}
	out := all[:0]
	for _, p := range all {
		key := strings.ToLower(strings.Join(strings.Fields(p.Excerpt), " "))
		if key != "" && seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, p)
	}
	return out[:min(n, len(out))]
}

// questionExcerpt returns the sentence of s that states the most of the
// question's terms (the words that chose its document, Section.NamedBy,
// do not count: every sentence of it is about them), the earliest of
// equals, led by the sentence before it when both fit in maxExcerpt
// ("The obligations … continue … for five (5) years after …" before
// "Obligations relating to trade secrets continue for as long as …"). A
// sentence longer than maxExcerpt is cut a few words before where the
// question's terms are densest (densest); "…" marks text left out before
// or after. It returns "" when no sentence states one. hits is how many
// of the question's terms the excerpt's sentence states.
func questionExcerpt(s schema.Section, query string) (excerpt string, hits int) {
	named := s.NamedTerms()
	want := map[string]bool{}
	for _, t := range textproc.Terms(textproc.QueryText(query)) {
		if !named[t] {
			want[t] = true
		}
	}
	if len(want) == 0 {
		return "", 0
	}
	sents := textproc.Sentences(s.Content)
	best, bestHits := -1, 0
	for i, sent := range sents {
		hits := map[string]bool{}
		for _, t := range textproc.Terms(sent) {
			if want[t] {
				hits[t] = true
			}
		}
		if len(hits) > bestHits {
			best, bestHits = i, len(hits)
		}
	}
	if best < 0 {
		return "", 0
	}
	first := best
	if best > 0 && len(sents[best-1])+1+len(sents[best]) <= maxExcerpt {
		first = best - 1
	}
	words := strings.Fields(strings.Join(sents[first:best+1], " "))
	start := 0
	if len(strings.Join(words, " ")) > maxExcerpt {
		start = densest(words, want)
	}
	text := schema.Excerpt(strings.Join(words[start:], " "), maxExcerpt)
	if first > 0 || start > 0 {
		text = "…" + text
	}
	return text, bestHits
}

// densest returns where to start an excerpt of words that is too long:
// a few words (excerptLead) before the word of the question from which
// the next maxExcerpt bytes state the most of the question's terms, the
// earliest of equals.
func densest(words []string, want map[string]bool) int {
	term := make([]string, len(words))
	for i, w := range words {
		if ts := textproc.Terms(w); len(ts) > 0 && want[ts[0]] {
			term[i] = ts[0]
		}
	}
	best, bestHits := 0, 0
	for i := range words {
		if term[i] == "" {
			continue
		}
		hits := map[string]bool{}
		for j, n := i, 0; j < len(words) && n+len(words[j]) <= maxExcerpt; j++ {
			n += len(words[j]) + 1
			if term[j] != "" {
				hits[term[j]] = true
			}
		}
		if len(hits) > bestHits {
			best, bestHits = max(i-excerptLead, 0), len(hits)
		}
	}
	return best
}
