package server

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"path/filepath"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/docmind/docmind/internal/redact"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/threads"
)

// Extension is what DocMind adds to OpenAI's chat completion (and to the
// last chunk of a stream), in the field "docmind": the run in the
// ledger, the judge's verdict and the answer's citations.
type Extension struct {
	RunID  string `json:"run_id"`
	Thread string `json:"thread"`
	// Query is the standalone question the pipeline ran (the last user
	// message, rewritten from the earlier ones when it is a follow-up).
	Query string `json:"query"`
	// Answered is false when the reply is the fallback message.
	Answered  bool            `json:"answered"`
	Verdict   *schema.Verdict `json:"verdict"`
	Citations []Citation      `json:"citations"`
}

// ChatCompletion is the response of POST /v1/chat/completions.
type ChatCompletion struct {
	openai.ChatCompletionResponse
	Docmind *Extension `json:"docmind,omitempty"`
}

// ChatCompletionChunk is one chunk of a streamed chat completion; the
// last one carries the Extension.
type ChatCompletionChunk struct {
	openai.ChatCompletionStreamResponse
	Docmind *Extension `json:"docmind,omitempty"`
}

// modelsList is the response of GET /v1/models.
type modelsList struct {
	Object string `json:"object"`
	openai.ModelsList
}

func (s *Server) modelInfo() openai.Model {
	return openai.Model{ID: ModelName, Object: "model", OwnedBy: "docmind", CreatedAt: s.started.Unix(), Root: ModelName, Permission: []openai.Permission{}}
}

// models answers GET /v1/models.
func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, modelsList{Object: "list", ModelsList: openai.ModelsList{Models: []openai.Model{s.modelInfo()}}})
}

// model answers GET /v1/models/{id}.
func (s *Server) model(w http.ResponseWriter, r *http.Request) {
	if id := r.PathValue("id"); id != ModelName {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no model %q: this server serves %q", id, ModelName))
		return
	}
	writeJSON(w, http.StatusOK, s.modelInfo())
}

// messageText is the text of a chat message (its text parts, joined).
func messageText(m openai.ChatCompletionMessage) string {
	if len(m.MultiContent) == 0 {
		return strings.TrimSpace(m.Content)
	}
	var parts []string
	for _, p := range m.MultiContent {
		if p.Type == openai.ChatMessagePartTypeText {
			parts = append(parts, p.Text)
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// chatQuestion reads the question (the last message, from the user) and
// the earlier user messages of a chat request; for a request it cannot
// answer it returns the HTTP status and the error message instead (404
// for another model, 413 for a question over MaxQuestionBytes, as
// /api/v1/ask, 400 otherwise).
func chatQuestion(req *openai.ChatCompletionRequest) (string, []threads.Turn, int, string) {
	if req.Model != "" && req.Model != ModelName {
		return "", nil, http.StatusNotFound, fmt.Sprintf("no model %q: this server serves %q", req.Model, ModelName)
	}
	if len(req.Messages) == 0 {
		return "", nil, http.StatusBadRequest, `"messages" is required: the last one, from the user, is the question`
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != openai.ChatMessageRoleUser {
		return "", nil, http.StatusBadRequest, fmt.Sprintf("the last message is from %q: it must be the user's question", last.Role)
	}
	q := messageText(last)
	if q == "" {
		return "", nil, http.StatusBadRequest, "the last message has no text: it must be the user's question"
	}
	if len(q) > MaxQuestionBytes {
		return "", nil, http.StatusRequestEntityTooLarge, fmt.Sprintf("question too long: at most %d KiB", MaxQuestionBytes>>10)
	}
	var turns []threads.Turn
	for _, m := range req.Messages[:len(req.Messages)-1] {
		if t := messageText(m); m.Role == openai.ChatMessageRoleUser && t != "" {
			turns = append(turns, threads.Turn{Question: t})
		}
	}
	return q, turns, 0, ""
}

// chatCompletions answers POST /v1/chat/completions: the last user
// message is the question, the earlier ones the conversation it is read
// in; the reply is the judged answer, with its citations, or the fallback
// message.
func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	var req openai.ChatCompletionRequest
	if !s.decodeJSON(w, r, &req, false) {
		return
	}
	q, turns, status, problem := chatQuestion(&req)
	if problem != "" {
		writeError(w, status, problem)
		return
	}
	release, ok := s.slot(w, r)
	if !ok {
		return
	}
	defer release()
	thread := "openai-" + threads.NewRunID()[:8]
	run := func(ctx context.Context) (*threads.Result, error) {
		return s.cfg.Manager.Ask(ctx, thread, q, threads.WithHistory(turns), threads.WithReview(false))
	}
	created := time.Now().Unix()
	if !req.Stream {
		res, err := s.run(r.Context(), run, nil)
		if err != nil {
			writeError(w, errorStatus(err), redact.String(oneLine(err.Error())))
			return
		}
		writeJSON(w, http.StatusOK, s.chatCompletion(res, created))
		return
	}
	out, stop := startStream(w)
	id := "chatcmpl-" + thread
	chunk := func(delta openai.ChatCompletionStreamChoiceDelta, finish openai.FinishReason, ext *Extension) ChatCompletionChunk {
		return ChatCompletionChunk{ChatCompletionStreamResponse: openai.ChatCompletionStreamResponse{
			ID: id, Object: "chat.completion.chunk", Created: created, Model: ModelName,
			Choices: []openai.ChatCompletionStreamChoice{{Index: 0, Delta: delta, FinishReason: finish}},
		}, Docmind: ext}
	}
	out.event("", chunk(openai.ChatCompletionStreamChoiceDelta{Role: openai.ChatMessageRoleAssistant}, "", nil))
	res, err := s.run(r.Context(), run, nil)
	stop()
	if err != nil {
		// The status was sent: the error goes in the stream, in OpenAI's
		// shape, so that clients report it.
		out.event("", map[string]any{"error": map[string]string{"message": redact.String(oneLine(err.Error())), "type": "server_error"}})
		return
	}
	full := s.chatCompletion(res, created)
	for _, piece := range answerChunks(full.Choices[0].Message.Content) {
		out.event("", chunk(openai.ChatCompletionStreamChoiceDelta{Content: piece}, "", nil))
	}
	last := chunk(openai.ChatCompletionStreamChoiceDelta{}, openai.FinishReasonStop, full.Docmind)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		last.Usage = &full.Usage
	}
	out.event("", last)
	out.raw("[DONE]")
}

// assistantContent is the assistant message of a finished run (its state
// as shown to clients, showState): the answer
// (or the fallback message), then, so that any chat client shows them,
// a short "Sources:" list of the documents and pages it cites, or for a
// refusal the closest passages found, marked as not verified.
func (s *Server) assistantContent(st *schema.State) string {
	content := st.Answer()
	if s.cfg.NoSourcesInContent {
		return content
	}
	var b strings.Builder
	b.WriteString(content)
	line := func(title, source, page string) {
		fmt.Fprintf(&b, "\n- %s — %s, %s", title, path.Base(filepath.ToSlash(source)), page)
	}
	if st.Answered() {
		seen := map[string]bool{}
		for _, sec := range st.CitedSections() {
			k := sec.Source + "\x00" + sec.Citation()
			if seen[k] {
				continue
			}
			if len(seen) == 0 {
				b.WriteString("\n\nSources:")
			}
			seen[k] = true
			line(sec.Title, sec.Source, sec.SourceRef())
		}
	} else if len(st.ClosestPassages) > 0 {
		b.WriteString("\n\nClosest passages found (not verified):")
		for _, p := range st.ClosestPassages {
			line(p.Title, p.Source, p.PageRef)
			if p.Excerpt != "" {
				fmt.Fprintf(&b, "\n  %q", p.Excerpt)
			}
		}
	}
	return b.String()
}

// chatCompletion is the chat completion of a finished run.
func (s *Server) chatCompletion(res *threads.Result, created int64) ChatCompletion {
	st := s.showState(res.State)
	usage := openai.Usage{}
	if st.Usage != nil {
		usage = openai.Usage{PromptTokens: st.Usage.Total.PromptTokens, CompletionTokens: st.Usage.Total.CompletionTokens, TotalTokens: st.Usage.Total.TotalTokens}
	}
	return ChatCompletion{
		ChatCompletionResponse: openai.ChatCompletionResponse{
			ID: "chatcmpl-" + res.Run.Thread, Object: "chat.completion", Created: created, Model: ModelName,
			Choices: []openai.ChatCompletionChoice{{
				Index:        0,
				Message:      openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: s.assistantContent(st)},
				FinishReason: openai.FinishReasonStop,
			}},
			Usage: usage,
		},
		Docmind: &Extension{
			RunID: res.Run.ID, Thread: res.Run.Thread, Query: res.Run.Query, Answered: st.Answered(),
			Verdict: st.JudgeVerdict, Citations: citations(st),
		},
	}
}

// answerChunks splits an answer into the pieces a stream sends: a few
// words each, spaces kept, so that the pieces join to the answer.
func answerChunks(answer string) []string {
	const wordsPerChunk = 4
	var out []string
	words := strings.SplitAfter(answer, " ")
	for i := 0; i < len(words); i += wordsPerChunk {
		out = append(out, strings.Join(words[i:min(i+wordsPerChunk, len(words))], ""))
	}
	return out
}
