//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package index

import (
	"io"
	"os"
)

// mapFile reads the first size bytes of f into memory: this platform has
// no memory mapping here, so the codes live on the heap.
func mapFile(f *os.File, size int) ([]byte, error) {
	b := make([]byte, size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, err
	}
	return b, nil
}

func unmapFile([]byte) {}
