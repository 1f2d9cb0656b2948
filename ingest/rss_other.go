//go:build !unix

package ingest

// PeakRSS returns 0: this system has no getrusage.
func PeakRSS() int64 { return 0 }
