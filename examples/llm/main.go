// Command llm answers a question from a folder of documents with a language
// model behind any OpenAI-compatible API (OpenAI, a llama.cpp or vLLM
// server, Ollama's /v1, ...). The model decomposes the question, writes
// the answer and judges it; the judge's deterministic guards still check
// every number, date and quote against the cited section.
//
//	OPENAI_BASE_URL=http://localhost:8080/v1 OPENAI_API_KEY=none MODEL=qwen2.5 \
//	  go run ./examples/llm examples/contract "What are the late payment penalties?"
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/docmind/docmind"
	_ "github.com/docmind/docmind/formats/pdf"
	"github.com/docmind/docmind/llm/openai"
)

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: llm FOLDER QUESTION (with OPENAI_BASE_URL, OPENAI_API_KEY and MODEL set)")
	}
	name := os.Getenv("MODEL")
	if name == "" {
		name = "gpt-4o-mini"
	}
	opts := []openai.Option{openai.WithModel(name), openai.WithAPIKey(os.Getenv("OPENAI_API_KEY"))}
	if u := os.Getenv("OPENAI_BASE_URL"); u != "" {
		opts = append(opts, openai.WithBaseURL(u))
	}
	model, err := openai.New(opts...)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	p, err := docmind.FromDocuments(ctx, os.Args[1], docmind.WithLLM(model), docmind.WithModelNames(name, ""))
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
	if u := ans.State.Usage; u != nil {
		fmt.Printf("%d LLM calls, %d tokens\n", u.Total.Calls, u.Total.TotalTokens)
	}
}
