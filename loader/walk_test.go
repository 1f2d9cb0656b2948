//go:build unix

package loader

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Named pipes, links to them and to endless devices are listed with a
// reason and never opened; reading them directly fails at once; every
// read is bounded by the size limit.
func TestWalkAndReadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nText.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink(filepath.Join(dir, "pipe"), filepath.Join(dir, "pipe-link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.txt")); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		files, _, err := Walk([]string{dir}, WalkOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		got := map[string]string{}
		for _, f := range files {
			got[filepath.Base(f.Path)] = f.Skip
		}
		for name, want := range map[string]string{"a.md": "", "pipe": "named pipe", "pipe-link.txt": "named pipe", "zero.txt": "character device"} {
			skip, ok := got[name]
			if !ok || (want == "") != (skip == "") || !strings.Contains(skip, want) {
				t.Errorf("%s: listed %v, skip %q; want skip containing %q", name, ok, skip, want)
			}
		}
		for _, p := range []string{"/dev/zero", filepath.Join(dir, "pipe"), filepath.Join(dir, "pipe-link.txt"), filepath.Join(dir, "zero.txt")} {
			if _, _, err := ReadFile(p, 1<<20); err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("ReadFile(%s) = %v, want not a regular file", p, err)
			}
		}
		l := New()
		secs, rep, err := l.LoadDir(context.Background(), dir)
		if err != nil || len(secs) == 0 || len(rep.Skipped) != 3 {
			t.Errorf("LoadDir: %d sections, skipped %+v, %v", len(secs), rep.Skipped, err)
		}
		if _, err := l.ParseFile(context.Background(), "/dev/zero"); err == nil {
			t.Error("ParseFile(/dev/zero) succeeded")
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("walking or reading special files hung")
	}
}

func TestReadFileBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", 2000)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := ReadFile(p, 1000)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Max != 1000 || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("ReadFile over the limit: %v", err)
	}
	data, _, err := ReadFile(p, 2000)
	if err != nil || len(data) != 2000 {
		t.Fatalf("ReadFile at the limit: %d bytes, %v", len(data), err)
	}
}

// A symbolic link to a file outside the folder is listed with a reason and
// not read unless FollowSymlinks is set; links inside the folder are read.
func TestWalkSymlinksOutOfFolder(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	for p, text := range map[string]string{
		filepath.Join(dir, "a.txt"):         "inside",
		filepath.Join(dir, "sub", "b.txt"):  "inside too",
		filepath.Join(elsewhere, "key.txt"): "secret",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"in.txt":          filepath.Join(dir, "a.txt"),
		"sub/up.txt":      "../a.txt",
		"out.txt":         filepath.Join(elsewhere, "key.txt"),
		"sub/relout.txt":  filepath.Join("..", "..", filepath.Base(elsewhere), "key.txt"),
		"sub/dotdot.txt":  "../../" + filepath.Base(dir) + "/a.txt", // leaves and comes back: inside
		"sub/chain.txt":   "../out.txt",                             // a link inside to a link outside
		"sub/dangling.md": filepath.Join(elsewhere, "gone.txt"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	outside := map[string]bool{"out.txt": true, "sub/relout.txt": true, "sub/chain.txt": true}
	for _, follow := range []bool{false, true} {
		files, _, err := Walk([]string{dir}, WalkOptions{FollowSymlinks: follow})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]File{}
		for _, f := range files {
			rel, _ := filepath.Rel(dir, f.Path)
			got[filepath.ToSlash(rel)] = f
		}
		for _, name := range []string{"a.txt", "sub/b.txt", "in.txt", "sub/up.txt", "sub/dotdot.txt", "out.txt", "sub/relout.txt", "sub/chain.txt", "sub/dangling.md"} {
			f, ok := got[name]
			switch {
			case !ok:
				t.Errorf("follow=%v: %s not listed", follow, name)
			case name == "sub/dangling.md":
				if f.Skip != "file not found" {
					t.Errorf("follow=%v: dangling link skip %q, want file not found", follow, f.Skip)
				}
			case outside[name] && !follow:
				if !f.Outside || !strings.Contains(f.Skip, "outside the folder") || !strings.Contains(f.Skip, filepath.Join(elsewhere, "key.txt")) {
					t.Errorf("%s: %+v; want skipped as a link outside the folder to %s", name, f, filepath.Join(elsewhere, "key.txt"))
				}
			default:
				if f.Skip != "" || f.Outside {
					t.Errorf("follow=%v: %s skipped: %q", follow, name, f.Skip)
				}
			}
		}
	}
	// A link given directly is read: the user named it.
	files, _, _ := Walk([]string{filepath.Join(dir, "out.txt")}, WalkOptions{})
	if len(files) != 1 || files[0].Skip != "" {
		t.Errorf("a link given directly: %+v", files)
	}
}
