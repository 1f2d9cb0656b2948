package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// Ingest bounds the Go runtime's memory softly while it runs, and puts
// the previous limit back; $GOMEMLIMIT overrides it.
func TestIngestBoundsMemoryWhileItRuns(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	if before != math.MaxInt64 {
		t.Skipf("a memory limit (%d) is already set", before)
	}
	a := &app{getenv: func(string) string { return "" }}
	restore := a.boundIngestMemory()
	if got := debug.SetMemoryLimit(-1); got != ingestMemoryLimit {
		restore()
		t.Fatalf("limit during ingest %d, want %d", got, ingestMemoryLimit)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Fatalf("limit after ingest %d, want %d back", got, before)
	}
	a.getenv = func(k string) string {
		if k == "GOMEMLIMIT" {
			return "1GiB"
		}
		return ""
	}
	restore = a.boundIngestMemory()
	defer restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Fatalf("limit with $GOMEMLIMIT set %d, want it left at %d", got, before)
	}
}
