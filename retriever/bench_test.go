package retriever

import (
	"context"
	"fmt"
	"testing"

	"github.com/docmind/docmind/schema"
)

func BenchmarkNewBM25Contract(b *testing.B) {
	secs := contractSections(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		NewBM25(secs)
	}
}

func BenchmarkRetrieveContract(b *testing.B) {
	r := NewBM25(contractSections(b))
	req := schema.RetrieveRequest{Query: "What are the late payment penalties?"}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Retrieve(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRetrieveScaled replicates the contract's sections to measure
// how a query scales with the number of sections (the scan is linear).
func BenchmarkRetrieveScaled(b *testing.B) {
	base := contractSections(b)
	for _, copies := range []int{10, 100} {
		secs := make([]schema.Section, 0, len(base)*copies)
		for c := 0; c < copies; c++ {
			for _, s := range base {
				s.ID = fmt.Sprintf("%s-%d", s.ID, c)
				secs = append(secs, s)
			}
		}
		r := NewBM25(secs)
		req := schema.RetrieveRequest{Query: "What are the late payment penalties?"}
		b.Run(fmt.Sprintf("sections=%d", len(secs)), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := r.Retrieve(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
