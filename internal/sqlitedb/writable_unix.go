//go:build unix

package sqlitedb

import "golang.org/x/sys/unix"

// writable reports whether this process may write path (a file, or a
// folder to create files in).
func writable(path string) bool {
	return unix.Access(path, unix.W_OK) == nil
}
