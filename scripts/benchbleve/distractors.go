package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// maxDocFile bounds what is read of one documentation file (after
// decompression).
const maxDocFile = 8 << 20

// distractorParagraphs returns up to n distinct paragraphs (runs of
// non-blank lines with at least minWords words, white space collapsed)
// of the plain-text files under root, in path order: text files as they
// are, .gz files decompressed; files that are not UTF-8 text (a NUL byte,
// invalid UTF-8) are skipped. On a Debian system /usr/share/doc holds
// about 300,000 such paragraphs (READMEs, changelogs, manuals).
func distractorParagraphs(root string, n, minWords int) ([]string, error) {
	seen := map[[32]byte]bool{}
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder is skipped
		}
		if len(out) >= n {
			return fs.SkipAll
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := readDocFile(path)
		if err != nil || bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			return nil
		}
		for _, para := range splitParagraphs(string(data)) {
			words := strings.Fields(para)
			if len(words) < minWords {
				continue
			}
			text := strings.Join(words, " ")
			h := sha256.Sum256([]byte(text))
			if seen[h] {
				continue
			}
			seen[h] = true
			out = append(out, text)
			if len(out) == n {
				break
			}
		}
		return nil
	})
	return out, err
}

func readDocFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		defer z.Close()
		r = z
	}
	return io.ReadAll(io.LimitReader(r, maxDocFile))
}

// splitParagraphs splits text at blank lines.
func splitParagraphs(text string) []string {
	var paras []string
	var cur strings.Builder
	for line := range strings.Lines(text) {
		if strings.TrimSpace(line) == "" {
			if cur.Len() > 0 {
				paras = append(paras, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteString(line)
	}
	if cur.Len() > 0 {
		paras = append(paras, cur.String())
	}
	return paras
}
