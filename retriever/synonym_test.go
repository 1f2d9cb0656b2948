package retriever

import (
	"context"
	"testing"

	"github.com/docmind/docmind/schema"
)

func TestSynonymQueries(t *testing.T) {
	secs := []schema.Section{
		{ID: "suspension", Title: "Suspension", Content: "If any amount is more than sixty days overdue, Provider may suspend the Services."},
		{ID: "unpaid", Title: "Collections", Content: "Unpaid amounts are referred to a collection agency."},
		{ID: "backups", Title: "Backups", Content: "Backups are encrypted and kept for thirty-five days."},
		{ID: "hours", Title: "Business Hours", Content: "Support is available on Business Days."},
		{ID: "notices", Title: "Notices", Content: "Notices must be in writing."},
	}
	ctx := context.Background()
	ids := func(r *BM25, q string) []string {
		res, err := r.Retrieve(ctx, schema.RetrieveRequest{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range res {
			out = append(out, s.ID)
		}
		return out
	}
	tests := []struct {
		name, query string
		opts        []Option
		wantFirst   string
		wantNone    bool
	}{
		{name: "synonym finds the section", query: "How long are backups retained?", wantFirst: "backups"},
		// a synonym scores at half weight: alone it stays under the default floor
		{name: "synonym alone", query: "delinquent", opts: []Option{WithFloor(0.1)}, wantFirst: "unpaid"},
		{name: "synonym alone, default floor", query: "delinquent", wantNone: true},
		{name: "exact beats synonym", query: "What happens to unpaid amounts?", wantFirst: "unpaid"},
		{name: "off: no section", query: "delinquent", opts: []Option{WithThesaurus(nil), WithFloor(0.1)}, wantNone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(NewBM25(secs, tt.opts...), tt.query)
			switch {
			case tt.wantNone && len(got) > 0:
				t.Errorf("%q: got %v, want none", tt.query, got)
			case !tt.wantNone && (len(got) == 0 || got[0] != tt.wantFirst):
				t.Errorf("%q: got %v, want %s first", tt.query, got, tt.wantFirst)
			}
		})
	}
}

func TestSynonymWeight(t *testing.T) {
	secs := []schema.Section{
		{ID: "a", Title: "Suspension", Content: "Any amount more than sixty days overdue may lead to suspension."},
		{ID: "b", Title: "Notices", Content: "Notices must be in writing."},
		{ID: "c", Title: "Fees", Content: "Fees are payable monthly."},
	}
	score := func(w float64) float64 {
		res, err := NewBM25(secs, WithSynonymWeight(w), WithFloor(0.01)).Retrieve(context.Background(), schema.RetrieveRequest{Query: "delinquent amount"})
		if err != nil || len(res) == 0 {
			t.Fatalf("no result (err %v)", err)
		}
		return res[0].RelevanceScore
	}
	if lo, hi := score(0.25), score(1); lo >= hi {
		t.Errorf("relevance with synonym weight 0.25 (%.3f) not below weight 1 (%.3f)", lo, hi)
	}
}
