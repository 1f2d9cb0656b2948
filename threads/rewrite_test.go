package threads

import (
	"context"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/prompts"
	"github.com/docmind/docmind/schema"
)

func TestRulesRewrite(t *testing.T) {
	tests := []struct {
		prev, q, want string
	}{
		{"What are the late payment penalties?", "And what if it is still unpaid after 60 days?",
			"What happens if payment is still unpaid after 60 days?"},
		{"What are the late payment penalties?", "and for enterprise clients?",
			"What are the late payment penalties for enterprise clients?"},
		{"What are the late payment penalties?", "What about for enterprise clients?",
			"What are the late payment penalties for enterprise clients?"},
		{"What are the late payment penalties?", "what about refunds?", "What are the refunds?"},
		{"What are the late payment penalties?", "How are they calculated?", "How are the late payment penalties calculated?"},
		{"What is the warranty period?", "Can it be extended?", "Can the warranty period be extended?"},
		{"What is the warranty period?", "And what is its length in months?", "What is the warranty period's length in months?"},
		{"What is the notice period for termination?", "does that apply to enterprise clients?",
			"Does the notice period apply to enterprise clients?"},
		// Standalone questions are kept (a leading "and" is dropped).
		{"What are the late payment penalties?", "What is the warranty period?", "What is the warranty period?"},
		{"What are the late payment penalties?", "And what is the governing law?", "What is the governing law?"},
		// An expletive "it" is not a reference.
		{"What are the late payment penalties?", "Is it possible to terminate early?", "Is it possible to terminate early?"},
	}
	for _, tt := range tests {
		got, err := Offline{}.Rewrite(context.Background(), []Turn{{Question: "ignored", Query: tt.prev}}, tt.q)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("after %q, %q\n got %q\nwant %q", tt.prev, tt.q, got, tt.want)
		}
	}
	// Without history the question is unchanged.
	if got, _ := (Offline{}).Rewrite(context.Background(), nil, "and for enterprise clients?"); got != "and for enterprise clients?" {
		t.Errorf("no history: %q", got)
	}
}

func FuzzRulesRewrite(f *testing.F) {
	f.Add("What are the late payment penalties?", "And what if it is still unpaid after 60 days?")
	f.Add("", "and")
	f.Add("what about", "what about ?")
	f.Add("It's their?", "its, their; them.")
	f.Fuzz(func(t *testing.T, prev, q string) {
		out, err := Offline{}.Rewrite(context.Background(), []Turn{{Query: prev}}, q)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(q) != "" && strings.TrimSpace(out) == "" && strings.Trim(q, " ?.!,andANDbutsothenokwell") != "" {
			t.Fatalf("rewrite of %q after %q is empty", q, prev)
		}
	})
}

func TestLLMRewriter(t *testing.T) {
	ctx := context.Background()
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate,
		openaitest.Reply{Content: "Standalone question: \"What happens if payment is still unpaid after 60 days?\"\n"},
		openaitest.Reply{Status: 500, Message: "upstream down"})
	model, err := newLLMModel(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := pipeline(grounded(0.9))
	m := newManager(t, checkpoint.NewMemory(), cfg, func(c *Config) { c.Rewriter = &LLM{Model: model, Fallback: Offline{}} })

	first, err := m.Ask(ctx, "t", "What are the late payment penalties?")
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls("") != 0 || first.Run.Query != first.Run.Question {
		t.Fatalf("a first question was sent to the model (%d calls) or changed: %q", srv.Calls(""), first.Run.Query)
	}
	second, err := m.Ask(ctx, "t", "And what if it is still unpaid after 60 days?")
	if err != nil {
		t.Fatal(err)
	}
	if second.Run.Query != "What happens if payment is still unpaid after 60 days?" {
		t.Fatalf("query %q", second.Run.Query)
	}
	req, ok := srv.Last(openaitest.RouteGenerate)
	if !ok || !strings.Contains(req.Text(), "1. What are the late payment penalties?") ||
		!strings.Contains(req.Text(), "Follow-up question: And what if it is still unpaid after 60 days?") {
		t.Fatalf("prompt:\n%s", req.Text())
	}
	// The answer was retrieved and judged from the documents.
	if !strings.Contains(second.Answer(), "Suspension of Services, page 9") {
		t.Fatalf("answer %q", second.Answer())
	}
	// The rewrite's tokens and prompt version are part of the run.
	if second.Run.Tokens == 0 || second.State.Usage.ByNode["rewrite"].Calls != 1 || second.State.PromptVersions[RewritePromptName] != RewritePromptVersion {
		t.Fatalf("usage %+v, tokens %d, prompts %v", second.State.Usage, second.Run.Tokens, second.State.PromptVersions)
	}
	// When the model fails, the rules rewrite the question.
	third, err := m.Ask(ctx, "t", "and for enterprise clients?")
	if err != nil {
		t.Fatal(err)
	}
	if third.Run.Query != "What happens if payment is still unpaid after 60 days for enterprise clients?" {
		t.Fatalf("fallback query %q", third.Run.Query)
	}
	if note := third.State.Notes[StageRewrite]; !strings.HasPrefix(note, "model call failed: ") || !strings.Contains(note, "; used the rule-based rewrite instead") {
		t.Errorf("fallback note %q", note)
	}
	// Without a fallback the model's failure is an error.
	srv.Script(openaitest.RouteGenerate, openaitest.Reply{Status: 400, Message: "bad request"})
	_, err = (&LLM{Model: model}).Rewrite(ctx, []Turn{{Question: "q"}}, "and then?")
	if err == nil || !strings.Contains(err.Error(), "rewrite follow-up question") {
		t.Fatalf("error %v", err)
	}
}

// FuzzCleanRewrite checks the parser of the rewrite model's reply: the
// question it takes is one line of the reply, without surrounding quotes
// or spaces, and an empty result means no line of the reply holds more
// than a label, quotes or a code fence.
func FuzzCleanRewrite(f *testing.F) {
	for _, s := range []string{
		"Standalone question: \"What happens if payment is still unpaid after 60 days?\"\n",
		"```\nWhat is the notice period for enterprise clients?\n```",
		"“What is the fee?”", "Question:", "\n\n  \n", "Rewritten question: 'a: b'\nsecond line",
		"The question: ``", "QUESTION\u00a0: x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		out := cleanRewrite(reply)
		if strings.Contains(out, "\n") {
			t.Fatalf("cleanRewrite(%q) = %q spans lines", reply, out)
		}
		if !strings.Contains(reply, out) {
			t.Fatalf("cleanRewrite(%q) = %q, which is not part of the reply", reply, out)
		}
		if out != strings.Trim(out, "\"'“”` ") {
			t.Fatalf("cleanRewrite(%q) = %q keeps quotes or spaces around it", reply, out)
		}
		if out == "" {
			for _, l := range strings.Split(reply, "\n") {
				l = strings.TrimSpace(l)
				if l == "" || strings.HasPrefix(l, "```") {
					continue
				}
				if strings.Trim(l, "\"'“”` ") != "" && !strings.Contains(strings.ToLower(l), "question") {
					t.Fatalf("cleanRewrite(%q) is empty though line %q holds text", reply, l)
				}
				break
			}
		}
	})
}

// A rewrite cut off at its token limit is half a question: it is not used
// as the standalone question; the rules rewrite the follow-up instead, and
// the run's notes say why, as for any unusable rewrite.
func TestLLMRewriterCutOffFallsBack(t *testing.T) {
	ctx := context.Background()
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate, openaitest.Reply{Content: "What happens if payment is still unpaid after", FinishReason: "length"})
	model, err := newLLMModel(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := pipeline(grounded(0.9))
	m := newManager(t, checkpoint.NewMemory(), cfg, func(c *Config) {
		c.Rewriter = &LLM{Model: model, Fallback: Offline{}, Options: []llms.CallOption{llms.WithMaxTokens(100)}}
	})
	if _, err := m.Ask(ctx, "t", "What are the late payment penalties?"); err != nil {
		t.Fatal(err)
	}
	res, err := m.Ask(ctx, "t", "And what if it is still unpaid after 60 days?")
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls(openaitest.RouteGenerate) != 1 {
		t.Fatalf("%d rewrite calls, want 1", srv.Calls(openaitest.RouteGenerate))
	}
	if res.Run.Query != "What happens if payment is still unpaid after 60 days?" || res.State.Query != res.Run.Query {
		t.Errorf("query %q (state %q), want the rule-based rewrite", res.Run.Query, res.State.Query)
	}
	want := "the model's reply was cut off at 100 tokens; used the rule-based rewrite instead"
	if got := res.State.Notes[StageRewrite]; got != want {
		t.Errorf("rewrite note %q\nwant %q", got, want)
	}
}

// A previous question whose lower-cased form is longer than itself
// (invalid UTF-8 becomes U+FFFD) is cut where its topic really is; the
// offsets of a lower-cased copy ran past its end and panicked (found by
// FuzzRulesRewrite, testdata/fuzz/FuzzRulesRewrite/5cdc7fbf0e4fc9db).
func TestWhatAboutCutsTheTopicWhereItIs(t *testing.T) {
	if got := rewriteRules("\x93 00", "whAt ABout 0"); got == "" {
		t.Errorf("rewrite of invalid UTF-8 is empty")
	}
}

func TestFollowUpKeepsSubject(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		prev, q, want string
	}{
		{"How many employees did Oracle have as of May 31, 2023?", "How many of them were in the U.S.?",
			"How many of Oracle's employees were in the U.S. as of May 31, 2023?"},
		{"How many of Oracle's employees were in the U.S. as of May 31, 2023?", "And in fiscal 2022?",
			"How many of Oracle's employees were in the U.S. as of May 31, 2022?"},
		{"What were Apple's total net sales in fiscal 2022?", "What about Oracle?",
			"What were Oracle's total net sales in fiscal 2022?"},
		{"What were Apple's total net sales in fiscal 2022?", "What about 2021?",
			"What were Apple's total net sales in 2021?"},
		{"What were Apple's total net sales in fiscal 2022?", "And what was the gross margin?",
			"What was the gross margin for Apple in fiscal 2022?"},
		// A follow-up that names its own subject and period keeps them.
		{"What were Apple's total net sales in fiscal 2022?", "What was Intel's revenue in Q1 2023?",
			"What was Intel's revenue in Q1 2023?"},
	}
	for _, tt := range tests {
		got, err := Offline{}.Rewrite(ctx, []Turn{{Query: tt.prev}}, tt.q)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("after %q, %q\n got %q\nwant %q", tt.prev, tt.q, got, tt.want)
		}
	}
	// A chat client's history holds only the questions as asked: the
	// subject still carries across two follow-ups.
	got, _ := Offline{}.Rewrite(ctx, []Turn{
		{Question: "How many employees did Oracle have as of May 31, 2023?"},
		{Question: "How many of them were in the U.S.?"},
	}, "And in fiscal 2022?")
	if want := "How many of Oracle's employees were in the U.S. as of May 31, 2022?"; got != want {
		t.Errorf("from questions only: got %q, want %q", got, want)
	}
}

func TestFollowUpNotesWhatCarried(t *testing.T) {
	meter := &schema.Meter{}
	ctx := schema.ContextWithMeter(context.Background(), meter)
	_, err := Offline{}.Rewrite(ctx, []Turn{{Query: "How many employees did Oracle have as of May 31, 2023?"}}, "How many of them were in the U.S.?")
	if err != nil {
		t.Fatal(err)
	}
	note := meter.Notes()
	for _, want := range []string{`the measure "employees"`, "the subject Oracle", `the period "as of May 31, 2023"`} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
}

// The follow-up rewrite and the retry's query rewrite (prompt "rewrite")
// record their prompt versions under different names: one run may use
// both, and one overwrote the other.
func TestRewritePromptVersionsDoNotCollide(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate, openaitest.Reply{Content: "What are the late payment penalties for enterprise clients?"})
	model, err := newLLMModel(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	meter := &schema.Meter{}
	ctx := schema.ContextWithMeter(context.Background(), meter)
	if _, err := (&LLM{Model: model}).Rewrite(ctx, []Turn{{Question: "What are the late payment penalties?"}}, "and for enterprise clients?"); err != nil {
		t.Fatal(err)
	}
	retry := prompts.MustGet(prompts.NameRewrite)
	if _, err := retry.Messages(ctx, prompts.RewriteData{Query: "q", Unsupported: []string{"c"}, Reasoning: "r"}); err != nil {
		t.Fatal(err)
	}
	got := meter.PromptVersions()
	if RewritePromptName == prompts.NameRewrite || got[RewritePromptName] != RewritePromptVersion || got[prompts.NameRewrite] != retry.Version() {
		t.Fatalf("prompt versions %v, want %s=%s and %s=%s", got, RewritePromptName, RewritePromptVersion, prompts.NameRewrite, retry.Version())
	}
}

// A follow-up with thanks or a greeting before it follows up as it would
// without them: "Thanks. And in 2024?" was taken for a question of its
// own and ran without the previous question's subject.
func TestFollowUpAfterACourtesy(t *testing.T) {
	prev := "How much is the Monthly Service Fee under the Standard tier in 2023?"
	for plain, asked := range map[string]string{
		"And in 2024?":                    "Thanks. And in 2024?",
		"What about the Enterprise tier?": "Great, thanks! What about the Enterprise tier?",
	} {
		want, _ := rewriteFollowUp(prev, plain)
		got, _ := rewriteFollowUp(prev, asked)
		if got != want || got == asked {
			t.Errorf("rewriteFollowUp(%q) = %q, want %q (as for %q)", asked, got, want, plain)
		}
	}
}
