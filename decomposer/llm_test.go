package decomposer_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/docmind/docmind/decomposer"
	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/prompts"
	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/schema"
)

type fixed struct{ d schema.Decomposition }

func (f fixed) Decompose(context.Context, string) (*schema.Decomposition, error) {
	d := f.d
	return &d, nil
}

func TestLLMDecomposer(t *testing.T) {
	const q = "What are the late payment penalties?"
	good := `{"intent":"amount","sub_queries":["What are the late payment penalties?"],"entities":[],"constraints":[],"temporals":["per month"],"key_terms":["late","payment","penalties"]}`
	tests := []struct {
		name     string
		replies  []openaitest.Reply
		fallback schema.Decomposer
		want     schema.Decomposition
		calls    int
		wantErr  bool
	}{
		{name: "valid JSON", replies: []openaitest.Reply{{Content: good}}, calls: 1,
			want: schema.Decomposition{Intent: "amount", SubQueries: []string{q}, Entities: []string{}, Constraints: []string{}, Temporals: []string{"per month"}, KeyTerms: []string{"late", "payment", "penalties"}}},
		{name: "malformed then repaired", replies: []openaitest.Reply{{Content: "Sure, here you go: {intent: amount"}, {Content: "```json\n" + good + "\n```"}}, calls: 2,
			want: schema.Decomposition{Intent: "amount", SubQueries: []string{q}, Entities: []string{}, Constraints: []string{}, Temporals: []string{"per month"}, KeyTerms: []string{"late", "payment", "penalties"}}},
		{name: "tolerant fields", replies: []openaitest.Reply{{Content: `{"intent":"Penalty","sub_queries":"late fees?","entities":null,"constraints":[],"temporals":[],"key_terms":[]}`}}, calls: 1,
			want: schema.Decomposition{Intent: "penalty", SubQueries: []string{"late fees?"}, Entities: []string{}, Constraints: []string{}, Temporals: []string{}}},
		{name: "intent outside the enum", replies: []openaitest.Reply{{Content: `{"intent":"fee","sub_queries":"late fees?","entities":null,"constraints":[],"temporals":[],"key_terms":[]}`}}, calls: 1,
			want: schema.Decomposition{Intent: "general", SubQueries: []string{"late fees?"}, Entities: []string{}, Constraints: []string{}, Temporals: []string{}}},
		{name: "unparseable twice falls back to minimal", replies: []openaitest.Reply{{Content: "no"}, {Content: "still no"}}, calls: 2,
			want: schema.Decomposition{Intent: "general", SubQueries: []string{q}, Entities: []string{}, Constraints: []string{}, Temporals: []string{},
				Fallback: `decomposition: the model's reply could not be parsed after a repair attempt: no JSON object found in the model's output (output was "still no"); used the question as its only sub-query instead`}},
		{name: "unparseable twice uses the fallback decomposer", replies: []openaitest.Reply{{Content: "no"}, {Content: "{}"}}, calls: 2,
			fallback: fixed{schema.Decomposition{Intent: "deadline"}}, want: schema.Decomposition{Intent: "deadline",
				Fallback: `decomposition: the model's reply could not be parsed after a repair attempt: decomposition has neither "intent" nor "sub_queries"; used the fallback decomposer's reading instead`}},
		{name: "fallback intent outside the enum becomes general", replies: []openaitest.Reply{{Content: "no"}, {Content: "no"}}, calls: 2,
			fallback: fixed{schema.Decomposition{Intent: "refund"}}, want: schema.Decomposition{Intent: "general",
				Fallback: `decomposition: the model's reply could not be parsed after a repair attempt: no JSON object found in the model's output (output was "no"); used the fallback decomposer's reading instead`}},
		{name: "cut off twice falls back to the rules", replies: []openaitest.Reply{{Content: `{"intent":"amount","sub_queries":[{"intent":"x"}, "wh`, FinishReason: "length"}, {Content: `{"intent":"amount","sub_queries":["wh`, FinishReason: "length"}}, calls: 2,
			fallback: decomposer.NewOffline(), want: schema.Decomposition{Intent: "penalty", SubQueries: []string{q}, KeyTerms: []string{"late", "payment", "penalties"},
				Fallback: "decomposition: the model's reply was cut off at 1024 tokens, twice; used the rule-based decomposition instead"}},
		{name: "search terms that add a word to the question", replies: []openaitest.Reply{{Content: `{"intent":"amount","sub_queries":["What are the late payment penalties?"],"entities":[],"constraints":[],"temporals":[],"key_terms":["late","payment","penalties"],` +
			`"search_terms":["Late Fee","penalty","overdue  interest","penalties for late payment","","charges imposed on any amount not paid when due","late fee","1.5%","fine","surcharge","arrears","collection costs","delinquent","default interest","interest rate"]}`}}, calls: 1,
			// "penalty" and "penalties for late payment" restate the
			// question (by stem),
			// a long clause is no search term, duplicates and numbers go,
			// and eight are kept
			want: schema.Decomposition{Intent: "amount", SubQueries: []string{q}, Entities: []string{}, Constraints: []string{}, Temporals: []string{}, KeyTerms: []string{"late", "payment", "penalties"},
				SearchTerms: []string{"late fee", "overdue interest", "fine", "surcharge", "arrears", "collection costs", "delinquent", "default interest"}}},
		{name: "model error aborts", replies: []openaitest.Reply{{Status: 400, Message: "model not found"}}, calls: 1, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Script(openaitest.RouteDecomposition, tc.replies...)
			m, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("gpt-4o-mini"))
			if err != nil {
				t.Fatal(err)
			}
			meter := &schema.Meter{}
			ctx := schema.ContextWithMeter(context.Background(), meter)
			got, err := decomposer.NewLLM(m, decomposer.LLMOptions{Fallback: tc.fallback}).Decompose(ctx, q)
			if srv.Calls(openaitest.RouteDecomposition) != tc.calls {
				t.Errorf("calls = %d, want %d", srv.Calls(openaitest.RouteDecomposition), tc.calls)
			}
			if tc.wantErr {
				if err == nil {
					t.Fatalf("want error, got %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tc.want)
			}
			if meter.PromptVersions()[prompts.NameDecompose] == "" {
				t.Error("prompt version not recorded")
			}
			req, _ := srv.Last(openaitest.RouteDecomposition)
			if rf := req.Body.ResponseFormat; rf == nil || rf.JSONSchema == nil || !rf.JSONSchema.Strict {
				t.Errorf("no strict json_schema on the wire: %s", req.Raw)
			}
		})
	}
}

func TestLLMDecomposerEmptyQuery(t *testing.T) {
	srv := openaitest.New(t)
	m, _ := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("m"))
	if _, err := decomposer.NewLLM(m, decomposer.LLMOptions{}).Decompose(context.Background(), "  "); !errors.Is(err, schema.ErrEmptyQuery) {
		t.Errorf("err = %v", err)
	}
	if srv.Calls("") != 0 {
		t.Error("empty question reached the model")
	}
}

// Every decomposition request bounds the reply and asks for temperature 0
// explicitly (go-openai would drop a zero temperature).
func TestLLMDecomposerSendsMaxTokensAndTemperature(t *testing.T) {
	srv := openaitest.New(t)
	srv.Check(openaitest.RequireMaxTokens)
	srv.Script(openaitest.RouteDecomposition, openaitest.Reply{Content: "no"}, openaitest.Reply{Content: `{"intent":"amount","sub_queries":["q?"]}`})
	m, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decomposer.NewLLM(m, decomposer.LLMOptions{}).Decompose(context.Background(), "q?"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2 (the reply and the repair)", len(reqs))
	}
	for _, r := range reqs {
		if r.MaxTokens() != decomposer.DefaultMaxTokens {
			t.Errorf("max tokens = %d, want %d: %s", r.MaxTokens(), decomposer.DefaultMaxTokens, r.Raw)
		}
		if !r.HasKey("temperature") || r.Body.Temperature > 1e-3 {
			t.Errorf("temperature not sent as ~0: %s", r.Raw)
		}
	}
	m2, _ := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("m"))
	srv.Script(openaitest.RouteDecomposition, openaitest.Reply{Content: `{"intent":"amount","sub_queries":["q?"]}`})
	if _, err := decomposer.NewLLM(m2, decomposer.LLMOptions{Settings: llm.Settings{MaxTokens: 77}}).Decompose(context.Background(), "q?"); err != nil {
		t.Fatal(err)
	}
	if r, _ := srv.Last(openaitest.RouteDecomposition); r.MaxTokens() != 77 {
		t.Errorf("configured max tokens = %d, want 77", r.MaxTokens())
	}
}

// Every intent is one of question.Intents, the enum of the
// docmind_decomposition schema: the model's, the rules' and a fallback's.
func TestIntentsAreTheSchemaEnum(t *testing.T) {
	var sc struct {
		Properties struct {
			Intent struct {
				Enum []string `json:"enum"`
			} `json:"intent"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(prompts.DecompositionSchema(), &sc); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sc.Properties.Intent.Enum, question.Intents) {
		t.Errorf("schema enum %v != question.Intents %v", sc.Properties.Intent.Enum, question.Intents)
	}
	for _, q := range []string{"What are the late payment penalties?", "How long is the notice period?", "When is the invoice due?",
		"What is the difference between A and B?", "Is there a cap?", "How do I terminate?", "What does force majeure mean?",
		"List the fees", "How much is the deposit?", "Tell me about the warranty"} {
		d, err := decomposer.NewOffline().Decompose(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if !question.IsIntent(d.Intent) {
			t.Errorf("rules gave %q intent %q, outside the enum", q, d.Intent)
		}
	}
}
