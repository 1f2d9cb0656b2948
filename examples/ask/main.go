// Command ask answers a question from a folder of documents, offline: BM25
// retrieval, an extractive answer that cites its section and page, and a
// deterministic judge that refuses rather than guess.
//
//	go run ./examples/ask examples/contract "What are the late payment penalties?"
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/docmind/docmind"
	_ "github.com/docmind/docmind/formats/pdf" // read PDF files too
)

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: ask FOLDER QUESTION")
	}
	ctx := context.Background()
	p, err := docmind.FromDocuments(ctx, os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	ans, err := p.Ask(ctx, os.Args[2])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ans.Text)
	for i, c := range ans.Citations {
		fmt.Printf("  [%d] %s\n", i+1, c)
	}
	fmt.Printf("grounded: %v, confidence %.2f, run %s\n", ans.Grounded, ans.Confidence, ans.RunID)
	if ans.Refused {
		os.Exit(3)
	}
}
