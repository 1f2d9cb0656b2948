//go:build unix

package sqlitedb

import (
	"database/sql"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A WAL database in a folder this process cannot write (another user's
// index, a read-only mount) is read: SQLite cannot create the -wal and
// -shm files beside it, and used to fail with "attempt to write a
// readonly database". Run as root, the check runs in a child process as
// the user nobody, since root writes anything.
func TestReadOnlyFolderIsRead(t *testing.T) {
	if p := os.Getenv("SQLITEDB_READONLY_PATH"); p != "" {
		readRows(t, p)
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "idx", "x.db")
	db, err := Open(path, "journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE t(v TEXT); INSERT INTO t VALUES ('kept')`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("a -wal file was left after close; the test needs none")
	}
	for _, p := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(path), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Dir(path), 0o755) })
	if os.Geteuid() != 0 {
		readRows(t, path)
		return
	}
	// the test binary, where nobody may run it
	bin := filepath.Join(dir, "test.bin")
	copyFile(t, os.Args[0], bin)
	cmd := exec.Command(bin, "-test.run", "^TestReadOnlyFolderIsRead$", "-test.v")
	cmd.Env = append(os.Environ(), "SQLITEDB_READONLY_PATH="+path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Error("reading wrote a -wal file")
	}
}

func readRows(t *testing.T, path string) {
	t.Helper()
	if !ReadOnly(path) {
		t.Fatalf("ReadOnly(%s) = false in a folder this process cannot write", path)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRow(`SELECT v FROM t`).Scan(&v); err != nil || v != "kept" {
		t.Fatalf("read %q, %v", v, err)
	}
	// a write fails, with SQLite's read-only error
	if _, err := db.Exec(`INSERT INTO t VALUES ('x')`); err == nil {
		t.Fatal("a write to a read-only database succeeded")
	}
	// the DSN for direct readers opens it too
	db2, err := sql.Open("sqlite", ReadDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if err := db2.QueryRow(`SELECT v FROM t`).Scan(&v); err != nil {
		t.Fatalf("ReadDSN: %v", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
