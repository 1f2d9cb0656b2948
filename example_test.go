package docmind_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/ingest"
	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/threads"
)

// Ask a question of the sample contract, offline: BM25 retrieval, an
// extractive answer with citations, and a deterministic judge. The
// contract says nothing of warranties, so the judge rejects every draft
// and the answer is the refusal.
func Example_ask() {
	ctx := context.Background()
	p, err := docmind.FromDocuments(ctx, "examples/contract")
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	ans, err := p.Ask(ctx, "What is the warranty period?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ans.Text)
	fmt.Println("refused:", ans.Refused, "| retries:", ans.Retries)
	// Output:
	// Unable to provide a confident response. Please rephrase your query.
	// refused: true | retries: 2
}

// A grounded answer: every sentence quotes the contract and cites the
// section and page it comes from, and the judge accepts it on the first
// pass.
func ExampleFromDocuments() {
	ctx := context.Background()
	p, err := docmind.FromDocuments(ctx, "examples/contract")
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	ans, err := p.Ask(ctx, "What are the late payment penalties?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ans.Text)
	for _, c := range ans.Citations {
		fmt.Println("source:", c)
	}
	fmt.Println("grounded:", ans.Grounded, "| refused:", ans.Refused, "| confident:", ans.Confidence >= 0.5)
	fmt.Println(ans.State.Path())
	// Output:
	// If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount, calculated from the due date until the date payment is received. (See Late Payment Penalties, page 8)
	// source: Late Payment Penalties — examples/contract/master-services-agreement.md, page 8
	// grounded: true | refused: false | confident: true
	// decompose → retrieve → generate → judge → output
}

// Stream a run: each node's start and end, the draft's tokens, the
// judge's retries, and the answer last.
func ExamplePipeline_Stream() {
	ctx := context.Background()
	p, err := docmind.FromDocuments(ctx, "examples/contract")
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	for ev, err := range p.Stream(ctx, "What are the late payment penalties?") {
		switch {
		case err != nil:
			log.Fatal(err)
		case ev.Type == docmind.EventNodeEnd:
			fmt.Println("done:", ev.Node)
		case ev.Type == docmind.EventToken:
			fmt.Println("draft:", ev.Token[:40], "…")
		case ev.Type == docmind.EventAnswer:
			fmt.Println("answer refused:", ev.Answer.Refused)
		}
	}
	// Output:
	// done: decompose
	// done: retrieve
	// draft: If payment is not received within thirty …
	// done: generate
	// done: judge
	// done: output
	// answer refused: false
}

// firstDocumentModel stands for your own model behind langchaingo's
// llms.Model. This one is deterministic and tiny: it answers with the first
// sentence of the first document it is shown, and it reads the JSON schema
// DocMind asks for (llm.JSONSchemaOf) to return a decomposition (a canned
// one, for the example's question) or a verdict that the answer is
// supported.
type firstDocumentModel struct{}

var reFirstDocument = regexp.MustCompile(`(?s)<document id="(S\d+)"[^>]*>\s*(.*?[.!?])\s`)

func (m firstDocumentModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	var prompt strings.Builder
	for _, msg := range msgs {
		for _, part := range msg.Parts {
			if t, ok := part.(llms.TextContent); ok {
				prompt.WriteString(t.Text)
			}
		}
	}
	id, sentence := "S1", ""
	if d := reFirstDocument.FindStringSubmatch(prompt.String()); d != nil {
		id, sentence = d[1], d[2]
	}
	var reply string
	switch s := llm.JSONSchemaOf(&o); {
	case s != nil && s.Name == "docmind_decomposition":
		reply = `{"intent":"penalty","sub_queries":["What are the late payment penalties?"],"entities":[],"constraints":[],"temporals":[],"key_terms":["late","payment","penalties"]}`
	case s != nil && s.Name == "docmind_verdict":
		reply = fmt.Sprintf(`{"claims":[{"claim":%q,"section_id":%q,"quote":%q,"supported":true,"contradiction":"","reason":"quoted","addresses_question":true,"about":{"entity":"","period":""}}],`+
			`"is_hallucinated":false,"answers_question":true,"relevance_reason":"","confidence_score":0.9,"reasoning":"The answer quotes the cited section.","irrelevant_sections":[]}`, sentence, id, sentence)
	default:
		reply = sentence + " [" + id + "]"
	}
	if o.StreamingFunc != nil {
		if err := o.StreamingFunc(ctx, []byte(reply)); err != nil {
			return nil, err
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: reply, StopReason: "stop"}}}, nil
}

func (m firstDocumentModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// Plug in any langchaingo llms.Model: the decomposer, the generator and the
// judge become calls to it, and the judge's deterministic guards still check
// every number and quote of the answer against the cited section.
func Example_customModel() {
	ctx := context.Background()
	p, err := docmind.FromDocuments(ctx, "examples/contract", docmind.WithLLM(firstDocumentModel{}))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	ans, err := p.Ask(ctx, "What are the late payment penalties?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("mode:", p.Mode())
	fmt.Println(ans.Text)
	fmt.Println(ans.State.Path(), "| retries:", ans.Retries)
	// Output:
	// mode: llm
	// If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount, calculated from the due date until the date payment is received. (See Late Payment Penalties, page 8)
	// decompose → retrieve → generate → judge → output | retries: 0
}

// Build an index once (docmind ingest --index DIR FOLDER does the same;
// it skips unchanged files when run again), then answer from it without
// reading the documents again.
func ExampleOpen() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "docmind-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ix, err := index.Open(ctx, index.PathInDir(dir))
	if err != nil {
		log.Fatal(err)
	}
	l, closeLoader := docmind.NewLoader()
	sum, err := ingest.Run(ctx, ix, []string{"examples/contract"}, ingest.Options{Parser: ingest.LoaderParser(l)})
	closeLoader()
	ix.Close()
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range sum.Results {
		fmt.Println(r.Status, filepath.Base(r.Path), r.Sections, "sections")
	}

	p, err := docmind.Open(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	ans, err := p.Ask(ctx, "What are the late payment penalties?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ans.Text)
	// Output:
	// indexed data-processing-addendum.md 11 sections
	// indexed master-services-agreement.md 67 sections
	// If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount, calculated from the due date until the date payment is received. (See Late Payment Penalties, page 8)
}

// Ask in a thread: a follow-up is rewritten into a standalone question
// from the thread's earlier questions, and every run is checkpointed (here
// in memory; checkpoint.OpenSQLite keeps them on disk).
func Example_thread() {
	ctx := context.Background()
	p, err := docmind.FromDocuments(ctx, "examples/contract")
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	m, err := threads.New(threads.Config{Store: checkpoint.NewMemory(), Runner: p.Runner()})
	if err != nil {
		log.Fatal(err)
	}
	for _, q := range []string{"What are the late payment penalties?", "And what if it is still unpaid after 60 days?"} {
		res, err := m.Ask(ctx, "contract-questions", q)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("asked:", res.Run.Query)
		fmt.Println(res.Answer())
	}
	// Output:
	// asked: What are the late payment penalties?
	// If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount, calculated from the due date until the date payment is received. (See Late Payment Penalties, page 8)
	// asked: What happens if payment is still unpaid after 60 days?
	// If any undisputed amount is more than sixty (60) days overdue, Provider may suspend the performance of all or part of the Services by giving Client at least ten (10) Business Days' prior written notice of its intention to suspend. (See Suspension of Services, page 8)
}
