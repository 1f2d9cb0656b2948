package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/decomposer"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/providers"
	"github.com/docmind/docmind/schema"
)

// checkResult is one check of `docmind check`.
type checkResult struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warn, fail or skipped
	Detail string `json:"detail"`
	// Notes are what the run's notes said during the check (a parameter
	// the endpoint refused, a prompt cut to its window).
	Notes      []string `json:"notes"`
	DurationMS float64  `json:"duration_ms"`
}

// checkReport is the output of `docmind check --json`.
type checkReport struct {
	Mode       string        `json:"mode"` // llm or offline
	Provider   string        `json:"provider"`
	Model      string        `json:"model"`
	JudgeModel string        `json:"judge_model"`
	Endpoint   string        `json:"endpoint"`
	Embeddings string        `json:"embeddings"`
	Checks     []checkResult `json:"checks"`
	Failed     int           `json:"failed"`
	Warnings   int           `json:"warnings"`
}

const (
	checkOK      = "ok"
	checkWarn    = "warn"
	checkFail    = "fail"
	checkSkipped = "skipped"
)

// codeWord opens the long prompt of the context-window check; a model
// that reads the prompt from its start can give it back.
const codeWord = "PELICAN-4172"

// windowPromptBytes is the size of the context-window check's prompt:
// about 6,000 tokens, the size of DocMind's largest prompts (a judge's
// ten sections, its instructions and the answer).
const windowPromptBytes = 24 << 10

func (a *app) checkCmd() *cobra.Command {
	var pf pipelineFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check the LLM (and embeddings) DocMind is set up to use, one request per stage",
		Long: `Sends the requests DocMind's stages send to the model the flags and
environment configure (the same ones ask uses) and says, one line each,
whether each works:

  reply           a one-word reply: the endpoint, the key and the model
  decomposition   the decomposer's JSON (structured output)
  verdict         the judge's JSON on a plainly supported answer
  streaming       a streamed reply
  context window  a prompt of about 6,000 tokens (the size of the largest
                  DocMind sends) that ends by asking for a word written at
                  its start: a server whose context window is smaller may
                  drop the start without an error (Ollama's /v1 endpoint)
  embeddings      one embedding, when --embed-model or DOCMIND_EMBED_MODEL
                  is set

A parameter the endpoint refuses and DocMind adapts to (a reasoning model's
temperature, a json_schema response format) is listed under the check it
came up in. The checks cost a few thousand tokens in all.

Offline (no LLM configured) there is nothing to check, and it says how to
configure one.

Exit codes: 0 when no check failed (warnings allowed), 1 when one did.

--json prints {"mode", "provider", "model", "judge_model", "endpoint",
"embeddings", "checks": [{name, status, detail, notes, duration_ms}],
"failed", "warnings"}; status is ok, warn, fail or skipped.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			limits, err := pf.tokenLimits(cmd)
			if err != nil {
				return err
			}
			cfg := pf.llmConfig()
			models, err := providers.FromEnv(a.getenv, cfg)
			if err != nil {
				return err
			}
			emb, err := a.embedding(pf.embed.config(cfg))
			if err != nil {
				return err
			}
			ctx, cancel := pf.runContext(cmd.Context())
			defer cancel()
			rep := a.runChecks(ctx, models, emb, withDefaultLimits(limits), asJSON)
			if asJSON {
				if err := writeJSON(a.stdout, rep); err != nil {
					return err
				}
			}
			if err := runError(ctx, ctx.Err()); err != nil {
				return err
			}
			if rep.Failed > 0 {
				return fmt.Errorf("%d of %d checks failed", rep.Failed, len(rep.Checks))
			}
			return nil
		},
	}
	pf.registerLLM(cmd)
	pf.embed.register(cmd)
	addJSONFlag(cmd, &asJSON, "the checks")
	return cmd
}

// runChecks runs the checks in order, printing a line for each as it ends
// unless quiet.
func (a *app) runChecks(ctx context.Context, models providers.Models, emb providers.Embedding, limits docmind.TokenLimits, quiet bool) checkReport {
	rep := checkReport{Mode: "offline", Provider: models.Provider, Model: models.Name, JudgeModel: models.JudgeName,
		Endpoint: models.Endpoint, Embeddings: emb.Model, Checks: []checkResult{}}
	say := func(format string, args ...any) {
		if !quiet {
			fmt.Fprintf(a.stdout, format, args...)
		}
	}
	if models.Offline() {
		say("offline: no LLM is configured, so there is nothing to check. Set OPENAI_API_KEY (OpenAI),\nOPENAI_BASE_URL (any OpenAI-compatible server), ANTHROPIC_API_KEY or OLLAMA_HOST, or pass --provider.\n")
		return rep
	}
	rep.Mode = "llm"
	say("%s\n", models.Describe())
	if emb.Enabled() {
		say("%s\n", emb.Describe())
	}
	type check struct {
		name string
		// run sends the check's requests; meter holds the notes they left
		run func(ctx context.Context, meter *schema.Meter) (status, detail string)
	}
	checks := []check{
		{"reply", func(ctx context.Context, _ *schema.Meter) (string, string) { return checkReply(ctx, models.Main) }},
		{"decomposition", func(ctx context.Context, _ *schema.Meter) (string, string) {
			return checkDecomposition(ctx, models.Main, llm.Settings{ModelName: models.Name, MaxTokens: limits.Decompose})
		}},
		{"verdict", func(ctx context.Context, _ *schema.Meter) (string, string) {
			return checkVerdict(ctx, models.Judge, docmind.JudgeSettings(models.JudgeName, limits.Judge))
		}},
		{"streaming", func(ctx context.Context, _ *schema.Meter) (string, string) {
			return checkStreaming(ctx, models.Main, limits.Generate)
		}},
		{"context window", func(ctx context.Context, m *schema.Meter) (string, string) {
			return checkWindow(ctx, m, models.Main, limits.Generate)
		}},
	}
	if emb.Enabled() {
		checks = append(checks, check{"embeddings", func(ctx context.Context, _ *schema.Meter) (string, string) { return checkEmbeddings(ctx, emb) }})
	}
	for i, c := range checks {
		r := checkResult{Name: c.name, Notes: []string{}}
		if i > 0 && rep.Checks[0].Status == checkFail && c.name != "embeddings" {
			r.Status, r.Detail = checkSkipped, "the model did not reply"
		} else if ctx.Err() != nil {
			r.Status, r.Detail = checkSkipped, "the run's deadline passed"
		} else {
			meter := &schema.Meter{}
			start := time.Now()
			r.Status, r.Detail = c.run(schema.ContextWithMeter(ctx, meter), meter)
			r.DurationMS = float64(time.Since(start).Microseconds()) / 1000
			if n := meter.Notes(); n != "" {
				r.Notes = strings.Split(n, "; ")
			}
		}
		switch r.Status {
		case checkFail:
			rep.Failed++
		case checkWarn:
			rep.Warnings++
		}
		rep.Checks = append(rep.Checks, r)
		say("%-7s %-15s %6.1fs  %s\n", r.Status, r.Name, r.DurationMS/1000, r.Detail)
		for _, n := range r.Notes {
			say("%-7s %-15s          note: %s\n", "", "", n)
		}
	}
	return rep
}

// withDefaultLimits fills l's zero fields from docmind.DefaultTokenLimits.
func withDefaultLimits(l docmind.TokenLimits) docmind.TokenLimits {
	d := docmind.DefaultTokenLimits()
	pick := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	return docmind.TokenLimits{Decompose: pick(l.Decompose, d.Decompose), Generate: pick(l.Generate, d.Generate),
		Judge: pick(l.Judge, d.Judge), Rewrite: pick(l.Rewrite, d.Rewrite), Rerank: pick(l.Rerank, d.Rerank)}
}

// failed words a check's error in one line.
func failed(err error) (string, string) {
	return checkFail, oneLineErr(err)
}

func oneLineErr(err error) string {
	return oneLineText(err.Error())
}

func checkReply(ctx context.Context, m llms.Model) (string, string) {
	resp, err := m.GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Reply with the word OK and nothing else.")},
		llms.WithMaxTokens(16), llms.WithTemperature(0))
	if err != nil {
		return failed(err)
	}
	text := strings.TrimSpace(resp.Choices[0].Content)
	if text == "" {
		return checkWarn, "replied with no text (a reasoning model may have spent its 16 tokens reasoning)"
	}
	return checkOK, fmt.Sprintf("replied %q", shorten(text, 40))
}

func checkDecomposition(ctx context.Context, m llms.Model, s llm.Settings) (string, string) {
	dec, err := decomposer.NewLLM(m, decomposer.LLMOptions{Settings: s}).Decompose(ctx, "What late fee does the 2023 services agreement set for overdue invoices?")
	if err != nil {
		return failed(err)
	}
	if dec.Fallback != "" {
		return checkFail, dec.Fallback
	}
	return checkOK, fmt.Sprintf("read as intent %q with %d sub-question(s)", dec.Intent, len(dec.SubQueries))
}

func checkVerdict(ctx context.Context, m llms.Model, s llm.Settings) (string, string) {
	sec := schema.Section{ID: "check-1", Title: "Late Payment", Content: "If an invoice is not paid within thirty (30) days, the Client shall pay a late fee of 1.5% per month on the overdue amount.",
		Source: "services-agreement.md", Page: 3}
	v, err := judge.NewLLM(m, judge.LLMOptions{Settings: s}).Judge(ctx, schema.JudgeRequest{
		Query: "What late fee applies to overdue invoices?", Sections: []schema.Section{sec},
		Response: "The Client pays a late fee of 1.5% per month on the overdue amount [S1].",
	})
	if err != nil {
		return failed(err)
	}
	switch {
	case v.Unverified:
		return checkFail, v.Reasoning
	case v.IsHallucinated:
		return checkWarn, "the verdict was read, but it rejects an answer its passage states word for word (" + shorten(v.Reasoning, 120) + "): the model may be too weak to judge"
	}
	return checkOK, fmt.Sprintf("read: the answer is supported (%d claim(s))", len(v.Claims))
}

func checkStreaming(ctx context.Context, m llms.Model, maxTokens int) (string, string) {
	chunks := 0
	resp, err := m.GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Count from 1 to 10, the numbers separated by spaces.")},
		llms.WithMaxTokens(maxTokens), llms.WithStreamingFunc(func(context.Context, []byte) error { chunks++; return nil }))
	if err != nil {
		return failed(err)
	}
	if chunks == 0 || strings.TrimSpace(resp.Choices[0].Content) == "" {
		return checkWarn, "the reply came with no streamed text"
	}
	return checkOK, fmt.Sprintf("%d chunk(s)", chunks)
}

// windowPrompt is the context-window check's prompt: the code word, then
// numbered clauses up to windowPromptBytes, then the question.
func windowPrompt() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Remember this code word: %s.\n\n", codeWord)
	for i := 1; b.Len() < windowPromptBytes; i++ {
		fmt.Fprintf(&b, "Clause %d. The Supplier shall deliver the goods listed in Schedule %d within %d days of the order, and the Client shall inspect them within %d days of delivery.\n", i, i%7+1, i%30+10, i%5+3)
	}
	b.WriteString("\nWhat was the code word given at the very start of this message? Reply with the code word only.")
	return b.String()
}

// checkWindow sends windowPrompt; meter holds the notes of the call (the
// OpenAI adapter notes a prompt the model read only part of).
func checkWindow(ctx context.Context, meter *schema.Meter, m llms.Model, maxTokens int) (string, string) {
	resp, err := m.GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, windowPrompt())},
		llms.WithMaxTokens(maxTokens), llms.WithTemperature(0))
	if err != nil {
		var se *llm.StatusError
		if errors.As(err, &se) && se.StatusCode == 400 {
			return checkFail, oneLineErr(err) + ": the model's context window is likely smaller than DocMind's prompts"
		}
		return failed(err)
	}
	if strings.Contains(meter.Notes(), "reported reading") {
		return checkFail, "the model read only part of the prompt (see the note)"
	}
	est := windowPromptBytes / openai.BytesPerPromptToken
	if !strings.Contains(resp.Choices[0].Content, codeWord) {
		return checkWarn, fmt.Sprintf("the reply does not give the code word written at the start of a prompt of about %d tokens: the model may not read prompts that long whole, or cannot follow the instruction", est)
	}
	return checkOK, fmt.Sprintf("read a prompt of about %d tokens from its start", est)
}

func checkEmbeddings(ctx context.Context, emb providers.Embedding) (string, string) {
	v, err := emb.Embedder.EmbedQuery(ctx, "late fee on overdue invoices")
	if err != nil {
		return failed(err)
	}
	if len(v) == 0 {
		return checkFail, "the endpoint returned an empty vector"
	}
	return checkOK, fmt.Sprintf("%d dimensions", len(v))
}
