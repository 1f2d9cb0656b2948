package main

import (
	"context"
	"fmt"
	"os"

	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/retriever"
	"github.com/docmind/docmind/schema"
)

func main() {
	secs, _, err := loader.New().LoadDir(context.Background(), os.Args[1])
	if err != nil {
		panic(err)
	}
	r := retriever.NewBM25(secs, retriever.WithFloor(0.0), retriever.WithResults(0, 6))
	for _, q := range os.Args[2:] {
		res, _ := r.Retrieve(context.Background(), schema.RetrieveRequest{Query: q})
		fmt.Println("Q:", q)
		for _, s := range res {
			fmt.Printf("   %.3f  %s (%s)\n", s.RelevanceScore, s.Title, s.PageRef())
		}
	}
}
