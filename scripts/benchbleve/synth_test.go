package main

import "testing"

// The same constant as synthDigestWant in index/synth_digest_test.go:
// the copied generator produces the sections and queries of the index
// package's benchmarks.
const synthDigestWant = "a7ace2fab7e55d141c8edd0139bc9ed2a10addea8453e7394360f02dd369b814"

func TestSynthDigest(t *testing.T) {
	if got := synthDigest(); got != synthDigestWant {
		t.Fatalf("synthetic corpus digest %s, want %s (index/synth_digest_test.go): the copy of the generator differs from index/bench_test.go", got, synthDigestWant)
	}
}
