// Package openaitest runs an in-process, scripted OpenAI-compatible chat
// completions and embeddings server for tests. It speaks the wire format of
// POST /v1/chat/completions (plain JSON and server-sent-event streaming)
// and POST /v1/embeddings (deterministic HashEmbedding vectors of a
// configurable dimension, see RouteEmbeddings and SetEmbeddingDim)
// using the request and response types of github.com/sashabaranov/go-openai,
// so any OpenAI client — DocMind's llm/openai adapter, langchaingo's openai
// client, curl — can be pointed at it with a base URL.
//
// Replies are queued per route. A request's route is the name of its
// json_schema response format (for example "docmind_decomposition" or
// "docmind_verdict") or RouteGenerate when it has none. Each reply can set
// an HTTP status with headers (429 with Retry-After, 500, 401), a delay, a
// streamed chunking and token usage. Every request is captured, and calls
// are counted per route.
//
//	srv := openaitest.New(t)
//	srv.Script(openaitest.RouteGenerate,
//		openaitest.Reply{Status: 429, Header: openaitest.RetryAfter("0")},
//		openaitest.Reply{Content: "Hello"})
//	client := openai.NewClientWithConfig(cfg with BaseURL = srv.URL)
//
// The server never touches the network beyond the loopback listener of
// net/http/httptest and is closed by t.Cleanup.
package openaitest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Routes that DocMind's stages use. Any other json_schema name is a route of
// its own.
const (
	// RouteGenerate is the route of requests without a json_schema
	// response format (free text, streamed answers, JSON mode).
	RouteGenerate = "generate"
	// RouteDecomposition is the json_schema name of decomposer requests.
	RouteDecomposition = "docmind_decomposition"
	// RouteVerdict is the json_schema name of judge requests.
	RouteVerdict = "docmind_verdict"
	// RouteRanking is the json_schema name of reranker requests.
	RouteRanking = "docmind_ranking"
)

// Reply is one scripted response.
type Reply struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Header is added to the response (for example Retry-After).
	Header http.Header
	// Message is the error message of a non-2xx reply, sent in OpenAI's
	// {"error":{"message":...}} envelope. Ignored when Body is set.
	Message string
	// Body, when set, is written verbatim instead of a generated body.
	Body string
	// Content is the assistant's text.
	Content string
	// Chunks, when set, is how Content is split on a streaming request;
	// by default Content is split after each space.
	Chunks []string
	// Delay is waited before anything is written. The wait ends early when
	// the client goes away.
	Delay time.Duration
	// ChunkDelay is waited before each streamed chunk after the first.
	ChunkDelay time.Duration
	// Usage overrides the token usage reported; by default prompt tokens
	// are the words of all messages and completion tokens the words of
	// Content.
	Usage *openai.Usage
	// FinishReason defaults to "stop".
	FinishReason openai.FinishReason
	// Model overrides the model echoed back (default: the request's).
	Model string
	// Hangup closes the connection without writing anything (after
	// Delay): the client sees the connection end before any response
	// (EOF).
	Hangup bool
	// Reset is Hangup with a TCP reset instead of an orderly close: the
	// client sees "connection reset by peer".
	Reset bool
	// BreakAfter, when positive, cuts a streaming reply after that many
	// content chunks: the connection closes without the finish chunk or
	// [DONE], as when a server dies mid-answer. Ignored without streaming.
	BreakAfter int
}

// RetryAfter returns a header map with Retry-After set to v (seconds or
// an HTTP date).
func RetryAfter(v string) http.Header {
	return http.Header{"Retry-After": []string{v}}
}

// Request is one captured request.
type Request struct {
	// Route is the json_schema name, RouteGenerate or RouteEmbeddings.
	Route string
	// Body is the decoded request; of an embeddings request only Model is
	// set.
	Body openai.ChatCompletionRequest
	// Inputs are the texts of an embeddings request.
	Inputs []string
	// Raw is the request body as sent; use it to check which JSON keys a
	// client sent (for example that "temperature" is absent).
	Raw []byte
	// Header is the request's HTTP header.
	Header http.Header
}

// HasKey reports whether the raw JSON body has the top-level key.
func (r Request) HasKey(key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(r.Raw, &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

// Text returns the concatenated text of every message, in order, each
// prefixed with its role; handy for assertions about prompts.
func (r Request) Text() string {
	var b strings.Builder
	for _, in := range r.Inputs {
		b.WriteString("input: ")
		b.WriteString(in)
		b.WriteString("\n")
	}
	for _, m := range r.Body.Messages {
		b.WriteString(m.Role)
		b.WriteString(": ")
		b.WriteString(m.Content)
		for _, p := range m.MultiContent {
			b.WriteString(p.Text)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Responder computes a reply for a request that has no queued reply.
type Responder func(req Request) Reply

// Server is a scripted OpenAI-compatible server. Its methods are safe for
// concurrent use.
type Server struct {
	// URL is the base URL to give a client, ending in "/v1".
	URL string

	t        testing.TB
	srv      *httptest.Server
	mu       sync.Mutex
	queues   map[string][]Reply
	fallback map[string]Reply
	respond  Responder
	checks   []func(Request) error
	requests []Request
	counts   map[string]int
	embedDim int
}

// New starts a server; it is closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		t:        t,
		queues:   map[string][]Reply{},
		fallback: map[string]Reply{},
		counts:   map[string]int{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("POST /v1/embeddings", s.handleEmbeddings)
	mux.HandleFunc("POST /embeddings", s.handleEmbeddings)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.Close)
	return s
}

// Close shuts the server down; New arranges for it to run at test end.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Script appends replies to the route's queue; each is used once, in order.
func (s *Server) Script(route string, replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queues[route] = append(s.queues[route], replies...)
}

// Always sets the reply used for the route whenever its queue is empty.
func (s *Server) Always(route string, r Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback[route] = r
}

// Respond sets a function that answers any request whose route has neither
// a queued nor an Always reply.
func (s *Server) Respond(fn Responder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = fn
}

// Check adds a check that every chat request must pass: a request that
// fails it is reported with t.Errorf and answered 400 with the check's
// message, so the client sees it too.
func (s *Server) Check(fn func(Request) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checks = append(s.checks, fn)
}

// RequireMaxTokens is a check for Server.Check: the request bounds the
// reply with max_tokens or max_completion_tokens.
func RequireMaxTokens(r Request) error {
	if r.MaxTokens() <= 0 {
		return fmt.Errorf("%s request has neither max_tokens nor max_completion_tokens", r.Route)
	}
	return nil
}

// MaxTokens returns the request's max_tokens, else its
// max_completion_tokens, else 0.
func (r Request) MaxTokens() int {
	return max(r.Body.MaxTokens, r.Body.MaxCompletionTokens)
}

// Calls returns how many requests the route received; route "" counts all.
func (s *Server) Calls(route string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if route == "" {
		return len(s.requests)
	}
	return s.counts[route]
}

// Requests returns a copy of every captured request, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Last returns the last request of the route ("" for any route) and
// whether there was one.
func (s *Server) Last(route string) (Request, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.requests) - 1; i >= 0; i-- {
		if route == "" || s.requests[i].Route == route {
			return s.requests[i], true
		}
	}
	return Request{}, false
}

// Pending returns how many queued replies of the route were not used.
func (s *Server) Pending(route string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queues[route])
}

// RouteOf returns the route of a request: its json_schema name or
// RouteGenerate.
func RouteOf(req openai.ChatCompletionRequest) string {
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil && rf.JSONSchema.Name != "" {
		return rf.JSONSchema.Name
	}
	return RouteGenerate
}

// check runs the checks of Check on req.
func (s *Server) check(req Request) error {
	s.mu.Lock()
	checks := append([]func(Request) error(nil), s.checks...)
	s.mu.Unlock()
	for _, fn := range checks {
		if err := fn(req); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) next(req Request) (Reply, bool) {
	return s.nextReply(req, true)
}

// nextReply records req and returns its queued or Always reply, else (when
// useRespond) the Responder's.
func (s *Server) nextReply(req Request, useRespond bool) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	s.counts[req.Route]++
	if q := s.queues[req.Route]; len(q) > 0 {
		s.queues[req.Route] = q[1:]
		return q[0], true
	}
	if r, ok := s.fallback[req.Route]; ok {
		return r, true
	}
	if s.respond != nil && useRespond {
		return s.respond(req), true
	}
	return Reply{}, false
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "openaitest: reading body: "+err.Error())
		return
	}
	var body openai.ChatCompletionRequest
	if err := json.Unmarshal(raw, &body); err != nil {
		writeError(w, http.StatusBadRequest, "openaitest: decoding request: "+err.Error())
		return
	}
	req := Request{Route: RouteOf(body), Body: body, Raw: raw, Header: r.Header.Clone()}
	if err := s.check(req); err != nil {
		s.t.Errorf("openaitest: %v", err)
		writeError(w, http.StatusBadRequest, "openaitest: "+err.Error())
		return
	}
	reply, ok := s.next(req)
	if !ok {
		s.t.Errorf("openaitest: no reply scripted for route %q", req.Route)
		writeError(w, http.StatusBadRequest, fmt.Sprintf("openaitest: no reply scripted for route %q", req.Route))
		return
	}
	status, done := writeScripted(w, r, reply)
	if done {
		return
	}
	model := reply.Model
	if model == "" {
		model = body.Model
	}
	usage := reply.Usage
	if usage == nil {
		u := defaultUsage(body, reply.Content)
		usage = &u
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = openai.FinishReasonStop
	}
	if body.Stream {
		s.stream(w, r, body, reply, model, usage, finish)
		return
	}
	resp := openai.ChatCompletionResponse{
		ID:      "chatcmpl-openaitest",
		Object:  "chat.completion",
		Created: time.Now().Unix(),
		Model:   model,
		Choices: []openai.ChatCompletionChoice{{
			Index:        0,
			Message:      openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: reply.Content},
			FinishReason: finish,
		}},
		Usage: *usage,
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(resp)
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, body openai.ChatCompletionRequest, reply Reply, model string, usage *openai.Usage, finish openai.FinishReason) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(v any) bool {
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	chunk := func(delta openai.ChatCompletionStreamChoiceDelta, fr openai.FinishReason) openai.ChatCompletionStreamResponse {
		return openai.ChatCompletionStreamResponse{
			ID: "chatcmpl-openaitest", Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: model,
			Choices: []openai.ChatCompletionStreamChoice{{Index: 0, Delta: delta, FinishReason: fr}},
		}
	}
	parts := reply.Chunks
	if parts == nil {
		parts = SplitWords(reply.Content)
	}
	if !send(chunk(openai.ChatCompletionStreamChoiceDelta{Role: openai.ChatMessageRoleAssistant}, "")) {
		return
	}
	for i, p := range parts {
		if i > 0 && reply.ChunkDelay > 0 && !sleep(r, reply.ChunkDelay) {
			return
		}
		if reply.BreakAfter > 0 && i == reply.BreakAfter {
			hangup(w, false)
			return
		}
		if !send(chunk(openai.ChatCompletionStreamChoiceDelta{Content: p}, "")) {
			return
		}
	}
	if !send(chunk(openai.ChatCompletionStreamChoiceDelta{}, finish)) {
		return
	}
	if body.StreamOptions != nil && body.StreamOptions.IncludeUsage {
		last := openai.ChatCompletionStreamResponse{
			ID: "chatcmpl-openaitest", Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: model,
			Choices: []openai.ChatCompletionStreamChoice{}, Usage: usage,
		}
		if !send(last) {
			return
		}
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// SplitWords splits s after each space, keeping the spaces, so that the
// parts concatenate back to s.
func SplitWords(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func defaultUsage(body openai.ChatCompletionRequest, content string) openai.Usage {
	prompt := 0
	for _, m := range body.Messages {
		prompt += len(strings.Fields(m.Content))
		for _, p := range m.MultiContent {
			prompt += len(strings.Fields(p.Text))
		}
	}
	completion := len(strings.Fields(content))
	return openai.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
}

// writeScripted handles the parts of a reply common to every route: the
// delay, the headers, a verbatim Body and an error status. It returns the
// status to send and whether the response is already written (or the
// client gone).
func writeScripted(w http.ResponseWriter, r *http.Request, reply Reply) (status int, done bool) {
	if reply.Delay > 0 && !sleep(r, reply.Delay) {
		return 0, true
	}
	if reply.Hangup || reply.Reset {
		hangup(w, reply.Reset)
		return 0, true
	}
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	status = reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	if reply.Body != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply.Body)
		return status, true
	}
	if status >= 300 {
		msg := reply.Message
		if msg == "" {
			msg = http.StatusText(status)
		}
		writeError(w, status, msg)
		return status, true
	}
	return status, false
}

// hangup closes the request's connection without a response; with reset,
// it makes the close a TCP reset (SO_LINGER 0).
func hangup(w http.ResponseWriter, reset bool) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "openaitest: cannot hang up: "+err.Error())
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(openai.ErrorResponse{Error: &openai.APIError{
		Message: msg,
		Type:    errorType(status),
	}})
}

func errorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "invalid_request_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

// SleepRecorder stands in for llm.RetryPolicy.Sleep in tests: it records
// each requested wait instead of waiting. It is safe for concurrent use.
type SleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

// Sleep records d and returns ctx's error, if any.
func (r *SleepRecorder) Sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return ctx.Err()
}

// Slept returns the recorded waits, in order.
func (r *SleepRecorder) Slept() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.waits...)
}

// sleep waits d or until the client goes away; it reports whether the
// full wait happened.
func sleep(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}
