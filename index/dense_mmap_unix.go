//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package index

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only and shared: the pages
// are the page cache's, counted once however many processes search.
func mapFile(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmapFile(b []byte) { syscall.Munmap(b) }
