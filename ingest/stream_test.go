package ingest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/loader"
)

// writeBigText writes a plain-text file of about size bytes: headings
// (numbered, capitals, short lines), paragraphs of several lines, pages
// separated by form feeds.
func writeBigText(t testing.TB, path string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	words := strings.Fields("payment invoice late penalty contract service term notice party agreement fee interest Mr. Smith e.g. 30 days")
	n := 0
	for i := 0; n < size; i++ {
		var s string
		switch {
		case i%400 == 399:
			s = "\f"
		case i%40 == 0:
			s = fmt.Sprintf("\n%d.%d Payment Terms %d\n", i/400, i%400/40, i)
		case i%97 == 0:
			s = "\nLATE FEES AND INTEREST\n\n"
		default:
			var b strings.Builder
			for j := 0; j < 14; j++ {
				b.WriteString(words[(i*7+j*5)%len(words)])
				b.WriteByte(' ')
			}
			b.WriteString("end.\n")
			if i%5 == 0 {
				b.WriteString("\n")
			}
			s = b.String()
		}
		m, _ := w.WriteString(s)
		n += m
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// Ingesting plain text while reading it gives the index exactly what
// reading it whole gives: the same documents, sections (ids, titles,
// pages, content) and search results.
func TestStreamedIngestMatchesWhole(t *testing.T) {
	dir := t.TempDir()
	size := 3 << 20
	if raceEnabled {
		// 1 MiB still spans four of the stream reader's 256 KiB buffers;
		// 3 MiB took minutes under the race detector on two busy cores
		size = 1 << 20
	}
	writeBigText(t, filepath.Join(dir, "big.txt"), size)
	for _, name := range []string{"notes_utf8.txt", "notes_utf8bom.txt"} {
		src := filepath.Join(testenv.RepoRoot(t), "..", "shared", "fixtures", "docs", "enc", name)
		if data, err := os.ReadFile(src); err == nil {
			write(t, filepath.Join(dir, name), string(data))
		}
	}
	ctx := context.Background()
	ingestWith := func(streamAbove int64) *index.Index {
		ix := openIndex(t, filepath.Join(t.TempDir(), index.FileName))
		sum, err := Run(ctx, ix, []string{dir}, Options{Parser: LoaderParser(loader.New()), StreamAbove: streamAbove})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Skipped > 0 || sum.Indexed == 0 {
			t.Fatalf("summary %+v", sum)
		}
		return ix
	}
	streamed, wholeIx := ingestWith(1), ingestWith(-1)
	sd, err := streamed.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wd, err := wholeIx.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(sd) != len(wd) {
		t.Fatalf("%d documents streamed, %d whole", len(sd), len(wd))
	}
	for i := range sd {
		s, w := sd[i], wd[i]
		s.ID, s.IngestedAt, w.ID, w.IngestedAt = 0, time.Time{}, 0, time.Time{}
		if !reflect.DeepEqual(s, w) {
			t.Errorf("document streamed %+v, whole %+v", s, w)
		}
		ss, err := streamed.Sections(ctx, s.Path)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := wholeIx.Sections(ctx, w.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ss, ws) {
			t.Errorf("%s: %d sections streamed, %d whole, or they differ", s.Path, len(ss), len(ws))
		}
	}
	for _, q := range []string{"late payment penalties", "interest fee", "Payment Terms 1200", "notice party"} {
		sh, err := streamed.Search(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		wh, err := wholeIx.Search(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(sh) == 0 || !reflect.DeepEqual(sh, wh) {
			t.Errorf("%q: %d hits streamed, %d whole, or they differ", q, len(sh), len(wh))
		}
	}
}

// writeOneLine writes a plain-text file of about size bytes on one line:
// sentences of the words writeBigText uses, no line break at all.
func writeOneLine(t testing.TB, path string, size int) {
	t.Helper()
	sentence := "The payment of invoice %d is due within 30 days and a late fee of 1.5%% per month applies. "
	var b bytes.Buffer
	b.Grow(size + len(sentence))
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, sentence, i%100)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Ingesting a large plain-text file holds a bounded amount of it: the
// Go heap in use grows by less than twice the file's size (read
// whole, the file, its copies as text and its sections took more),
// also when the file is one line without a break (it grew by ten times
// the file's size: the line and its paragraph were held whole).
func TestIngestLargeTextMemoryBounded(t *testing.T) {
	testenv.Long(t, "ingests a 48 MiB file")
	if testing.Short() {
		t.Skip("ingests a 48 MiB file")
	}
	if raceEnabled {
		// the race detector makes this ingest take tens of minutes on two
		// cores and instruments every allocation; .ci/run runs the test
		// without it
		t.Skip("a memory bound is measured without the race detector")
	}
	for _, tc := range []struct {
		name  string
		write func(testing.TB, string, int)
		size  int
	}{{"lines and paragraphs", writeBigText, 48 << 20}, {"one line", writeOneLine, 32 << 20}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.write(t, filepath.Join(dir, "big.txt"), tc.size)
			checkIngestMemory(t, dir, tc.size)
		})
	}
}

// checkIngestMemory ingests the folder dir holding one file of size bytes
// and checks that the heap in use grows by less than twice that.
func checkIngestMemory(t *testing.T, dir string, size int) {
	ix := openIndex(t, filepath.Join(t.TempDir(), index.FileName))

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	sum, err := Run(context.Background(), ix, []string{dir}, Options{Parser: LoaderParser(loader.New()), MaxFileSize: -1})
	close(stop)
	<-sampled
	if err != nil {
		t.Fatal(err)
	}
	if sum.Indexed != 1 {
		t.Fatalf("summary %+v", sum)
	}
	grew := int64(peak.Load()) - int64(base)
	t.Logf("%d sections; heap in use grew by %.1f MiB for a %d MiB file", sum.Sections, float64(grew)/(1<<20), size>>20)
	if grew > 2*int64(size) {
		t.Errorf("heap in use grew by %.1f MiB ingesting a %d MiB file, want under %d MiB", float64(grew)/(1<<20), size>>20, 2*size>>20)
	}
}
