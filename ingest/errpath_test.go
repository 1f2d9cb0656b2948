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
