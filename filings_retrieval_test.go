package docmind_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/docmind/docmind"
	_ "github.com/docmind/docmind/formats/pdf"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/ingest"
	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/schema"
)

// TestFilingsRetrieval prints how often the index retriever (what ask
// uses, --docs or --index) ranks a section of the right filing first, and
// among its results, for the answerable questions of the shared filings QA
// set (the expected `source`), for several context field weights. It
// ingests the ten filings (~1,070 PDF pages) into an index kept in
// $DOCMIND_FILINGS_INDEX (default <tmp>/docmind-filings-index; unchanged
// files are skipped on later runs), so it runs only when asked:
//
//	DOCMIND_FILINGS_RETRIEVAL=1 go test -run FilingsRetrieval -v .
//	DOCMIND_CONTEXT_WEIGHTS=0,0.5,1,2 ... (weights to compare)
func TestFilingsRetrieval(t *testing.T) {
	if os.Getenv("DOCMIND_FILINGS_RETRIEVAL") == "" {
		t.Skip("set DOCMIND_FILINGS_RETRIEVAL=1 to measure retrieval over the shared filings")
	}
	pdfs := testenv.SharedPath(t, "fixtures", "filings")
	qaPath := testenv.SharedPath(t, "data", "filings", "qa.jsonl")
	ctx := context.Background()
	dir := os.Getenv("DOCMIND_FILINGS_INDEX")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "docmind-filings-index")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ctx, index.PathInDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	l, closeLoader := docmind.NewLoader()
	sum, err := ingest.Run(ctx, ix, []string{pdfs}, ingest.Options{Parser: ingest.LoaderParser(l), Prune: true})
	closeLoader()
	ix.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("index %s: %d indexed, %d unchanged, %d skipped", dir, sum.Indexed, sum.Unchanged, sum.Skipped)

	type row struct {
		Question, Source, Kind string
	}
	var rows []row
	data, err := os.ReadFile(qaPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r row
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Kind == "answerable" && r.Source != "" {
			rows = append(rows, r)
		}
	}
	weights := []float64{0, index.DefaultContextWeight}
	if env := os.Getenv("DOCMIND_CONTEXT_WEIGHTS"); env != "" {
		weights = nil
		for _, f := range strings.Split(env, ",") {
			w, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				t.Fatal(err)
			}
			weights = append(weights, w)
		}
	}
	for _, w := range weights {
		ix, err := index.Open(ctx, index.PathInDir(dir), index.WithContextWeight(w))
		if err != nil {
			t.Fatal(err)
		}
		r := ix.Retriever()
		top1, top5 := 0, 0
		for _, q := range rows {
			secs, err := r.Retrieve(ctx, schema.RetrieveRequest{Query: q.Question})
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range secs {
				if filepath.Base(s.Source) == q.Source {
					if i == 0 {
						top1++
					}
					top5++
					break
				}
			}
		}
		ix.Close()
		t.Logf("context weight %.2f: right filing top-1 %d/%d (%.3f), in top 5 %d/%d (%.3f)",
			w, top1, len(rows), float64(top1)/float64(len(rows)), top5, len(rows), float64(top5)/float64(len(rows)))
	}
}
