package index

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
)

// synthDigestWant is the digest of the benchmarks' synthetic corpus and
// queries. scripts/benchbleve (a separate module comparing DocMind with
// bleve) carries a copy of the generator in bench_test.go and checks the
// same constant: when this test fails, the generator changed, and the
// copy in scripts/benchbleve/synth.go must change with it.
const synthDigestWant = "a7ace2fab7e55d141c8edd0139bc9ed2a10addea8453e7394360f02dd369b814"

func TestSynthDigestForBenchBleve(t *testing.T) {
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
	if got := hex.EncodeToString(h.Sum(nil)); got != synthDigestWant {
		t.Fatalf("synthetic corpus digest %s, want %s: update scripts/benchbleve/synth.go and both constants", got, synthDigestWant)
	}
}
