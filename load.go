package docmind

import (
	"context"
	"os"

	"github.com/docmind/docmind/loader"
)

// LoadReport says which files LoadDocuments read and which it skipped, and
// why.
type LoadReport = loader.Report

// LoadDocuments reads the documents at path — a folder (recursively) or a
// single file — and splits them into sections with titles and pages.
// Supported: Markdown (pages from "<!-- page: N -->" lines or form feeds)
// and plain text (pages from form feeds). Files that cannot be used are
// listed in the report and do not stop the load; an error means path is
// missing, unreadable, or held no usable document.
func LoadDocuments(ctx context.Context, path string) ([]Section, LoadReport, error) {
	l := loader.New()
	fi, err := os.Stat(path)
	if err == nil && !fi.IsDir() {
		secs, err := l.LoadFile(ctx, path)
		if err != nil {
			return nil, LoadReport{}, err
		}
		return secs, LoadReport{Files: []loader.FileReport{{Path: path, Sections: len(secs)}}}, nil
	}
	return l.LoadDir(ctx, path)
}
