package pdf

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/docmind/docmind/formats/internal/fixture"
	"github.com/docmind/docmind/internal/testenv"
)

// startup creates a Reader on cacheDir, parses one small PDF and closes
// the Reader: what a `docmind ingest` process pays before its first page.
func startup(b *testing.B, cacheDir string, data []byte) {
	ctx := context.Background()
	r, err := NewReader(ctx, Options{Workers: 1, CacheDir: cacheDir})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := r.Parse(ctx, "h.pdf", data); err != nil {
		b.Fatal(err)
	}
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStartup measures NewReader + first Parse + Close with a cold
// compilation cache (an empty directory each iteration: PDFium is
// compiled from scratch) and a warm one (compiled code loaded from disk).
func BenchmarkStartup(b *testing.B) {
	data := handbookPDF()
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			dir := filepath.Join(b.TempDir(), "cache")
			b.StartTimer()
			startup(b, dir, data)
			b.StopTimer()
			os.RemoveAll(dir)
			b.StartTimer()
		}
	})
	b.Run("warm", func(b *testing.B) {
		dir := filepath.Join(b.TempDir(), "cache")
		startup(b, dir, data) // fill the cache
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			startup(b, dir, data)
		}
	})
}

// BenchmarkParse measures parsing with a started Reader.
func BenchmarkParse(b *testing.B) {
	r := reader(b)
	ctx := context.Background()
	for _, name := range []string{"contract.pdf", "contract50.pdf", "libtasn1.pdf"} {
		b.Run(name, func(b *testing.B) {
			data := fixture.Read(b, name)
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			pages := 0
			for i := 0; i < b.N; i++ {
				doc, err := r.Parse(ctx, name, data)
				if err != nil {
					b.Fatal(err)
				}
				pages += doc.Pages
			}
			b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}

// BenchmarkParseFiling measures parsing one of the shared SEC filings
// (../shared/fixtures/filings; skipped when absent) with a started
// Reader: the per-page cost of a real, table-heavy document.
func BenchmarkParseFiling(b *testing.B) {
	dir := testenv.SharedPath(b, "fixtures", "filings")
	files, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if len(files) == 0 {
		b.Skip("no filings")
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		b.Fatal(err)
	}
	r := reader(b)
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	pages := 0
	for i := 0; i < b.N; i++ {
		doc, err := r.Parse(ctx, filepath.Base(files[0]), data)
		if err != nil {
			b.Fatal(err)
		}
		pages += doc.Pages
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}
