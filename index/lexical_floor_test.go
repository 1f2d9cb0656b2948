package index

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// floorIndex is the reference the lexical benchmarks compare DocMind's
// search with: an in-memory BM25 over the same analysed sections (text
// and title; no context field), with MaxScore dynamic pruning over
// postings arrays. It is the algorithmic floor: nothing to read from
// disk, nothing to decode, and only the postings MaxScore cannot skip
// are scored.
type floorIndex struct {
	postings map[string]*floorList
	lengths  []float64 // by section id
	n        int
	total    float64
}

type floorList struct {
	ids   []int32
	tfs   []uint16
	maxTF uint16
	minL  float64
}

func newFloorIndex() *floorIndex {
	return &floorIndex{postings: map[string]*floorList{}, lengths: []float64{0}}
}

// add records section id (ids must increase) with its terms and length.
func (f *floorIndex) add(id int, tfs []termFreq, length int) {
	for len(f.lengths) <= id {
		f.lengths = append(f.lengths, 0)
	}
	f.lengths[id] = float64(length)
	if length == 0 {
		return
	}
	f.n++
	f.total += float64(length)
	for _, t := range tfs {
		l := f.postings[t.term]
		if l == nil {
			l = &floorList{minL: math.Inf(1)}
			f.postings[t.term] = l
		}
		l.ids = append(l.ids, int32(id))
		l.tfs = append(l.tfs, uint16(t.tf))
		l.maxTF = max(l.maxTF, uint16(t.tf))
		l.minL = min(l.minL, float64(length))
	}
}

type floorHit struct {
	id    int32
	score float64
}

// search returns the top k by BM25 (ties by lower id) and the number of
// postings scored.
func (f *floorIndex) search(query string, k int, k1, b float64) ([]floorHit, int) {
	an := newAnalyzer()
	qtf, _ := an.termFreqs(query)
	avgdl := f.total / float64(f.n)
	c1, c2 := k1*(1-b), k1*b/avgdl
	type cursor struct {
		l   *floorList
		w   float64 // idf * qtf * (k1+1)
		ub  float64
		pos int
	}
	var cs []*cursor
	for _, t := range qtf {
		l := f.postings[t.term]
		if l == nil {
			continue
		}
		df := float64(len(l.ids))
		w := math.Log(1+(float64(f.n)-df+0.5)/(df+0.5)) * float64(t.tf) * (k1 + 1)
		tf := float64(l.maxTF)
		cs = append(cs, &cursor{l: l, w: w, ub: w * tf / (tf + c1 + c2*l.minL)})
	}
	slices.SortFunc(cs, func(a, b *cursor) int { return cmp.Compare(a.ub, b.ub) })
	prefix := make([]float64, len(cs)) // prefix[i]: sum of ub[0..i]
	sum := 0.0
	for i, c := range cs {
		sum += c.ub
		prefix[i] = sum
	}
	var top []floorHit // best first
	worse := func(a, b floorHit) bool {
		if a.score != b.score {
			return a.score < b.score
		}
		return a.id > b.id
	}
	theta := -1.0
	ess := 0 // cs[ess:] are essential
	scored := 0
	for {
		d := int32(math.MaxInt32)
		for _, c := range cs[ess:] {
			if c.pos < len(c.l.ids) && c.l.ids[c.pos] < d {
				d = c.l.ids[c.pos]
			}
		}
		if d == math.MaxInt32 {
			break
		}
		score := 0.0
		norm := c1 + c2*f.lengths[d]
		for _, c := range cs[ess:] {
			if c.pos < len(c.l.ids) && c.l.ids[c.pos] == d {
				tf := float64(c.l.tfs[c.pos])
				score += c.w * tf / (tf + norm)
				c.pos++
				scored++
			}
		}
		for i := ess - 1; i >= 0; i-- {
			if score+prefix[i] <= theta {
				break
			}
			c := cs[i]
			ids := c.l.ids[c.pos:]
			c.pos += sort.Search(len(ids), func(j int) bool { return ids[j] >= d })
			if c.pos < len(c.l.ids) && c.l.ids[c.pos] == d {
				tf := float64(c.l.tfs[c.pos])
				score += c.w * tf / (tf + norm)
				scored++
			}
		}
		h := floorHit{id: d, score: score}
		if len(top) == k && !worse(top[k-1], h) {
			continue
		}
		at := sort.Search(len(top), func(j int) bool { return worse(top[j], h) })
		if len(top) < k {
			top = append(top, floorHit{})
		}
		copy(top[at+1:], top[at:])
		top[at] = h
		if len(top) == k {
			theta = top[k-1].score
			for ess < len(cs) && prefix[ess] <= theta {
				ess++
			}
		}
	}
	return top, scored
}
