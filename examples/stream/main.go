// Command stream shows a run as it happens: each node as it ends, the
// draft answer's tokens as the generator writes them (token by token with
// an LLM; offline the extractive draft comes whole), the judge's retries,
// and the checked answer last.
//
//	go run ./examples/stream examples/contract "What are the late payment penalties?"
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/docmind/docmind"
	_ "github.com/docmind/docmind/formats/pdf"
)

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: stream FOLDER QUESTION")
	}
	ctx := context.Background()
	p, err := docmind.FromDocuments(ctx, os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	for ev, err := range p.Stream(ctx, os.Args[2]) {
		if err != nil {
			log.Fatal(err)
		}
		switch ev.Type {
		case docmind.EventNodeEnd:
			if ev.Node == docmind.NodeGenerate {
				fmt.Println() // the end of the draft
			}
			fmt.Printf("[%s done in %s]\n", ev.Node, ev.Duration.Round(time.Microsecond))
		case docmind.EventToken:
			fmt.Print(ev.Token)
		case docmind.EventRetry:
			fmt.Printf("[the judge rejected the draft: retry %d]\n", ev.Attempt)
		case docmind.EventAnswer:
			fmt.Printf("\n%s\n(grounded: %v, confidence %.2f)\n", ev.Answer.Text, ev.Answer.Grounded, ev.Answer.Confidence)
		}
	}
}
