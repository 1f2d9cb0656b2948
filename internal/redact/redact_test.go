package redact

import (
	"bytes"
	"fmt"
	"testing"
)

func TestString(t *testing.T) {
	Add("my-own-proxy-key-42", "test")
	for in, want := range map[string]string{
		"Incorrect API key provided: sk-proj-AbCdEf0123456789.":  "Incorrect API key provided: [redacted].",
		"header Authorization: Bearer abc.def-ghi_jkl":           "header Authorization: Bearer [redacted]",
		"key my-own-proxy-key-42 rejected":                       "key [redacted] rejected",
		"a test of short keys and sk-short stays":                "a test of short keys and sk-short stays",
		"nothing secret in HTTP 500 Internal Server Error today": "nothing secret in HTTP 500 Internal Server Error today",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(Writer(&b), "docmind: %s\n", "bad key sk-ant-api03-xyzxyzxyz")
	if b.String() != "docmind: bad key [redacted]\n" {
		t.Errorf("Writer wrote %q", b.String())
	}
}
