package index

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// A table, mostly values, is not ranked below a short passage that
// mentions the same words once: values do not count towards BM25's
// section length.
func TestValuesDoNotLengthenASection(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	values := strings.Repeat("49,954 42,440 40,479 31,226 23,679 21,828 ", 10)
	putLines(t, ix,
		"Total revenues "+values,
		"Total revenues rose as customers renewed contracts across regions",
		"Warranty period of twelve months for hardware products",
	)
	docs, err := NewStore(ix).SimilaritySearch(ctx, "total revenues", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 {
		t.Fatalf("got %d sections, want 2", len(docs))
	}
	if got := SectionFromDocument(docs[0]).Title; got != "SA" {
		t.Errorf("first section %s, want the table SA (a table's values made it a long section)", got)
	}
	if n := textproc.BM25Length(strings.Fields("total revenu 49,954 2023 q1")); n != 3 {
		t.Errorf("BM25Length = %d, want 3 (words, not values)", n)
	}
	if n := textproc.BM25Length([]string{"2023", "49,954"}); n != 1 {
		t.Errorf("BM25Length of values only = %d, want 1", n)
	}
}

// An index read by another ReadingVersion re-reads its documents: their
// hashes are cleared on open, so that the next ingest parses them again,
// and the version is recorded.
func TestOtherReadingVersionRereads(t *testing.T) {
	ctx := context.Background()
	ix, path := openTest(t)
	if err := ix.PutDocument(ctx, Document{Path: "c.txt", Hash: "h1"}, []schema.Section{{Title: "A", Content: "late fee"}}); err != nil {
		t.Fatal(err)
	}
	reopen := func() *Index {
		t.Helper()
		ix.Close()
		var err error
		if ix, err = Open(ctx, path); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}
	ix = reopen()
	if d, _, err := ix.Document(ctx, "c.txt"); err != nil || d.Hash != "h1" {
		t.Fatalf("same version: hash %q, %v; want h1 kept", d.Hash, err)
	}
	if _, err := ix.DB().ExecContext(ctx, `UPDATE meta SET value = '1' WHERE key = 'reading_version'`); err != nil {
		t.Fatal(err)
	}
	ix = reopen()
	if d, _, err := ix.Document(ctx, "c.txt"); err != nil || d.Hash != "" {
		t.Fatalf("older version: hash %q, %v; want it cleared so the next ingest re-reads the file", d.Hash, err)
	}
	if v, _, err := getMeta(ctx, ix.DB(), "reading_version"); err != nil || v != strconv.Itoa(ReadingVersion) {
		t.Errorf("reading_version %q, %v; want %d", v, err, ReadingVersion)
	}
	if secs, err := NewStore(ix).SimilaritySearch(ctx, "late fee", 1); err != nil || len(secs) != 1 {
		t.Errorf("the index must answer until it is re-read: %d sections, %v", len(secs), err)
	}
}

// A question without the accents finds the section with them, and the
// other way round: terms fold accents.
func TestAccentsFold(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	putLines(t, ix,
		"Hervé served as a Norman general in the army of Byzantium",
		"The Normans settled in the north of France",
	)
	for _, q := range []string{"Herve", "HERVÉ", "Hervé"} {
		docs, err := NewStore(ix).SimilaritySearch(ctx, q, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != 1 || SectionFromDocument(docs[0]).Title != "SA" {
			t.Errorf("%q: got %d sections, want section SA, which names Hervé", q, len(docs))
		}
	}
}

// A word's British and American spellings are one term: the question in
// either spelling finds the section in the other with the same score.
func TestSpellingsAreOneTerm(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	putLines(t, ix,
		"The licensee may not sublicense the license granted in this agreement",
		"The organisers of the programme meet at the city centre",
		"Payment is due within thirty days of the invoice date",
	)
	for _, c := range []struct{ a, b, title string }{
		{"Which license is granted?", "Which licence is granted?", "SA"},
		{"Who organized the program at the center?", "Who organised the programme at the centre?", "SB"},
	} {
		var scores []float32
		for _, q := range []string{c.a, c.b} {
			docs, err := NewStore(ix).SimilaritySearch(ctx, q, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != 1 || SectionFromDocument(docs[0]).Title != c.title {
				t.Fatalf("%q: got %d sections, want section %s", q, len(docs), c.title)
			}
			scores = append(scores, docs[0].Score)
		}
		if scores[0] != scores[1] {
			t.Errorf("%q scores %v, %q %v: one word, one score", c.a, scores[0], c.b, scores[1])
		}
	}
}
