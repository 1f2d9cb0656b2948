//go:build unix

package checkpoint

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f without waiting; ok is false when
// another open file holds it.
func lockFile(f *os.File) (ok bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// lockHeld reports whether another open file holds a lock on the file at
// path (false when the file does not exist).
func lockHeld(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false
	}
	return errors.Is(err, syscall.EWOULDBLOCK)
}

// locksSupported says whether lockHeld tells live runs from dead ones.
const locksSupported = true
