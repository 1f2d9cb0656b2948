package docmind_test

import (
	"context"
	"fmt"
	"log"

	"github.com/docmind/docmind"
)

// Ask a question of the sample contract, offline: BM25 retrieval, an
// extractive answer with citations, and a deterministic judge.
func Example_ask() {
	ctx := context.Background()
	sections, _, err := docmind.LoadDocuments(ctx, "examples/contract")
	if err != nil {
		log.Fatal(err)
	}
	p, err := docmind.New(docmind.WithSections(sections))
	if err != nil {
		log.Fatal(err)
	}
	st, err := p.Ask(ctx, "What is the warranty period?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Answer())
	fmt.Println(st.Path(), "| retries:", st.RetryCount)
	// Output:
	// Unable to provide a confident response. Please rephrase your query.
	// decompose → retrieve → generate → judge → retrieve → generate → judge → output | retries: 2
}
