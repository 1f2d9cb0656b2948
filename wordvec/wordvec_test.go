package wordvec

import (
	"encoding/binary"
	"math"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestEmbeddedFile(t *testing.T) {
	m := Default()
	if m.Len() != 100000 || m.Dims() != 100 {
		t.Fatalf("shape %d × %d, want 100000 × 100", m.Len(), m.Dims())
	}
	// GloVe's frequency order, less the punctuation the filter drops.
	if got := []string{m.Word(0), m.Word(1), m.Word(2), m.Word(3), m.Word(4)}; !slices.Equal(got, []string{"the", "of", "to", "and", "in"}) {
		t.Errorf("first words %q", got)
	}
	if m.Rank("the") != 0 {
		t.Errorf("Rank(the) = %d", m.Rank("the"))
	}
	for _, chain := range [][]string{{"the", "government", "maternity", "paternity"}, {"of", "percent", "percentage"}} {
		for k := 1; k < len(chain); k++ {
			if a, b := m.Rank(chain[k-1]), m.Rank(chain[k]); a < 0 || b < 0 || a >= b {
				t.Errorf("Rank(%s) = %d, Rank(%s) = %d: want the first smaller", chain[k-1], a, chain[k], b)
			}
		}
	}
	step := 1
	if raceEnabled {
		step = 97
	}
	for i := 0; i < m.Len(); i += step {
		var s float64
		for _, q := range m.row(i) {
			x := float64(q) * float64(m.scales[i])
			s += x * x
		}
		if math.Abs(s-1) > 1e-4 {
			t.Fatalf("word %q: |v|² = %v", m.Word(i), s)
		}
		if m.Rank(m.Word(i)) != i {
			t.Fatalf("word %q at %d ranks %d", m.Word(i), i, m.Rank(m.Word(i)))
		}
	}
	for _, sym := range []string{"%", "$", "€", "£", "¥", "&"} {
		if !m.Has(sym) {
			t.Errorf("symbol %q missing", sym)
		}
	}
	for _, w := range []string{",", ".", "1990", "don't", "'s"} {
		if m.Has(w) {
			t.Errorf("%q should not be in the vocabulary (rank %d)", w, m.Rank(w))
		}
	}
}

// relationFailures checks relations the real GloVe vectors hold, with
// thresholds a few hundredths below the values observed (in brackets).
func relationFailures(m *Model) []string {
	var fails []string
	above := func(a, b string, min float64) {
		if s := m.Similarity(a, b); !(s > min) {
			fails = append(fails, a+"/"+b)
		}
	}
	above("percentage", "percent", 0.70)  // 0.764
	above("percent", "%", 0.65)           // 0.736
	above("car", "automobile", 0.60)      // 0.682
	above("king", "queen", 0.70)          // 0.752
	above("leave", "vacation", 0.55)      // 0.616
	above("parental", "maternity", 0.30)  // 0.355
	above("buy", "purchase", 0.75)        // 0.832
	above("revenue", "income", 0.70)      // 0.779
	above("doctor", "physician", 0.70)    // 0.768
	above("employee", "worker", 0.70)     // 0.759
	above("contract", "agreement", 0.65)  // 0.715
	above("maternity", "paternity", 0.35) // 0.422
	more := func(a, b, c string, margin float64) {
		if m.Similarity(a, b) < m.Similarity(a, c)+margin {
			fails = append(fails, a+"/"+b+" > "+a+"/"+c)
		}
	}
	more("car", "automobile", "banana", 0.4)      // 0.682 vs 0.148
	more("parental", "maternity", "annual", 0.15) // 0.355 vs 0.137
	if s := m.Similarity("car", "banana"); s > 0.3 {
		fails = append(fails, "car/banana too high")
	}
	return fails
}

func TestRelations(t *testing.T) {
	m := Default()
	if f := relationFailures(m); len(f) > 0 {
		t.Errorf("relations that do not hold: %s", strings.Join(f, ", "))
	}
	nb := m.Neighbors("king", 5)
	if !slices.ContainsFunc(nb, func(n Neighbor) bool { return n.Word == "queen" || n.Word == "prince" }) {
		t.Errorf("Neighbors(king, 5) = %v", nb)
	}
}

// TestRelationsCatchAShuffledVocabulary makes sure TestRelations can fail:
// the same vectors under a shuffled vocabulary break nearly all of them.
func TestRelationsCatchAShuffledVocabulary(t *testing.T) {
	d := Default()
	m := *d
	m.mat = make([]int8, len(d.mat))
	m.scales = make([]float32, len(d.scales))
	perm := rand.New(rand.NewSource(1)).Perm(d.Len())
	for i, j := range perm {
		copy(m.row(i), d.row(j))
		m.scales[i] = d.scales[j]
	}
	if f := relationFailures(&m); len(f) < 10 {
		t.Errorf("a shuffled vocabulary fails only %d checks: %v", len(f), f)
	}
}

func TestFoldingAndCase(t *testing.T) {
	for in, want := range map[string]string{"Möngke": "mongke", "CAFÉ": "cafe", "naïve": "naive", "Ångström": "angstrom", "Percent": "percent", "straße": "straße", "": ""} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
	m := Default()
	// The source has no accented words, so accented queries are found
	// through their folded form.
	if m.Has("café") != true || m.Similarity("Café", "cafe") != 1 {
		t.Errorf("café: Has %v, Similarity(Café, cafe) = %v", m.Has("café"), m.Similarity("Café", "cafe"))
	}
	v1, ok1 := m.Vector("CAFÉ")
	v2, ok2 := m.Vector("cafe")
	if !ok1 || !ok2 || !slices.Equal(v1, v2) {
		t.Errorf("Vector(CAFÉ) != Vector(cafe)")
	}
	if m.Has("Möngke") != m.Has("mongke") || m.Rank("Möngke") != m.Rank("mongke") {
		t.Errorf("Möngke and mongke differ")
	}
	if m.Rank("The") != 0 || m.Similarity("KING", "Queen") != m.Similarity("king", "queen") {
		t.Errorf("case is not folded")
	}
}

func TestUnknown(t *testing.T) {
	m := Default()
	const u = "qxzvbnmtrw"
	if m.Has(u) || m.Rank(u) != -1 || m.Similarity(u, "car") != 0 || m.Similarity("car", u) != 0 {
		t.Errorf("unknown word is known")
	}
	if _, ok := m.Vector(u); ok {
		t.Errorf("Vector(unknown) ok")
	}
	if m.Neighbors(u, 5) != nil || m.Neighbors("king", 0) != nil {
		t.Errorf("Neighbors of unknown or k=0 not nil")
	}
	if _, ok := m.PhraseVector([]string{u, ""}); ok {
		t.Errorf("PhraseVector of unknown words ok")
	}
	if m.PhraseSimilarity([]string{u}, []string{"car"}) != 0 {
		t.Errorf("PhraseSimilarity with no known word not 0")
	}
	if m.Word(-1) != "" || m.Word(m.Len()) != "" {
		t.Errorf("Word out of range not empty")
	}
}

func TestNeighbors(t *testing.T) {
	m := Default()
	nb := m.Neighbors("king", 10)
	if len(nb) != 10 {
		t.Fatalf("got %d neighbours", len(nb))
	}
	for i, n := range nb {
		if n.Word == "king" {
			t.Errorf("king is its own neighbour")
		}
		if i > 0 && n.Sim > nb[i-1].Sim {
			t.Errorf("not sorted: %v", nb)
		}
		if s := m.Similarity("king", n.Word); math.Abs(s-n.Sim) > 1e-5 {
			t.Errorf("%s: Sim %v, Similarity %v", n.Word, n.Sim, s)
		}
	}
	// Exactness: no word outside the list beats the last one.
	last := nb[len(nb)-1].Sim
	king := m.Rank("king")
	step := 1
	if raceEnabled {
		step = 97
	}
	for i := 0; i < m.Len(); i += step {
		if i != king && m.cos(king, i) > last+1e-6 && !slices.ContainsFunc(nb, func(n Neighbor) bool { return n.Word == m.Word(i) }) {
			t.Fatalf("%s (%v) beats %v", m.Word(i), m.cos(king, i), last)
		}
	}
	if nb := m.Neighbors("percent", 5); !slices.ContainsFunc(nb, func(n Neighbor) bool { return n.Word == "percentage" || n.Word == "%" }) {
		t.Errorf("Neighbors(percent) = %v", nb)
	}
}

func TestVectorsAndPhrases(t *testing.T) {
	m := Default()
	a, _ := m.Vector("maternity")
	b, _ := m.Vector("leave")
	var dot float64
	for k := range a {
		dot += float64(a[k]) * float64(b[k])
	}
	if s := m.Similarity("maternity", "leave"); math.Abs(dot-s) > 1e-5 {
		t.Errorf("Vector dot %v, Similarity %v", dot, s)
	}
	p, ok := m.PhraseVector([]string{"maternity", "qxzvbnmtrw"})
	if !ok || !slices.Equal(p, a) {
		t.Errorf("PhraseVector of one known word differs from its Vector")
	}
	leave := m.PhraseSimilarity([]string{"maternity", "leave"}, []string{"parental", "leave"})
	other := m.PhraseSimilarity([]string{"maternity", "leave"}, []string{"annual", "revenue"})
	if !(leave > 0.7 && leave > other+0.3) {
		t.Errorf("maternity leave ~ parental leave %v, ~ annual revenue %v", leave, other)
	}
	if !m.Related("buy", "purchase", 0.7) || m.Related("car", "banana", 0.5) || !m.Related("Qxzvbnmtrw", "qxzvbnmtrw", 0.9) {
		t.Errorf("Related")
	}
}

// tiny builds a file in the package's format from the given rows.
func tiny(words []string, rows [][]int8) []byte {
	var b []byte
	b = append(b, "DMWV"...)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(words)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(rows[0])))
	for _, w := range words {
		b = append(b, byte(len(w)))
		b = append(b, w...)
	}
	for _, r := range rows {
		var n float64
		for _, q := range r {
			n += float64(q) * float64(q)
		}
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(1/math.Sqrt(n))))
	}
	for _, r := range rows {
		for _, q := range r {
			b = append(b, byte(q))
		}
	}
	return b
}

func TestLoad(t *testing.T) {
	m, err := Load([]byte(embedded))
	if err != nil || m.Len() != Default().Len() || m.Similarity("king", "queen") != Default().Similarity("king", "queen") {
		t.Fatalf("Load: %v", err)
	}
	file := tiny([]string{"alpha", "beta", "gamma", "beta"}, [][]int8{{127, 0, 0}, {100, 100, 0}, {0, 0, -127}, {0, 127, 0}})
	m, err = Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Similarity("alpha", "beta"); math.Abs(got-math.Sqrt(0.5)) > 1e-6 {
		t.Errorf("Similarity(alpha, beta) = %v, want 0.7071", got)
	}
	if m.Similarity("alpha", "gamma") != 0 || m.Similarity("beta", "GAMMA") != 0 || m.Rank("beta") != 1 {
		t.Errorf("tiny model: %v %v rank %d", m.Similarity("alpha", "gamma"), m.Similarity("beta", "GAMMA"), m.Rank("beta"))
	}
	if nb := m.Neighbors("alpha", 5); len(nb) != 3 || nb[0].Word != "beta" || nb[2].Word != "gamma" || math.Abs(nb[2].Sim) > 1e-9 {
		t.Errorf("Neighbors(alpha) = %v", nb)
	}
	bad := []string{"", "DMWV", "XXXX" + string(file[4:]), "DMWV\x02" + string(file[5:]), string(file[:len(file)-1]), string(file) + "x", string(file[:20]), "DMWV\x01\x00\x00\x00\xff\xff\xff\x7f\x64\x00\x00\x00"}
	for _, b := range bad {
		if _, err := Load([]byte(b)); err == nil {
			t.Errorf("Load(%q) accepted a bad file", b)
		}
	}
}

func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := Default()
			for i := range 200 {
				w := m.Word((g*997 + i*31) % m.Len())
				m.Similarity(w, "king")
				m.Vector(w)
				m.PhraseSimilarity([]string{w, "leave"}, []string{"king"})
			}
			if g < 2 {
				m.Neighbors(m.Word(g+1000), 3)
			}
		}()
	}
	wg.Wait()
}

// bench runs f b.N times and reports, besides ns/op, the process CPU time
// per op (cpu-ns/op), which stays meaningful on a machine shared with other
// work. Run with -cpu 1 so that only one thread does the work.
func bench(b *testing.B, f func()) {
	start := cpuTime()
	for b.Loop() {
		f()
	}
	if c := cpuTime() - start; c > 0 {
		b.ReportMetric(float64(c.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkLoad(b *testing.B) {
	bench(b, func() {
		if _, err := parse(embedded); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkSimilarity(b *testing.B) {
	m := Default()
	bench(b, func() { m.Similarity("parental", "maternity") })
}

func BenchmarkSimilarityFolded(b *testing.B) {
	m := Default()
	bench(b, func() { m.Similarity("Café", "Restaurant") })
}

func BenchmarkNeighbors(b *testing.B) {
	m := Default()
	bench(b, func() { m.Neighbors("king", 10) })
}

func BenchmarkPhraseSimilarity(b *testing.B) {
	m := Default()
	x, y := []string{"maternity", "leave", "policy"}, []string{"parental", "leave"}
	bench(b, func() { m.PhraseSimilarity(x, y) })
}
