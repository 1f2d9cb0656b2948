package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/store"
	"github.com/docmind/docmind/store/storetest"
)

// TestSQLiteConformance runs the store contract's suite against the
// SQLite index.
func TestSQLiteConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		ix, err := index.Open(context.Background(), filepath.Join(t.TempDir(), index.FileName))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return store.SQLite{Index: ix}
	})
}
