package pdf

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/docmind/docmind/formats/internal/fixture"
)

// A document's pages read by several PDFium instances at once give
// exactly what one instance reading them in turn gives: every line with
// its page, fonts and position, and the document built from them.
func TestPagesReadInParallelAsInSequence(t *testing.T) {
	ctx := context.Background()
	par, err := NewReader(ctx, Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer par.Close()
	seq := reader(t)
	for _, name := range []string{"contract50.pdf", "libtasn1.pdf", "badxref.pdf"} {
		data := fixture.Read(t, name)
		inst, err := seq.instance(ctx, name, data)
		if err != nil {
			t.Fatal(err)
		}
		want, err := extract(ctx, inst, name, data, nil)
		inst.Close()
		if err != nil {
			t.Fatal(err)
		}
		inst, err = par.instance(ctx, name, data)
		if err != nil {
			t.Fatal(err)
		}
		lent := par.lent.Load()
		got, err := extract(ctx, inst, name, data, par)
		inst.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want.pages >= 2*pageChunk && par.lent.Load() == lent {
			t.Errorf("%s: %d pages read by one instance; want idle ones lent", name, want.pages)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read in parallel differs from read in sequence (%d vs %d lines, %d vs %d pages loaded)", name, len(got.lines), len(want.lines), got.loaded, want.loaded)
		}
		wdoc, err := seq.Parse(ctx, name, data)
		if err != nil {
			t.Fatal(err)
		}
		gdoc, err := par.Parse(ctx, name, data)
		if err != nil {
			t.Fatal(err)
		}
		if gdoc.Pages != wdoc.Pages || gdoc.Title != wdoc.Title || !reflect.DeepEqual(gdoc.PageLabels, wdoc.PageLabels) {
			t.Errorf("%s: pages %d/%d, title %q/%q", name, gdoc.Pages, wdoc.Pages, gdoc.Title, wdoc.Title)
		}
		fixture.CompareBlocks(t, gdoc.Blocks, wdoc.Blocks)
	}
}

// Parses running at once on a Reader lend each other their idle
// instances without waiting for one: none hangs, all agree.
func TestConcurrentParsesShareInstances(t *testing.T) {
	ctx := context.Background()
	r, err := NewReader(ctx, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data := fixture.Read(t, "contract50.pdf")
	want, err := reader(t).Parse(ctx, "contract50.pdf", data)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			doc, err := r.Parse(ctx, "contract50.pdf", data)
			if err != nil {
				t.Error(err)
				return
			}
			fixture.CompareBlocks(t, doc.Blocks, want.Blocks)
		}()
	}
	wg.Wait()
}
