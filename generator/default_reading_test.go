package generator_test

import (
	"context"
	"testing"

	"github.com/docmind/docmind/decomposer"
	"github.com/docmind/docmind/generator"
	"github.com/docmind/docmind/internal/samplecontract"
	"github.com/docmind/docmind/schema"
)

// TestDefaultReadingIsTheOfflineDecomposers: a request without a
// decomposition is answered as if the offline decomposer had read it (the
// generator no longer imports the decomposer for its default).
func TestDefaultReadingIsTheOfflineDecomposers(t *testing.T) {
	ctx := context.Background()
	secs := samplecontract.Sections()
	g := generator.NewOffline()
	for _, q := range []string{
		"What are the late payment penalties?",
		"What is the notice period and how much is the termination fee?",
		"What is the late fee as well as the suspension period?",
		"How much is the termination fee and when is it due?",
		"  can   the Provider suspend the services?  ",
		"What is the governing law; who pays for audits?",
		"late payment penalties",
		"What is the warranty period?",
	} {
		d, err := decomposer.NewOffline().Decompose(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := g.Generate(ctx, schema.GenerateRequest{Query: q, Sections: secs, Decomposition: d})
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.Generate(ctx, schema.GenerateRequest{Query: q, Sections: secs})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%q:\nwithout a decomposition: %q\nwith the offline one:   %q", q, got, want)
		}
	}
}
