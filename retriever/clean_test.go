package retriever

import (
	"strings"
	"testing"
)

// A model's reply is cut after "query:" at offsets into the reply itself:
// offsets found in a lower-cased copy ran past the end of a reply that
// lower-casing lengthens (invalid UTF-8 becomes U+FFFD) and panicked.
func TestCleanQueryOffsets(t *testing.T) {
	for in, want := range map[string]string{
		"Query: late payment fee":    "late payment fee",
		"Rewritten QUERY: fee terms": "fee terms",
		"\x93\x93query:":             "",
		"\x93\x93query: x":           "x",
		"İİİ query: notice":          "notice",
	} {
		if got := cleanQuery(in); got != want {
			t.Errorf("cleanQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzCleanQuery reads any model reply as a rewritten query: it must not
// panic, and what it returns is one line.
func FuzzCleanQuery(f *testing.F) {
	for _, s := range []string{"Query: late payment fee", "```\nquery: x\n```", "\x93\x93query: x", "İİİ query: notice", "", "\n\n", "\"'`“”* "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := cleanQuery(s); strings.ContainsAny(got, "\n\r") {
			t.Errorf("cleanQuery(%q) = %q: more than one line", s, got)
		}
	})
}
