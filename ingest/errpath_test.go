package ingest

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/index"
)

// failingEmbedder fails every call, so that writing a document fails.
type failingEmbedder struct{}

func (failingEmbedder) EmbedDocuments(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("embedding service down")
}

func (failingEmbedder) EmbedQuery(context.Context, string) ([]float32, error) {
	return nil, errors.New("embedding service down")
}

// An index write failure names the document once: the index's error
// already says "embed /x/a.txt with m: ..." and Run used to prefix
// "ingest /x/a.txt: " as well.
func TestWriteErrorNamesThePathOnce(t *testing.T) {
	docs := t.TempDir()
	path := filepath.Join(docs, "a.txt")
	write(t, path, "Payment Terms\nInvoices are due in 30 days.")
	ix, err := index.Open(context.Background(), filepath.Join(t.TempDir(), index.FileName), index.WithEmbedder(failingEmbedder{}, "m"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	_, err = Run(context.Background(), ix, []string{docs}, Options{Parser: textParser(0), Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "embedding service down") {
		t.Fatalf("err = %v, want the embedder's failure", err)
	}
	if n := strings.Count(err.Error(), path); n != 1 {
		t.Errorf("error names %s %d times: %v", path, n, err)
	}
}

// A file skipped because the index could not be read gives a reason that
// does not name the file again: the result line already starts with it
// ("skipped /x/a.txt: read document /x/a.txt from index ..." named it twice).
func TestIndexReadErrorNamesThePathOnce(t *testing.T) {
	docs := t.TempDir()
	path := filepath.Join(docs, "a.txt")
	write(t, path, "Payment Terms\nInvoices are due in 30 days.")
	ix := openIndex(t, filepath.Join(t.TempDir(), index.FileName))
	// A documents table the index cannot read: every lookup fails.
	if _, err := ix.DB().Exec(`ALTER TABLE documents RENAME COLUMN hash TO hash_gone`); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), ix, []string{docs}, Options{Parser: textParser(0), Workers: 1})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(sum.Results) != 1 || sum.Results[0].Status != Skipped {
		t.Fatalf("results %+v, want a.txt skipped", sum.Results)
	}
	if r := sum.Results[0].Reason; r == "" || strings.Contains(r, path) {
		t.Errorf("reason %q names %s again (or is empty)", r, path)
	}
}
