package loader

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// File is one file found by Walk.
type File struct {
	// Path is the file's path, under the argument of Walk it was found in.
	Path string
	// Size is the size the walk saw (0 when unknown).
	Size int64
	// Skip, when set, says why the file cannot be read (it was found but
	// is not a regular file, or could not be listed) or is not read.
	Skip string
	// Outside is set (with Skip) on a symbolic link to a file outside the
	// folder being walked, not followed without WalkOptions.FollowSymlinks.
	Outside bool
}

// WalkOptions configure Walk.
type WalkOptions struct {
	// IncludeHidden also lists files and folders whose name starts with a
	// dot (skipped by default).
	IncludeHidden bool
	// Exclude, when set, drops the files whose absolute path it returns
	// true for
	// (an index's own database files, for example).
	Exclude func(path string) bool
	// FollowSymlinks also reads symbolic links to files outside the folder
	// being walked; by default they are listed with Skip and Outside set.
	// Links inside the folder are always read (links to folders are never
	// followed).
	FollowSymlinks bool
}

// Walk lists the files under paths — files and folders, folders
// recursively — sorted per argument, each listed once. A file's path
// starts with the argument it was found under (pass absolute paths to get
// absolute ones).
// It is the one walker of DocMind: docmind ingest, ask --docs and
// LoadDocuments all read the files it lists. Hidden files and folders are
// left out unless asked for; files that are not regular (named pipes,
// sockets, devices, also through a symbolic link) and paths that cannot be
// read are listed with Skip set, so that callers report them without ever
// opening them. Symbolic links to files outside the folder they were found
// in are listed with Skip unless FollowSymlinks is set (a path given
// directly is always read). roots are the absolute forms of paths.
func Walk(paths []string, opt WalkOptions) (files []File, roots []string, err error) {
	seen := map[string]bool{}
	add := func(f File) {
		abs, err := filepath.Abs(f.Path)
		if err != nil {
			abs = f.Path
		}
		if !seen[abs] && (opt.Exclude == nil || !opt.Exclude(abs)) {
			seen[abs] = true
			files = append(files, f)
		}
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		roots = append(roots, abs)
		root := filepath.Clean(p)
		fi, err := os.Stat(root)
		if err != nil {
			add(File{Path: root, Skip: DescribeFSError(err)})
			continue
		}
		if !fi.IsDir() {
			add(fileOf(root, fi))
			continue
		}
		realRoot, err := filepath.EvalSymlinks(root)
		if err != nil {
			realRoot = root
		}
		var list []File
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				list = append(list, File{Path: path, Skip: DescribeFSError(err)})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if path != root && !opt.IncludeHidden && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			// Stat follows symbolic links: a link is judged by its target.
			info, err := os.Stat(path)
			if err != nil {
				list = append(list, File{Path: path, Skip: DescribeFSError(err)})
				return nil
			}
			if info.IsDir() {
				return nil // a link to a folder is not followed
			}
			f := fileOf(path, info)
			if f.Skip == "" && d.Type()&fs.ModeSymlink != 0 && !opt.FollowSymlinks {
				if target, out := leaves(path, realRoot); out {
					f = File{Path: path, Skip: "symbolic link to " + target + ", outside the folder: not followed (--follow-symlinks reads it)", Outside: true}
				}
			}
			list = append(list, f)
			return nil
		})
		sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
		for _, f := range list {
			add(f)
		}
	}
	return files, roots, nil
}

// leaves reports whether the symbolic link at path resolves to a file
// outside the folder realRoot (a path without symbolic links), and where.
func leaves(path, realRoot string) (string, bool) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path, true
	}
	rel, err := filepath.Rel(realRoot, target)
	return target, err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func fileOf(path string, fi fs.FileInfo) File {
	if !fi.Mode().IsRegular() {
		return File{Path: path, Skip: notRegular(fi.Mode())}
	}
	return File{Path: path, Size: fi.Size()}
}

// notRegular names what a non-regular file is.
func notRegular(m fs.FileMode) string {
	kind := "special file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	case m&fs.ModeSocket != 0:
		kind = "socket"
	case m&fs.ModeCharDevice != 0:
		kind = "character device"
	case m&fs.ModeDevice != 0:
		kind = "device"
	case m.IsDir():
		kind = "folder"
	}
	return "not a regular file (" + kind + ")"
}

// TooLargeError is returned by ReadFile for a file larger than the limit.
type TooLargeError struct{ Size, Max int64 }

func (e *TooLargeError) Error() string {
	if e.Size <= e.Max {
		return fmt.Sprintf("file grew past the %s limit while being read", HumanBytes(e.Max))
	}
	return fmt.Sprintf("file is %s, larger than the %s limit", HumanBytes(e.Size), HumanBytes(e.Max))
}

// ReadFile reads a regular file of at most max bytes (max <= 0: no limit).
// It never blocks on a named pipe or device and never reads more than max
// bytes, even when the file grows or is swapped for another between the
// check and the read: it opens without blocking, checks the opened file
// and reads through a limit. Errors do not repeat the path.
func ReadFile(path string, max int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := OpenFile(path, max)
	if err != nil {
		return nil, fi, err
	}
	defer f.Close()
	data, err := io.ReadAll(LimitReader(f, max))
	if err != nil {
		return nil, fi, errors.New(DescribeFSError(err))
	}
	if max > 0 && int64(len(data)) > max {
		return nil, fi, &TooLargeError{Size: fi.Size(), Max: max}
	}
	return data, fi, nil
}

// OpenFile opens a regular file for reading as ReadFile does (never
// blocking on a pipe or device), checking its size against max (0 = no
// limit) when opened; read it through LimitReader, since it may grow.
func OpenFile(path string, max int64) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, errors.New(DescribeFSError(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, errors.New(notRegular(fi.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fi, errors.New(DescribeFSError(err))
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, fi, errors.New(DescribeFSError(err))
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, errors.New(notRegular(fi.Mode()))
	}
	if max > 0 && fi.Size() > max {
		f.Close()
		return nil, fi, &TooLargeError{Size: fi.Size(), Max: max}
	}
	return f, fi, nil
}

// LimitReader reads r up to one byte past max (0 = no limit), so that a
// reader can tell a file that grew past the limit.
func LimitReader(r io.Reader, max int64) io.Reader {
	if max > 0 {
		return io.LimitReader(r, max+1)
	}
	return r
}

// DescribeFSError says briefly why a file system operation failed,
// without the path.
func DescribeFSError(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, fs.ErrNotExist):
		return "file not found"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// HumanBytes formats a byte count (KiB, MiB, GiB).
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
