package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// runLocks tells running runs from runs whose process is gone. The process
// running a run holds a lock on a file named after it (the folder beside
// the run database, "runs.db.running/<id>"); the operating system drops
// the lock when the process ends, however it ends (kill -9, crash, power
// cut), so a running run whose lock is free was interrupted.
type runLocks struct {
	dir  string
	mu   sync.Mutex
	held map[string]*os.File
}

func newRunLocks(dbPath string) *runLocks {
	return &runLocks{dir: dbPath + ".running", held: map[string]*os.File{}}
}

func (l *runLocks) path(id string) (string, bool) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return "", false
	}
	return filepath.Join(l.dir, id), true
}

// hold marks the run as run by this process until release. A run another
// process holds is left to it.
func (l *runLocks) hold(id string) error {
	p, ok := l.path(id)
	if !ok || !locksSupported {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[id] != nil {
		return nil
	}
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if ok, err := lockFile(f); !ok {
		f.Close()
		return err
	}
	l.held[id] = f
	return nil
}

// release ends this process's hold on the run and removes its lock file.
func (l *runLocks) release(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f := l.held[id]; f != nil {
		os.Remove(f.Name())
		f.Close()
		delete(l.held, id)
	}
}

// releaseAll releases every run this process holds.
func (l *runLocks) releaseAll() {
	l.mu.Lock()
	ids := make([]string, 0, len(l.held))
	for id := range l.held {
		ids = append(ids, id)
	}
	l.mu.Unlock()
	for _, id := range ids {
		l.release(id)
	}
}

// alive reports whether a process (this one or another) is running the run.
func (l *runLocks) alive(id string) bool {
	p, ok := l.path(id)
	if !ok || !locksSupported {
		return true
	}
	l.mu.Lock()
	mine := l.held[id] != nil
	l.mu.Unlock()
	return mine || lockHeld(p)
}

// mark reports a running run whose process is gone as interrupted.
func (l *runLocks) mark(r *Run) {
	if r.Status == StatusRunning && !l.alive(r.ID) {
		r.Status = StatusInterrupted
	}
}
