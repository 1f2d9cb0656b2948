// Package zipx reads the parts of a zip container (DOCX, XLSX, PPTX) with
// the limits every format parser shares: a bound on each part once
// decompressed, whatever its header claims, and on the number of entries,
// so that a zip bomb gives formats.ErrTooLarge rather than exhausting
// memory.
package zipx

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/docmind/docmind/formats"
)

// MaxEntries bounds the number of entries of an archive.
const MaxEntries = 10000

// ErrTooLarge is returned (wrapped) by ReadPart for a part beyond its
// limit.
var ErrTooLarge = errors.New("part too large")

// Archive is an opened zip container: its entries by name (a leading "/"
// removed).
type Archive struct {
	Source string
	Parts  map[string]*zip.File
	// Limit is the largest decompressed size of one part.
	Limit int64
}

// OpenOffice opens an Office Open XML file: app names the application
// ("Word") and legacy the extension of its older binary format (".doc").
// Office stores a password-protected file, and the older format, in an
// OLE compound file rather than a zip: the first gives ErrEncrypted, the
// second ErrUnsupported.
func OpenOffice(source, kind, app, legacy string, data []byte, limit int64) (*Archive, error) {
	if bytes.HasPrefix(data, []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")) {
		// The encrypted package sits beside an "EncryptionInfo" stream
		// (names are UTF-16LE).
		if bytes.Contains(data, []byte("E\x00n\x00c\x00r\x00y\x00p\x00t\x00i\x00o\x00n\x00I\x00n\x00f\x00o")) {
			return nil, formats.Errorf(source, formats.ErrEncrypted, "encrypted %s document (password required)", app)
		}
		return nil, formats.Errorf(source, formats.ErrUnsupported, "legacy %s %s format is not supported", app, legacy)
	}
	return Open(source, kind, data, limit)
}

// Open opens data as a zip archive. kind names the format in errors
// ("DOCX", "XLSX").
func Open(source, kind string, data []byte, limit int64) (*Archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "not a valid %s (zip) file: %w", kind, err)
	}
	if len(zr.File) > MaxEntries {
		return nil, formats.Errorf(source, formats.ErrTooLarge, "%s has %d zip entries, above the limit of %d", kind, len(zr.File), MaxEntries)
	}
	a := &Archive{Source: source, Parts: make(map[string]*zip.File, len(zr.File)), Limit: limit}
	for _, f := range zr.File {
		a.Parts[strings.TrimPrefix(f.Name, "/")] = f
	}
	return a, nil
}

// Read decompresses the named part. A missing part gives (nil, nil).
// Errors are formats errors on the archive's source: ErrTooLarge beyond
// the limit, ErrCorrupt for a part that cannot be decompressed.
func (a *Archive) Read(name string) ([]byte, error) {
	f := a.Parts[name]
	if f == nil {
		return nil, nil
	}
	b, err := ReadPart(f, a.Limit)
	if err != nil {
		return nil, PartError(a.Source, f.Name, err, a.Limit)
	}
	return b, nil
}

// PartError turns a ReadPart failure into a formats error on source.
func PartError(source, name string, err error, limit int64) error {
	if errors.Is(err, ErrTooLarge) {
		return formats.Errorf(source, formats.ErrTooLarge, "%s is larger than %d KiB once decompressed (zip bomb?)", name, limit>>10)
	}
	return formats.Errorf(source, formats.ErrCorrupt, "cannot read %s: %w", name, err)
}

// ReadPart decompresses one zip entry, refusing more than limit bytes
// whatever the header claims.
func ReadPart(f *zip.File, limit int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(limit) {
		return nil, ErrTooLarge
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w", ErrTooLarge)
	}
	return b, nil
}
