package main

import (
	"strings"
	"testing"
)

// TestAskCapsTheQuestion: ask refuses a question above 64 KiB at once
// with one line, as chat and serve do (it took 51 s over 1 MB).
func TestAskCapsTheQuestion(t *testing.T) {
	q := strings.Repeat("late fee ", (64<<10)/9+1)
	r := runInProcess(t, nil, "ask", "--docs", "examples/contract", q)
	if r.code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr %s", r.code, exitUsage, r.stderr)
	}
	assertOneLineError(t, r, "a question may have at most 64 KiB")
}
