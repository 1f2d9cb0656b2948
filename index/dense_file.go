package index

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"unsafe"
)

// The dense file holds an index's vectors as int8 codes, one scale per
// vector, in a flat file beside the database (DenseFileSuffix), mapped
// into memory rather than read into the heap. Dense search scans the codes
// and rescores the best candidates with the full-precision vectors from the
// database, so the file only chooses candidates and never decides a score.
//
// Layout, little-endian:
//
//	0     magic "DMDENSE1"
//	8     uint32 format version (denseFileVersion)
//	12    uint32 dimension
//	16    uint64 vector count n
//	24    uint64 offset of the scales, 32    uint64 offset of the ids
//	40    uint64 file size
//	48    uint32 CRC-32C of everything after the header
//	52    uint16 length of the model name, 54 uint16 length of the generation
//	56    model name, then generation (denseMaxMeta bytes at most each)
//	4092  uint32 CRC-32C of the header's first 4092 bytes
//	4096  codes: n*dim int8, in section id order
//	      scales: n float32 (8-aligned offset)
//	      ids:    n int64 section ids, strictly increasing (8-aligned offset)
//	      signs:  n * signWords(dim) uint64, bit j set when component j > 0
//
// A file is written whole under a temporary name, synced and renamed into
// place, so a reader sees an old file or a complete new one. It is
// trusted only when its header and body checksums hold, its size and
// offsets agree, and it matches the database: the same generation (bumped
// by every write), model and dimension, the same last section id, and the
// same codes for sampled vectors re-read from the database. Anything else
// (torn, truncated, corrupt, stale, another database's) is rebuilt.
const (
	// DenseFileSuffix is appended to the database path to name the
	// dense file ("docmind.db-dense").
	DenseFileSuffix = "-dense"

	denseMagic       = "DMDENSE1"
	denseFileVersion = 2
	denseHeaderSize  = 4096
	denseMaxMeta     = 1024
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// denseFile is an opened, verified dense file.
type denseFile struct {
	generation string
	model      string
	dim        int
	ids        []int64
	scales     []float32
	codes      []int8   // len(ids)*dim, inside mem
	signs      []uint64 // len(ids)*signWords(dim): inside mem where aligned
	mem        []byte   // the mapping (or the read file)
}

func align8(n int64) int64 { return (n + 7) &^ 7 }

// denseLayout returns the offsets of the scales and ids and the file size
// for n vectors of dimension dim.
func denseLayout(n, dim int64) (scalesOff, idsOff, size int64) {
	scalesOff = align8(denseHeaderSize + n*dim)
	idsOff = align8(scalesOff + 4*n)
	return scalesOff, idsOff, idsOff + 8*n + 8*n*int64(signWords(int(dim)))
}

// signWords is the number of 64-bit words of a vector's sign bits.
func signWords(dim int) int { return (dim + 63) / 64 }

// setSigns sets bit j of dst (zeroed) when codes[j] > 0.
func setSigns(dst []uint64, codes []int8) {
	for j, c := range codes {
		if c > 0 {
			dst[j/64] |= 1 << (j % 64)
		}
	}
}

// openDenseFile maps the dense file at path and verifies it on its own
// (checksums, size, layout, id order); the caller checks it against the
// database. The mapping is released when the returned value is no longer
// reachable.
func openDenseFile(path string) (*denseFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size < denseHeaderSize {
		return nil, fmt.Errorf("dense file %s: %d bytes, shorter than its header (torn or not a dense file)", path, size)
	}
	if size > math.MaxInt {
		return nil, fmt.Errorf("dense file %s: %d bytes, too large to map", path, size)
	}
	mem, err := mapFile(f, int(size))
	if err != nil {
		return nil, fmt.Errorf("dense file %s: map: %w", path, err)
	}
	df, err := parseDenseFile(mem)
	if err != nil {
		unmapFile(mem)
		return nil, fmt.Errorf("dense file %s: %w", path, err)
	}
	runtime.AddCleanup(df, func(m []byte) { unmapFile(m) }, mem)
	return df, nil
}

func parseDenseFile(mem []byte) (*denseFile, error) {
	h := mem[:denseHeaderSize]
	le := binary.LittleEndian
	if string(h[:8]) != denseMagic {
		return nil, errors.New("not a dense file (bad magic)")
	}
	if crc32.Checksum(h[:denseHeaderSize-4], castagnoli) != le.Uint32(h[denseHeaderSize-4:]) {
		return nil, errors.New("header checksum mismatch (torn or corrupt)")
	}
	if v := le.Uint32(h[8:]); v != denseFileVersion {
		return nil, fmt.Errorf("format version %d, want %d", v, denseFileVersion)
	}
	dim, n := int64(le.Uint32(h[12:])), le.Uint64(h[16:])
	if dim == 0 || n > uint64(len(mem))/uint64(dim) {
		return nil, fmt.Errorf("bad header: %d vectors of dimension %d in %d bytes", n, dim, len(mem))
	}
	scalesOff, idsOff, size := denseLayout(int64(n), dim)
	if int64(le.Uint64(h[24:])) != scalesOff || int64(le.Uint64(h[32:])) != idsOff || int64(le.Uint64(h[40:])) != size {
		return nil, errors.New("bad header: offsets disagree with the vector count")
	}
	if size != int64(len(mem)) {
		return nil, fmt.Errorf("%d bytes, header says %d (torn or truncated)", len(mem), size)
	}
	if crc32.Checksum(mem[denseHeaderSize:], castagnoli) != le.Uint32(h[48:]) {
		return nil, errors.New("body checksum mismatch (torn or corrupt)")
	}
	ml, gl := int(le.Uint16(h[52:])), int(le.Uint16(h[54:]))
	if ml > denseMaxMeta || gl > denseMaxMeta {
		return nil, errors.New("bad header: metadata too long")
	}
	df := &denseFile{
		model:      string(h[56 : 56+ml]),
		generation: string(h[56+ml : 56+ml+gl]),
		dim:        int(dim),
		ids:        make([]int64, n),
		scales:     make([]float32, n),
		codes:      bytesAsInt8(mem[denseHeaderSize : denseHeaderSize+int64(n)*dim]),
		mem:        mem,
	}
	signsOff := idsOff + 8*int64(n)
	df.signs = wordsOf(mem[signsOff:])
	for i := range df.ids {
		df.scales[i] = math.Float32frombits(le.Uint32(mem[scalesOff+4*int64(i):]))
		df.ids[i] = int64(le.Uint64(mem[idsOff+8*int64(i):]))
		if i > 0 && df.ids[i] <= df.ids[i-1] {
			return nil, errors.New("section ids out of order")
		}
	}
	return df, nil
}

// signMin is the number of vectors from which a scan reads the sign bits
// of every vector (1/8 of the int8 codes' bytes) and the int8 codes of
// only the signCandidates nearest by Hamming distance. Below it every
// code is read and the candidates rescored are those of the whole index.
var signMin = 250_000

// signCandidates is how many vectors the sign-bit pass keeps of n: 10%
// (at least 2,000). On the benchmark's vectors, the hard case, 5% gave
// recall@10 0.978 at 100k but 0.95 at 30k; 10% gave 1.000 at 100k (see
// docs/notes/dense.md).
func signCandidates(n int) int { return min(n, max(n/10, 2000)) }

// scan estimates the dot product of the query codes qc (scale qs) with
// the file's vectors: every one below signMin vectors; from it up, the
// signCandidates best by sign bits, the others left at -Inf. A fault
// while reading the mapping — the file truncated under it by another
// program — is returned as an error, not a crash.
func (df *denseFile) scan(qc []int8, qs float32) ([]float32, error) {
	defer runtime.KeepAlive(df)
	n := len(df.ids)
	sims := make([]float32, n)
	if n < signMin {
		err := parallelGuarded(n, func(i int) {
			sims[i] = float32(dotInt8(df.code(i), qc)) * df.scales[i] * qs
		})
		return sims, err
	}
	sw := signWords(df.dim)
	qsig := make([]uint64, sw)
	setSigns(qsig, qc)
	ham := make([]uint16, n)
	if err := parallelGuarded(n, func(i int) {
		h := 0
		for j, w := range df.signs[i*sw : (i+1)*sw] {
			h += bits.OnesCount64(w ^ qsig[j])
		}
		ham[i] = uint16(h)
	}); err != nil {
		return nil, err
	}
	// The cut: the smallest distance within which signCandidates lie
	// (a histogram, O(n)).
	hist := make([]int, df.dim+1)
	for _, h := range ham {
		hist[h]++
	}
	cut, acc := 0, 0
	for m := signCandidates(n); cut < len(hist) && acc+hist[cut] < m; cut++ {
		acc += hist[cut]
	}
	cand := make([]int, 0, acc+hist[min(cut, len(hist)-1)])
	for i, h := range ham {
		sims[i] = float32(math.Inf(-1))
		if int(h) <= cut {
			cand = append(cand, i)
		}
	}
	err := parallelGuarded(len(cand), func(k int) {
		i := cand[k]
		sims[i] = float32(dotInt8(df.code(i), qc)) * df.scales[i] * qs
	})
	return sims, err
}

// parallelGuarded is eachRowParallel over a mapping: a memory fault in f
// (the mapped file truncated) is returned as an error.
func parallelGuarded(n int, f func(i int)) error {
	var mu sync.Mutex
	var fault error
	eachRangeParallel(n, func(lo, hi int) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if r := recover(); r != nil {
				mu.Lock()
				fault = fmt.Errorf("dense file: read fault (changed under the search): %v", r)
				mu.Unlock()
			}
		}()
		for i := lo; i < hi; i++ {
			f(i)
		}
	})
	return fault
}

// wordsOf views b as little-endian 64-bit words: in place where the host
// is little-endian and b aligned, else decoded into a copy.
func wordsOf(b []byte) []uint64 {
	n := len(b) / 8
	if n == 0 {
		return nil
	}
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 && uintptr(unsafe.Pointer(&b[0]))%8 == 0 {
		return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
	}
	w := make([]uint64, n)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return w
}

// code returns the codes of the vector at position i.
func (df *denseFile) code(i int) []int8 { return df.codes[i*df.dim : (i+1)*df.dim] }

// writeDenseFile writes the dense file for the vectors that each yields
// (section id, encoded float32 vector of dim components; in increasing id
// order) to path, atomically: a temporary file in the same folder,
// synced, then renamed. Memory is the ids and scales (12 bytes a vector)
// plus buffers.
func writeDenseFile(ctx context.Context, path, model, generation string, dim int, each func(f func(id int64, b []byte) error) error) (err error) {
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("write dense file: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	h, err := encodeDenseFile(ctx, bw, model, generation, dim, each)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		_, err = tmp.WriteAt(h, 0)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		err = tmp.Close()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write dense file: %w", err)
	}
	syncDir(dir)
	return nil
}

// memDenseFile builds the dense file in memory (the int8 size of the
// vectors, on the heap), for an index in a folder it cannot write;
// sizeHint is the expected number of vectors.
func memDenseFile(ctx context.Context, model, generation string, dim, sizeHint int, each func(f func(id int64, b []byte) error) error) (*denseFile, error) {
	var buf bytes.Buffer
	_, _, size := denseLayout(int64(sizeHint), int64(dim))
	buf.Grow(int(size))
	h, err := encodeDenseFile(ctx, &buf, model, generation, dim, each)
	if err != nil {
		return nil, fmt.Errorf("build dense vectors in memory: %w", err)
	}
	mem := buf.Bytes()
	copy(mem, h)
	return parseDenseFile(mem)
}

// encodeDenseFile writes a zeroed header and the body of a dense file to
// w and returns the header to put in its place.
func encodeDenseFile(ctx context.Context, w io.Writer, model, generation string, dim int, each func(f func(id int64, b []byte) error) error) ([]byte, error) {
	if len(model) > denseMaxMeta || len(generation) > denseMaxMeta {
		return nil, errors.New("model name or generation too long")
	}
	crc := crc32.New(castagnoli)
	body := io.MultiWriter(w, crc)
	if _, err := w.Write(make([]byte, denseHeaderSize)); err != nil {
		return nil, err
	}
	var ids []int64
	var scales []float32
	var signs []uint64
	sw := signWords(dim)
	vec := make([]float32, dim)
	codes := make([]int8, dim)
	err := each(func(id int64, b []byte) error {
		if len(b) != 4*dim {
			return fmt.Errorf("vector of section %d has %d bytes, want %d", id, len(b), 4*dim)
		}
		if len(ids)%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if len(ids) > 0 && id <= ids[len(ids)-1] {
			return fmt.Errorf("section ids out of order at %d", id)
		}
		decodeVectorInto(vec, b)
		scales = append(scales, quantize(codes, vec))
		ids = append(ids, id)
		signs = append(signs, make([]uint64, sw)...)
		setSigns(signs[len(signs)-sw:], codes)
		_, err := body.Write(int8AsBytes(codes))
		return err
	})
	if err != nil {
		return nil, err
	}
	n := int64(len(ids))
	scalesOff, idsOff, size := denseLayout(n, int64(dim))
	le := binary.LittleEndian
	buf := make([]byte, 0, (12+8*int64(sw))*n+16)
	buf = append(buf, make([]byte, scalesOff-(denseHeaderSize+n*int64(dim)))...)
	for _, s := range scales {
		buf = le.AppendUint32(buf, math.Float32bits(s))
	}
	buf = append(buf, make([]byte, idsOff-(scalesOff+4*n))...)
	for _, id := range ids {
		buf = le.AppendUint64(buf, uint64(id))
	}
	for _, w := range signs {
		buf = le.AppendUint64(buf, w)
	}
	if _, err := body.Write(buf); err != nil {
		return nil, err
	}
	h := make([]byte, denseHeaderSize)
	copy(h, denseMagic)
	le.PutUint32(h[8:], denseFileVersion)
	le.PutUint32(h[12:], uint32(dim))
	le.PutUint64(h[16:], uint64(n))
	le.PutUint64(h[24:], uint64(scalesOff))
	le.PutUint64(h[32:], uint64(idsOff))
	le.PutUint64(h[40:], uint64(size))
	le.PutUint32(h[48:], crc.Sum32())
	le.PutUint16(h[52:], uint16(len(model)))
	le.PutUint16(h[54:], uint16(len(generation)))
	copy(h[56:], model)
	copy(h[56+len(model):], generation)
	le.PutUint32(h[denseHeaderSize-4:], crc32.Checksum(h[:denseHeaderSize-4], castagnoli))
	return h, nil
}

// syncDir makes a rename in dir durable where the platform allows it.
func syncDir(dir string) {
	if dir == "" {
		dir = "."
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
