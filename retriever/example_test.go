package retriever_test

import (
	"context"
	"fmt"

	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/retriever"
	"github.com/docmind/docmind/schema"
)

func ExampleBM25_Retrieve() {
	ctx := context.Background()
	sections, _, err := loader.New().LoadDir(ctx, "../examples/contract")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := retriever.NewBM25(sections, retriever.WithResults(3, 5))

	res, _ := r.Retrieve(ctx, schema.RetrieveRequest{Query: "What are the late payment penalties?"})
	fmt.Println(res[0].Citation())

	res, _ = r.Retrieve(ctx, schema.RetrieveRequest{Query: "What is the warranty period?"})
	fmt.Println(len(res), "sections about warranties")
	// Output:
	// Late Payment Penalties, page 8
	// 0 sections about warranties
}
