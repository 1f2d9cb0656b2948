// Command index builds a persistent index of a folder once, then answers
// from it without reading the documents again (what docmind ingest and
// docmind ask --index do). Running it again re-reads only changed files.
//
//	go run ./examples/index /tmp/contract-index examples/contract "What are the late payment penalties?"
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/docmind/docmind"
	_ "github.com/docmind/docmind/formats/pdf"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/ingest"
)

func main() {
	if len(os.Args) != 4 {
		log.Fatal("usage: index INDEX_DIR FOLDER QUESTION")
	}
	dir, folder, question := os.Args[1], os.Args[2], os.Args[3]
	ctx := context.Background()

	// Ingest: the same walker, parsers and sectioning as docmind ingest.
	ix, err := index.Open(ctx, index.PathInDir(dir))
	if err != nil {
		log.Fatal(err)
	}
	l, closeLoader := docmind.NewLoader()
	sum, err := ingest.Run(ctx, ix, []string{folder}, ingest.Options{Parser: ingest.LoaderParser(l)})
	closeLoader()
	ix.Close()
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range sum.Results {
		fmt.Printf("%s %s (%d sections)\n", r.Status, r.Path, r.Sections)
	}

	// Ask: from the index alone.
	p, err := docmind.Open(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	ans, err := p.Ask(ctx, question)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ans.Text)
	for i, c := range ans.Citations {
		fmt.Printf("  [%d] %s\n", i+1, c)
	}
}
