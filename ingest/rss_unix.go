//go:build unix

package ingest

import (
	"runtime"
	"syscall"
)

// PeakRSS returns the process's peak resident set size so far, in bytes
// (getrusage's maxrss), or 0 when the system does not say.
func PeakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) // bytes there
	}
	return int64(ru.Maxrss) << 10 // KiB elsewhere
}
