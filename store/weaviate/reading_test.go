package weaviate

import (
	"strconv"
	"testing"

	"github.com/docmind/docmind/index"
)

// A document record written by another index.ReadingVersion (or before
// records carried one) reads as a changed document, hash "", so that the
// next ingest reads it again, as the SQLite index does; a record of this
// version keeps its hash.
func TestOtherReadingVersionRereads(t *testing.T) {
	if got := (docRec{Hash: "h1" + readingTag}).record().doc.Hash; got != "h1" {
		t.Errorf("this reading version: hash %q, want h1", got)
	}
	for _, old := range []string{"h1", "h1@reading" + strconv.Itoa(index.ReadingVersion-1)} {
		if got := (docRec{Hash: old}).record().doc.Hash; got != "" {
			t.Errorf("record hash %q: read as %q, want \"\" (re-read at the next ingest)", old, got)
		}
	}
}
