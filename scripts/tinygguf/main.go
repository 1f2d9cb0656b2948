// Command tinygguf writes a tiny random-weight GGUF model (llama.cpp's
// qwen2 architecture) with a real tokenizer: the tokenizer metadata is
// copied from a vocab-only GGUF (llama.cpp ships
// models/ggml-vocab-qwen2.gguf) and a ChatML chat template is added when
// the vocab has none. The model's replies are noise; it exists so that
// scripts/llama-server.sh can run a real llama-server for DocMind's
// protocol tests in seconds on a CPU.
//
// Beside the model it writes OUT.logit-bias: llama-server --logit-bias
// arguments (TOKEN_ID+BIAS or TOKEN_ID-BIAS, one a line) that make greedy
// decoding prefer the tokens that end JSON values wherever the grammar of
// a json_schema request allows them. The weights stay random and say nothing; with the
// biases a schema reply ends within a couple of hundred tokens (every
// string ".", every array of one item, one-digit numbers) instead of
// running on to max_tokens, so DocMind parses the model's decomposition
// and verdict rather than falling back. A plain-text reply, which no
// grammar constrains, is a run of `."` up to its token limit.
//
//	go run ./scripts/tinygguf -vocab ggml-vocab-qwen2.gguf -out tiny.gguf
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
)

// GGUF value types.
const (
	tUint8 = iota
	tInt8
	tUint16
	tInt16
	tUint32
	tInt32
	tFloat32
	tBool
	tString
	tArray
	tUint64
	tInt64
	tFloat64
)

// chatML is Qwen2's chat template (system, user, assistant turns in
// <|im_start|>role … <|im_end|> blocks), used when the vocab has none.
const chatML = `{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system
You are a helpful assistant.<|im_end|>
' }}{% endif %}{{'<|im_start|>' + message['role'] + '
' + message['content'] + '<|im_end|>' + '
'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant
' }}{% endif %}`

// kv is one metadata entry: its key and its encoded type and value.
type kv struct {
	key string
	raw []byte // type (uint32) followed by the value, as in the file
}

func main() {
	vocab := flag.String("vocab", "", "vocab-only GGUF to take the tokenizer from")
	out := flag.String("out", "", "GGUF file to write")
	layers := flag.Int("layers", 2, "transformer blocks")
	embd := flag.Int("embd", 64, "embedding width")
	heads := flag.Int("heads", 4, "attention heads")
	kvHeads := flag.Int("kv-heads", 2, "key/value heads")
	ff := flag.Int("ff", 128, "feed-forward width")
	ctx := flag.Int("ctx", 32768, "training context length recorded in the model")
	seed := flag.Uint64("seed", 1, "seed of the random weights")
	flag.Parse()
	if *vocab == "" || *out == "" || *embd%*heads != 0 || *heads%*kvHeads != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*vocab, *out, params{*layers, *embd, *heads, *kvHeads, *ff, *ctx, *seed}); err != nil {
		fmt.Fprintln(os.Stderr, "tinygguf:", err)
		os.Exit(1)
	}
}

type params struct {
	layers, embd, heads, kvHeads, ff, ctx int
	seed                                  uint64
}

func run(vocabPath, outPath string, p params) error {
	kvs, err := readKVs(vocabPath)
	if err != nil {
		return fmt.Errorf("%s: %w", vocabPath, err)
	}
	nVocab, template := 0, false
	var keep []kv
	var tokens []string
	eos := -1
	for _, e := range kvs {
		switch {
		case e.key == "tokenizer.ggml.tokens":
			nVocab = int(binary.LittleEndian.Uint64(e.raw[8:16]))
			tokens = stringArray(e.raw)
		case e.key == "tokenizer.chat_template":
			template = true
		case e.key == "tokenizer.ggml.eos_token_id" && binary.LittleEndian.Uint32(e.raw) == tUint32:
			eos = int(binary.LittleEndian.Uint32(e.raw[4:]))
		}
		// Keep the tokenizer; the architecture and its hyperparameters
		// are this model's own.
		if strings.HasPrefix(e.key, "tokenizer.") {
			keep = append(keep, e)
		}
	}
	if nVocab == 0 {
		return fmt.Errorf("%s has no tokenizer.ggml.tokens", vocabPath)
	}
	bias, err := biasLines(tokens, eos)
	if err != nil {
		return fmt.Errorf("%s: %w", vocabPath, err)
	}
	const arch = "qwen2"
	meta := []kv{
		str("general.architecture", arch),
		str("general.name", "docmind-tiny-random-qwen2"),
		u32("general.alignment", 32),
		u32(arch+".context_length", p.ctx),
		u32(arch+".embedding_length", p.embd),
		u32(arch+".block_count", p.layers),
		u32(arch+".feed_forward_length", p.ff),
		u32(arch+".attention.head_count", p.heads),
		u32(arch+".attention.head_count_kv", p.kvHeads),
		f32(arch+".rope.freq_base", 1e6),
		f32(arch+".attention.layer_norm_rms_epsilon", 1e-6),
	}
	meta = append(meta, keep...)
	if !template {
		meta = append(meta, str("tokenizer.chat_template", chatML))
	}

	kvDim := p.embd / p.heads * p.kvHeads
	type tensor struct {
		name string
		dims []int // ne[0] first, as GGUF stores them
		norm bool  // all ones (a norm's weight) rather than random
	}
	tensors := []tensor{
		{"token_embd.weight", []int{p.embd, nVocab}, false},
		{"output_norm.weight", []int{p.embd}, true},
	}
	for i := 0; i < p.layers; i++ {
		b := fmt.Sprintf("blk.%d.", i)
		tensors = append(tensors,
			tensor{b + "attn_norm.weight", []int{p.embd}, true},
			tensor{b + "attn_q.weight", []int{p.embd, p.embd}, false},
			tensor{b + "attn_q.bias", []int{p.embd}, false},
			tensor{b + "attn_k.weight", []int{p.embd, kvDim}, false},
			tensor{b + "attn_k.bias", []int{kvDim}, false},
			tensor{b + "attn_v.weight", []int{p.embd, kvDim}, false},
			tensor{b + "attn_v.bias", []int{kvDim}, false},
			tensor{b + "attn_output.weight", []int{p.embd, p.embd}, false},
			tensor{b + "ffn_norm.weight", []int{p.embd}, true},
			tensor{b + "ffn_gate.weight", []int{p.embd, p.ff}, false},
			tensor{b + "ffn_up.weight", []int{p.embd, p.ff}, false},
			tensor{b + "ffn_down.weight", []int{p.ff, p.embd}, false},
		)
	}

	f, err := os.Create(outPath + ".tmp")
	if err != nil {
		return err
	}
	defer os.Remove(outPath + ".tmp")
	w := bufio.NewWriterSize(f, 1<<20)
	le := binary.LittleEndian
	put := func(v any) { _ = binary.Write(w, le, v) }
	w.WriteString("GGUF")
	put(uint32(3))
	put(uint64(len(tensors)))
	put(uint64(len(meta)))
	for _, e := range meta {
		writeString(w, e.key)
		w.Write(e.raw)
	}
	const align = 32
	size := func(t tensor) int {
		n := 4 // F32
		for _, d := range t.dims {
			n *= d
		}
		return n
	}
	offset := 0
	for _, t := range tensors {
		writeString(w, t.name)
		put(uint32(len(t.dims)))
		for _, d := range t.dims {
			put(uint64(d))
		}
		put(uint32(0)) // GGML_TYPE_F32
		put(uint64(offset))
		offset += (size(t) + align - 1) / align * align
	}
	// The data starts at the next multiple of the alignment.
	if err := w.Flush(); err != nil {
		return err
	}
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	w.Write(make([]byte, (align-int(pos)%align)%align))
	rng := rand.New(rand.NewPCG(p.seed, 0x646f636d696e64))
	var buf [4]byte
	for _, t := range tensors {
		n := size(t) / 4
		for i := 0; i < n; i++ {
			v := float32(1)
			if !t.norm {
				v = float32(rng.NormFloat64() * 0.02)
			}
			le.PutUint32(buf[:], math.Float32bits(v))
			w.Write(buf[:])
		}
		w.Write(make([]byte, (align-size(t)%align)%align))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(outPath+".tmp", outPath); err != nil {
		return err
	}
	if err := os.WriteFile(outPath+".logit-bias", []byte(strings.Join(bias, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "tinygguf: wrote %s (%s, %d layers, n_embd %d, %d tokens, %d tensors) and %s.logit-bias\n",
		outPath, arch, p.layers, p.embd, nVocab, len(tensors), outPath)
	return nil
}

// jsonBias is what greedy decoding should prefer where a grammar allows
// it, highest first. `."` (one token) ends a string with a full stop in
// it: a string that ends empty would leave the verdict's claim empty,
// which DocMind rejects. '"' opens the string that must come, '{' the
// object (a verdict's first claim) rather than ending its array, ']' and
// '}' end what they can (']' above ',': an array ends after its first
// item), ',' and ':' move on rather than a space or another digit, '['
// opens an array rather than a space, '-' never starts a number (the
// verdict's confidence must not be negative), and once the grammar is
// complete the end of text comes rather than trailing spaces. Inside a
// string only `."` wins, so every string ends at once.
var jsonBias = []struct {
	text string
	bias int
}{{`."`, 40}, {`"`, 30}, {"{", 25}, {"]", 20}, {"}", 20}, {",", 10}, {":", 10}, {"[", 10}, {"-", -100}}

// eosBias is the end of text's: below every positive bias of jsonBias,
// so it only wins where none of those tokens is allowed.
const eosBias = 5

// biasLines returns the --logit-bias arguments for the tokens of jsonBias
// (each a token of its own in the vocabulary) and the end of text.
func biasLines(tokens []string, eos int) ([]string, error) {
	id := map[string]int{}
	for i, t := range tokens {
		if _, ok := id[t]; !ok {
			id[t] = i
		}
	}
	var lines []string
	for _, b := range jsonBias {
		i, ok := id[b.text]
		if !ok {
			return nil, fmt.Errorf("the vocabulary has no token %q", b.text)
		}
		lines = append(lines, fmt.Sprintf("%d%+d", i, b.bias))
	}
	if eos >= 0 {
		lines = append(lines, fmt.Sprintf("%d%+d", eos, eosBias))
	}
	return lines, nil
}

// stringArray decodes an encoded array of strings (type, element type,
// count, then each string); nil for anything else.
func stringArray(raw []byte) []string {
	r := &reader{b: raw}
	if r.u32() != tArray || r.u32() != tString {
		return nil
	}
	n := r.u64()
	var out []string
	for i := uint64(0); i < n && r.err == nil; i++ {
		out = append(out, string(r.next(int(r.u64()))))
	}
	if r.err != nil {
		return nil
	}
	return out
}

func writeString(w io.Writer, s string) {
	_ = binary.Write(w, binary.LittleEndian, uint64(len(s)))
	io.WriteString(w, s)
}

func str(key, v string) kv {
	var b strings.Builder
	_ = binary.Write(&b, binary.LittleEndian, uint32(tString))
	writeString(&b, v)
	return kv{key, []byte(b.String())}
}

func u32(key string, v int) kv {
	raw := binary.LittleEndian.AppendUint32(nil, tUint32)
	return kv{key, binary.LittleEndian.AppendUint32(raw, uint32(v))}
}

func f32(key string, v float32) kv {
	raw := binary.LittleEndian.AppendUint32(nil, tFloat32)
	return kv{key, binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))}
}

// readKVs returns the metadata of a GGUF file (versions 2 and 3), each
// value kept as encoded.
func readKVs(path string) ([]kv, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &reader{b: data}
	if string(r.next(4)) != "GGUF" {
		return nil, errors.New("not a GGUF file")
	}
	if v := r.u32(); v < 2 || v > 3 {
		return nil, fmt.Errorf("GGUF version %d is not supported", v)
	}
	r.u64() // tensor count
	n := r.u64()
	var kvs []kv
	for i := uint64(0); i < n && r.err == nil; i++ {
		key := string(r.next(int(r.u64())))
		start := r.pos
		r.value(r.u32())
		if r.err == nil {
			kvs = append(kvs, kv{key, data[start:r.pos]})
		}
	}
	return kvs, r.err
}

type reader struct {
	b   []byte
	pos int
	err error
}

func (r *reader) next(n int) []byte {
	if r.err != nil || n < 0 || r.pos+n > len(r.b) {
		if r.err == nil {
			r.err = io.ErrUnexpectedEOF
		}
		return nil
	}
	r.pos += n
	return r.b[r.pos-n : r.pos]
}

func (r *reader) u32() uint32 {
	if b := r.next(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.next(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// value skips one value of type t.
func (r *reader) value(t uint32) {
	switch t {
	case tUint8, tInt8, tBool:
		r.next(1)
	case tUint16, tInt16:
		r.next(2)
	case tUint32, tInt32, tFloat32:
		r.next(4)
	case tUint64, tInt64, tFloat64:
		r.next(8)
	case tString:
		r.next(int(r.u64()))
	case tArray:
		et, n := r.u32(), r.u64()
		for i := uint64(0); i < n && r.err == nil; i++ {
			r.value(et)
		}
	default:
		if r.err == nil {
			r.err = fmt.Errorf("unknown GGUF value type %d", t)
		}
	}
}
