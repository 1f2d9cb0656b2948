package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vocabGGUF writes a vocab-only GGUF holding tokens and an end-of-text id.
func vocabGGUF(t *testing.T, tokens []string, eos int) string {
	t.Helper()
	le := binary.LittleEndian
	arr := le.AppendUint32(nil, tArray)
	arr = le.AppendUint32(arr, tString)
	arr = le.AppendUint64(arr, uint64(len(tokens)))
	for _, tok := range tokens {
		arr = le.AppendUint64(arr, uint64(len(tok)))
		arr = append(arr, tok...)
	}
	kvs := []kv{str("general.architecture", "qwen2"), str("tokenizer.ggml.model", "gpt2"),
		{"tokenizer.ggml.tokens", arr}, u32("tokenizer.ggml.eos_token_id", eos)}
	b := []byte("GGUF")
	b = le.AppendUint32(b, 3)
	b = le.AppendUint64(b, 0)
	b = le.AppendUint64(b, uint64(len(kvs)))
	for _, e := range kvs {
		b = le.AppendUint64(b, uint64(len(e.key)))
		b = append(b, e.key...)
		b = append(b, e.raw...)
	}
	path := filepath.Join(t.TempDir(), "vocab.gguf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The model keeps the vocab's tokenizer, takes its own architecture, and
// the bias file names each JSON token by its id, and the end of text.
func TestRunWritesModelAndBias(t *testing.T) {
	tokens := []string{"!", `"`, "-", ",", ":", "[", "]", "{", "}", `."`, "hello", "<|endoftext|>"}
	vocab := vocabGGUF(t, tokens, 11)
	out := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := run(vocab, out, params{layers: 1, embd: 8, heads: 2, kvHeads: 1, ff: 16, ctx: 64, seed: 1}); err != nil {
		t.Fatal(err)
	}
	kvs, err := readKVs(out)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string][]byte{}
	for _, e := range kvs {
		keys[e.key] = e.raw
	}
	if got := stringArray(keys["tokenizer.ggml.tokens"]); strings.Join(got, " ") != strings.Join(tokens, " ") {
		t.Errorf("tokens = %q", got)
	}
	for _, k := range []string{"qwen2.block_count", "qwen2.embedding_length", "tokenizer.chat_template", "tokenizer.ggml.eos_token_id"} {
		if keys[k] == nil {
			t.Errorf("model lacks %s", k)
		}
	}
	b, err := os.ReadFile(out + ".logit-bias")
	if err != nil {
		t.Fatal(err)
	}
	want := "9+40\n1+30\n7+25\n6+20\n8+20\n3+10\n4+10\n5+10\n2-100\n11+5\n"
	if string(b) != want {
		t.Errorf("logit-bias file:\n%s\nwant:\n%s", b, want)
	}
}

// A vocabulary without one of the JSON tokens is an error, not a
// shorter bias list, and no model is written.
func TestRunNeedsEveryJSONToken(t *testing.T) {
	vocab := vocabGGUF(t, []string{`"`, "]", "}", "hello"}, 3)
	out := filepath.Join(t.TempDir(), "tiny.gguf")
	err := run(vocab, out, params{layers: 1, embd: 8, heads: 2, kvHeads: 1, ff: 16, ctx: 64, seed: 1})
	if err == nil || !strings.Contains(err.Error(), "has no token") {
		t.Errorf("err = %v, want a missing token", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the model was written")
	}
}
