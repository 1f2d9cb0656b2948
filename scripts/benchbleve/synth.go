package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/schema"
)

// The synthetic corpus and queries of BenchmarkLexicalFloor, copied from
// index/bench_test.go (newSynth, benchWord, section, doc, query), which
// is unexported test code. synthDigest (checked by TestSynthDigest here
// and by TestSynthDigestForBenchBleve in index/synth_digest_test.go
// against the same constant) says both produce the same sections and
// queries.

const (
	benchVocab   = 50000
	benchPerDoc  = 50
	benchQueries = 2000
)

var syllables = strings.Fields("ba be bi bo bu da de di do du ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re ri ro ru sa se si so su ta te ti to tu")

func benchWord(i int) string {
	var b strings.Builder
	for j := 0; j < 3 || i > 0; j++ {
		b.WriteString(syllables[i%len(syllables)])
		i /= len(syllables)
	}
	return b.String()
}

type synth struct {
	words []string
	rng   *rand.Rand
	zipf  *rand.Zipf
}

func newSynth(seed uint64) *synth {
	s := &synth{rng: rand.New(rand.NewPCG(seed, 7))}
	for i := 0; i < benchVocab; i++ {
		s.words = append(s.words, benchWord(i))
	}
	s.zipf = rand.NewZipf(s.rng, 1.07, 2, benchVocab-1)
	return s
}

func (s *synth) section(doc, i int) schema.Section {
	n := 60 + s.rng.IntN(141)
	var b strings.Builder
	for j := 0; j < n; j++ {
		b.WriteString(s.words[s.zipf.Uint64()])
		b.WriteByte(' ')
	}
	return schema.Section{Title: fmt.Sprintf("Doc %d part %d", doc, i), Content: b.String(), Page: i/5 + 1, Chunk: i % 5}
}

func (s *synth) doc(d int) index.DocumentSections {
	ds := index.DocumentSections{Doc: index.Document{Path: fmt.Sprintf("/synthetic/doc%07d.txt", d), Hash: "x", Format: "text", Pages: benchPerDoc / 5}}
	for i := 0; i < benchPerDoc; i++ {
		ds.Sections = append(ds.Sections, s.section(d, i))
	}
	return ds
}

func (s *synth) query() string {
	n := 2 + s.rng.IntN(5)
	var q []string
	for i := 0; i < n; i++ {
		r := int(math.Exp(math.Log(20) + s.rng.Float64()*(math.Log(benchVocab/2)-math.Log(20))))
		q = append(q, s.words[r])
	}
	return strings.Join(q, " ")
}

// synthDigest hashes the first three documents of the corpus (seed 1)
// and the first 50 queries (seed 3).
func synthDigest() string {
	h := sha256.New()
	c := newSynth(1)
	for d := 0; d < 3; d++ {
		for _, sec := range c.doc(d).Sections {
			fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\n", sec.Title, sec.Content, sec.Page, sec.Chunk)
		}
	}
	q := newSynth(3)
	for i := 0; i < 50; i++ {
		fmt.Fprintln(h, q.query())
	}
	return hex.EncodeToString(h.Sum(nil))
}
