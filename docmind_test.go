package docmind_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/generator"
	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/prompts"
	"github.com/docmind/docmind/retriever"
	"github.com/docmind/docmind/schema"
)

var (
	onePass   = []string{"decompose", "retrieve", "generate", "judge", "output"}
	twoPasses = []string{"decompose", "retrieve", "generate", "judge", "retrieve", "generate", "judge", "output"}
)

func contract(t *testing.T) []schema.Section {
	t.Helper()
	secs, _, err := docmind.LoadDocuments(context.Background(), "examples/contract")
	if err != nil {
		t.Fatal(err)
	}
	return secs
}

// Seed scenario 1: one pass, the 1.5% late fee cited to page 8.
func TestSeedScenario1LatePaymentPenalties(t *testing.T) {
	p, err := docmind.New(docmind.WithSections(contract(t)))
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Run(context.Background(), "What are the late payment penalties?")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.NodeHistory, onePass) {
		t.Errorf("node_history = %v, want %v", st.NodeHistory, onePass)
	}
	want := "If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month"
	if !strings.HasPrefix(st.Answer(), want) || !strings.Contains(st.Answer(), "(See Late Payment Penalties, page 8)") {
		t.Errorf("final_output = %q", st.Answer())
	}
	if st.RetryCount != 0 || st.JudgeVerdict.IsHallucinated || !st.JudgeVerdict.ShouldReturn {
		t.Errorf("retry_count %d verdict %+v", st.RetryCount, st.JudgeVerdict)
	}
}

// firstPassWrong is a scripted generator: on the first pass it states the
// wrong rate, as the seed's scenario 2 describes; afterwards it defers to
// the real extractive generator.
type firstPassWrong struct {
	real    schema.Generator
	calls   int
	handed  [][]string
	wrong   string
	wrongAt int
}

func (g *firstPassWrong) Generate(ctx context.Context, req schema.GenerateRequest) (string, error) {
	g.calls++
	var keys []string
	for _, s := range req.Sections {
		keys = append(keys, s.Key())
	}
	g.handed = append(g.handed, keys)
	if req.Attempt == 0 {
		return g.wrong, nil
	}
	return g.real.Generate(ctx, req)
}

// Seed scenario 2: the first answer says "5% per month", the real
// deterministic judge catches 5% vs 1.5%, one retry, correct second answer.
func TestSeedScenario2JudgeCatchesWrongRate(t *testing.T) {
	gen := &firstPassWrong{
		real:  generator.NewOffline(),
		wrong: "If payment is not received within thirty (30) days, Client shall be assessed a late fee of 5% per month. (See Late Payment Penalties, page 8)",
	}
	p, err := docmind.New(docmind.WithSections(contract(t)), docmind.WithGenerator(gen))
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Run(context.Background(), "What are the penalties?")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.NodeHistory, twoPasses) {
		t.Fatalf("node_history = %v, want %v", st.NodeHistory, twoPasses)
	}
	if st.RetryCount != 1 {
		t.Errorf("retry_count = %d, want 1", st.RetryCount)
	}
	if !strings.Contains(st.Answer(), "1.5% per month") || strings.Contains(st.Answer(), " 5% per month") {
		t.Errorf("final_output = %q, want the 1.5%% answer", st.Answer())
	}
	if reflect.DeepEqual(gen.handed[0], gen.handed[1]) {
		t.Errorf("the retry handed the generator the same sections: %v", gen.handed[0])
	}
}

// Seed scenario 3: nothing about warranties in the contract: two judged
// passes and the fallback.
func TestSeedScenario3WarrantyFallsBack(t *testing.T) {
	p, err := docmind.New(docmind.WithSections(contract(t)))
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Run(context.Background(), "What is the warranty period?")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.NodeHistory, twoPasses) || st.RetryCount != 2 || st.Answer() != docmind.FallbackMessage {
		t.Errorf("history %v retry_count %d final_output %q", st.NodeHistory, st.RetryCount, st.Answer())
	}
}

// A misspelt word the documents hold one edit away is read as that word:
// the question is answered, and the state says how it was read. Without
// the speller the same question is refused ("paymnet" is in no document).
func TestTypoIsReadAsTheDocumentsWord(t *testing.T) {
	ctx := context.Background()
	q := "What are the late paymnet penalties?"
	p, err := docmind.New(docmind.WithSections(contract(t)))
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Run(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.Answer(), "1.5% per month") || st.Query != "What are the late payment penalties?" ||
		!strings.Contains(st.Notes[schema.NodeDecompose], `"paymnet" as "payment"`) {
		t.Errorf("query %q notes %v answer %q; want the typo read as \"payment\" and the 1.5%% fee", st.Query, st.Notes, st.Answer())
	}
	off, err := docmind.New(docmind.WithSections(contract(t)), docmind.WithSpeller(nil))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := off.Run(ctx, q); err != nil || st.Answer() != docmind.FallbackMessage || st.Query != q || st.Notes[schema.NodeDecompose] != "" {
		t.Errorf("without a speller: query %q notes %v answer %q, %v; want the question as asked, refused", st.Query, st.Notes, st.Answer(), err)
	}
}

func TestEmptyQuestion(t *testing.T) {
	p, err := docmind.New(docmind.WithSections(contract(t)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Ask(context.Background(), " \t\n"); err != docmind.ErrEmptyQuery {
		t.Fatalf("err = %v, want ErrEmptyQuery", err)
	}
}

func TestNewNeedsDocuments(t *testing.T) {
	if _, err := docmind.New(); err == nil || !strings.Contains(err.Error(), "no documents") {
		t.Fatalf("err = %v", err)
	}
	if _, err := docmind.New(docmind.WithSections(contract(t)), docmind.WithMaxRetries(-1)); err == nil {
		t.Fatal("negative max retries accepted")
	}
}

// scenario2Model is a go-openai client of a scripted OpenAI-compatible
// server whose first draft says 5% where the contract says 1.5%, and
// whose own verdicts always say grounded; and the server.
func scenario2Model(t *testing.T) (*openai.Model, *openaitest.Server) {
	t.Helper()
	srv := openaitest.New(t)
	dec, _ := json.Marshal(map[string]any{
		"intent": "amount", "sub_queries": []string{"What are the penalties?"}, "entities": []string{},
		"constraints": []string{}, "temporals": []string{}, "key_terms": []string{"penalties"},
	})
	srv.Always(openaitest.RouteDecomposition, openaitest.Reply{Content: string(dec)})
	// The generator cites [Sk] ids of the sections it was shown; find the
	// late-payment section's id in the prompt so that the scripted model
	// cites it like a real one would.
	var generateCalls atomic.Int32
	srv.Respond(func(req openaitest.Request) openaitest.Reply {
		if req.Route != openaitest.RouteGenerate {
			return openaitest.Reply{Status: 500, Message: "unscripted route " + req.Route}
		}
		id := sectionID(req.Text(), "Late Payment Penalties")
		if id == "" {
			id = "S1"
		}
		rate := "1.5%"
		if generateCalls.Add(1) == 1 {
			rate = "5%"
		}
		return openaitest.Reply{Content: fmt.Sprintf("If payment is not received within thirty (30) days, Client shall be assessed a late fee of %s per month [%s].", rate, id)}
	})
	srv.Always(openaitest.RouteVerdict, openaitest.Reply{Content: `{"claims":[{"claim":"late fee per month","section_id":"S1","quote":"late fee","supported":true,"contradiction":"","reason":""}],"is_hallucinated":false,"confidence_score":0.95,"reasoning":"looks grounded","irrelevant_sections":[]}`})

	model, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithAPIKey("test"), openai.WithModel("gpt-4o-mini"))
	if err != nil {
		t.Fatal(err)
	}
	return model, srv
}

// Seed scenario 2 in LLM mode, through the real go-openai client and HTTP
// to a scripted OpenAI-compatible server: the model's first answer says
// 5%, its own verdict says grounded, and the deterministic guards catch it.
func TestSeedScenario2LLMMode(t *testing.T) {
	model, srv := scenario2Model(t)
	var tokens strings.Builder
	obs := schema.ObserverFunc(func(_ context.Context, ev schema.Event) {
		if ev.Type == schema.EventToken {
			tokens.WriteString(ev.Token)
		}
	})
	p, err := docmind.New(docmind.WithSections(contract(t)), docmind.WithLLM(model), docmind.WithModelNames("gpt-4o-mini", ""), docmind.WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode() != docmind.ModeLLM {
		t.Fatalf("mode = %s", p.Mode())
	}
	st, err := p.Run(context.Background(), "What are the penalties?")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.NodeHistory, twoPasses) || st.RetryCount != 1 {
		t.Fatalf("history %v retry_count %d; verdict %+v", st.NodeHistory, st.RetryCount, st.JudgeVerdict)
	}
	if !strings.Contains(st.Answer(), "1.5% per month") || !strings.Contains(st.Answer(), "(See Late Payment Penalties, page 8)") {
		t.Errorf("final_output = %q", st.Answer())
	}
	if got := srv.Calls(openaitest.RouteDecomposition); got != 1 {
		t.Errorf("decomposition calls = %d, want 1", got)
	}
	if got := srv.Calls(openaitest.RouteVerdict); got != 2 {
		t.Errorf("verdict calls = %d, want 2", got)
	}
	if st.Usage == nil || st.Usage.Total.Calls < 5 || st.Usage.ByNode["judge"].Calls != 2 {
		t.Errorf("usage = %+v", st.Usage)
	}
	if !strings.Contains(tokens.String(), "5% per month") || !strings.Contains(tokens.String(), "1.5% per month") {
		t.Errorf("streamed drafts = %q, want both drafts", tokens.String())
	}
	if len(st.PromptVersions) == 0 {
		t.Error("prompt versions not recorded")
	}
}

// WithRerank: the model's ranking orders what the answer's model is
// handed, on every retrieval pass, and the run records the prompt and
// its usage under the retrieve node.
func TestRerankOrdersTheSectionsTheModelReads(t *testing.T) {
	model, srv := scenario2Model(t)
	srv.Always(openaitest.RouteRanking, openaitest.Reply{Content: `{"relevant":["S3","S1"]}`})
	p, err := docmind.New(docmind.WithSections(contract(t)), docmind.WithLLM(model), docmind.WithModelNames("gpt-4o-mini", ""), docmind.WithRerank(20))
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Run(context.Background(), "What are the penalties?")
	if err != nil {
		t.Fatal(err)
	}
	titles := func(prompt string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`<document id="S\d+" title="([^"]*)"`).FindAllStringSubmatch(prompt, -1) {
			out = append(out, m[1])
		}
		return out
	}
	var ranked, handed [][]string
	for _, req := range srv.Requests() {
		switch req.Route {
		case openaitest.RouteRanking:
			ranked = append(ranked, titles(req.Text()))
		case openaitest.RouteGenerate: // the answers, and a rewritten query that shows none
			if t := titles(req.Text()); len(t) > 0 {
				handed = append(handed, t)
			}
		}
	}
	if len(ranked) != 2 || len(handed) != 2 {
		t.Fatalf("%d rankings and %d answers, want one of each per pass (2)", len(ranked), len(handed))
	}
	for i := range ranked {
		if len(ranked[i]) < 3 || len(handed[i]) < 2 || handed[i][0] != ranked[i][2] || handed[i][1] != ranked[i][0] {
			t.Errorf("pass %d: ranked %q, handed on %q; want the model's S3 then S1 first", i+1, ranked[i], handed[i])
		}
		if len(handed[i]) > docmind.LLMSections {
			t.Errorf("pass %d: %d sections handed on, want at most %d", i+1, len(handed[i]), docmind.LLMSections)
		}
	}
	if st.PromptVersions["rerank"] != prompts.MustGet(prompts.NameRerank).Version() {
		t.Errorf("prompt versions %v, want rerank's", st.PromptVersions)
	}
	if st.Usage == nil || st.Usage.ByNode["retrieve"].Calls != 3 {
		t.Errorf("usage %+v, want the two rankings and the retry's rewritten query under retrieve", st.Usage)
	}
	if _, err := docmind.New(docmind.WithSections(contract(t)), docmind.WithRerank(-1)); err == nil {
		t.Error("a negative WithRerank was accepted")
	}
	if _, err := docmind.New(docmind.WithSections(contract(t)), docmind.WithRerank(retriever.MaxRerankCandidates+1)); err == nil {
		t.Error("a WithRerank over the bound was accepted")
	}
}

// sectionID finds the [Sk] id the prompt gave the section titled title.
func sectionID(prompt, title string) string {
	i := strings.Index(prompt, `title="`+title+`"`)
	if i < 0 {
		return ""
	}
	j := strings.LastIndex(prompt[:i], `id="`)
	if j < 0 {
		return ""
	}
	rest := prompt[j+4:]
	return rest[:strings.IndexByte(rest, '"')]
}

// A model that writes the answer reads docmind.LLMSections sections, the
// offline generator index.DefaultTopK: the passage that answers is often
// 6th to 10th on documents nobody tuned for, and a model reads ten as
// easily as five. Through the real client to a scripted server.
func TestLLMReadsMoreSections(t *testing.T) {
	var secs []schema.Section
	for i := 1; i <= 14; i++ {
		secs = append(secs, schema.Section{ID: fmt.Sprintf("s%d", i), Title: fmt.Sprintf("Clause %d", i), Source: "terms.md", Page: i,
			Content: fmt.Sprintf("Notice under clause %d is given in writing %d days before the renewal of the agreement.", i, i+10)})
	}
	const q = "How many days of notice before renewal?"
	off, err := docmind.New(docmind.WithSections(secs))
	if err != nil {
		t.Fatal(err)
	}
	st, err := off.Run(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(st.RetrievedSections); n != 5 {
		t.Errorf("offline: %d sections handed on, want 5", n)
	}

	srv := openaitest.New(t)
	dec, _ := json.Marshal(map[string]any{"intent": "duration", "sub_queries": []string{q}, "key_terms": []string{"notice", "renewal"}})
	srv.Always(openaitest.RouteDecomposition, openaitest.Reply{Content: string(dec)})
	var shown atomic.Int32
	srv.Respond(func(req openaitest.Request) openaitest.Reply {
		if req.Route != openaitest.RouteGenerate {
			return openaitest.Reply{Status: 500, Message: "unscripted route " + req.Route}
		}
		shown.Store(int32(strings.Count(req.Text(), `<document id="S`)))
		return openaitest.Reply{Content: "Notice is given in writing 11 days before the renewal [S1]."}
	})
	srv.Always(openaitest.RouteVerdict, openaitest.Reply{Content: `{"claims":[{"claim":"11 days","section_id":"S1","quote":"11 days","supported":true,"contradiction":"","reason":""}],"is_hallucinated":false,"confidence_score":0.9,"reasoning":"grounded","irrelevant_sections":[]}`})
	model, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithAPIKey("test"), openai.WithModel("gpt-4o-mini"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := docmind.New(docmind.WithSections(secs), docmind.WithLLM(model))
	if err != nil {
		t.Fatal(err)
	}
	if st, err = p.Run(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	if n := len(st.RetrievedSections); n != docmind.LLMSections {
		t.Errorf("LLM mode: %d sections handed on, want %d", n, docmind.LLMSections)
	}
	if n := shown.Load(); n != docmind.LLMSections {
		t.Errorf("the generator's prompt shows %d sections, want %d", n, docmind.LLMSections)
	}
}
