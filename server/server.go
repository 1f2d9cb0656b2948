// Package server serves DocMind over HTTP: a JSON API under /api/v1/
// (ask, with server-sent events on request; the run ledger; review and
// resume; the indexed documents and their sections) and an
// OpenAI-compatible chat completions API under /v1/ (model "docmind"),
// all answering with the same pipeline, index and run ledger as the CLI.
//
// A Server is an http.Handler. It is safe by default: requests need
// "Authorization: Bearer TOKEN" (the scheme in any case) when
// Config.Token is set, and otherwise must name a loopback host (no DNS
// rebinding); request bodies are limited (413); runs have a deadline; at
// most Config.MaxRuns run at once, Config.MaxQueue more wait for a slot,
// and the rest are refused (429); upload bodies are read under their own
// places and deadline before they take a run slot; cross-origin requests
// are allowed only from Config.CORSOrigin, which needs a token, and
// cross-site requests without an Origin are refused. Every error is one
// JSON object {"error": "one clear line"} with its status, also when a
// handler panics. docmind serve generates the token by default
// (docs/security.md).
package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docmind/docmind/formats/pdf"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/threads"
)

// Defaults of Config's limits.
const (
	// DefaultMaxQueue is how many more requests wait for a run slot
	// before requests are refused with 429.
	DefaultMaxQueue = 64
	// DefaultMaxBodyBytes is the largest request body accepted (413).
	DefaultMaxBodyBytes = 1 << 20
	// DefaultRunTimeout bounds one run, every retry included.
	DefaultRunTimeout = 10 * time.Minute
	// MaxQuestionBytes is the longest question accepted.
	MaxQuestionBytes = 64 << 10
	// ModelName is the model the OpenAI-compatible API serves.
	ModelName = "docmind"
)

// DefaultMaxRuns is how many runs run at once by default: one per CPU
// (runtime.GOMAXPROCS), since offline runs are bound by the CPU. More
// only queue for the CPU and the run ledger: on 2 cores, 8 at once
// answered 7.7 questions a second where 2 answered 10.6 (BENCHMARKS.md).
// Runs that wait on an LLM over the network can use more.
func DefaultMaxRuns() int { return runtime.GOMAXPROCS(0) }

// Config configures a Server.
type Config struct {
	// Manager runs questions through the pipeline and keeps the run
	// ledger (required). Build its pipeline with Observer() as (or
	// passing events to) its observer, so that server-sent events report
	// each node of a run.
	Manager *threads.Manager
	// Index is the index the pipeline answers from: GET documents and
	// GET sections/{id} read it. Nil: they answer 404.
	Index *index.Index
	// ShowSource maps a document's path in the index to the form the
	// answers' sources show (nil: as it is).
	ShowSource func(path string) string
	// Token, when set, is required of every request as
	// "Authorization: Bearer TOKEN" (401 otherwise). Without it, requests
	// must name a loopback host (localhost, 127.0.0.1, [::1]).
	Token string
	// CORSOrigin, when set, is the one origin (or "*") browsers may call
	// the API from; cross-origin requests are refused otherwise.
	CORSOrigin string
	// MaxRuns is how many runs (asks, resumes, chat completions) run at
	// once; DefaultMaxRuns() when 0.
	MaxRuns int
	// MaxQueue is how many requests wait for a run slot beyond MaxRuns
	// (DefaultMaxQueue when 0; -1: none wait); beyond it requests get 429.
	MaxQueue int
	// MaxBodyBytes limits request bodies (DefaultMaxBodyBytes when 0).
	MaxBodyBytes int64
	// RunTimeout bounds each run (DefaultRunTimeout when 0).
	RunTimeout time.Duration
	// DocumentRoots are the folders the page endpoints may read an
	// indexed document's file from, symbolic links resolved; empty: the
	// folder each document was indexed in. The upload directory is always
	// one.
	DocumentRoots []string
	// UploadDir is where POST documents saves uploaded files before
	// ingesting them into Index; empty: uploads are refused.
	UploadDir string
	// MaxUploadBytes limits an upload's body (DefaultMaxUploadBytes when
	// 0).
	MaxUploadBytes int64
	// MaxUploads is how many upload bodies are read at once, apart from
	// the run slots (DefaultMaxUploads when 0); more get 429.
	MaxUploads int
	// UploadTimeout bounds reading an upload's body
	// (DefaultUploadTimeout when 0); slower clients get 408.
	UploadTimeout time.Duration
	// MCP, when set, is served at /mcp (behind the same token, CORS and
	// body limits as the rest).
	MCP http.Handler
	// NoSourcesInContent leaves the "Sources:" list out of the OpenAI
	// endpoint's assistant message content (the docmind extension field
	// keeps the citations either way).
	NoSourcesInContent bool
	// Logger receives internal errors (slog.Default() when nil); clients
	// get one line, never a stack trace.
	Logger *slog.Logger
}

// Server is the HTTP handler of docmind serve.
type Server struct {
	cfg     Config
	mux     *http.ServeMux
	slots   chan struct{}
	waiting chan struct{}
	// receiving holds a place per upload body being read.
	receiving chan struct{}
	started   time.Time
	// uploads serialises uploads and deletions of documents.
	uploads sync.Mutex
	// halt is cancelled (cause threads.ErrInterrupted) when Shutdown
	// cuts off the runs and uploads still in flight.
	halt     context.Context
	haltRuns context.CancelCauseFunc
	// closing is cancelled when Shutdown starts: it ends the MCP streams
	// a client holds open to wait for messages (closesStreams).
	closing      context.Context
	startClosing context.CancelFunc
	// pdf renders pages, started on first use.
	pdfOnce sync.Once
	pdf     *pdf.Reader
	pdfErr  error
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Manager == nil {
		return nil, errors.New("server: no threads manager configured")
	}
	if cfg.CORSOrigin != "" && cfg.Token == "" {
		return nil, fmt.Errorf("server: CORS origin %s without a token would let any page from it read and delete the documents: set a token", cfg.CORSOrigin)
	}
	if cfg.MaxRuns <= 0 {
		cfg.MaxRuns = DefaultMaxRuns()
	}
	switch {
	case cfg.MaxQueue == 0:
		cfg.MaxQueue = DefaultMaxQueue
	case cfg.MaxQueue < 0:
		cfg.MaxQueue = 0
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if cfg.MaxUploads <= 0 {
		cfg.MaxUploads = DefaultMaxUploads
	}
	if cfg.UploadTimeout <= 0 {
		cfg.UploadTimeout = DefaultUploadTimeout
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = DefaultRunTimeout
	}
	if cfg.ShowSource == nil {
		cfg.ShowSource = func(p string) string { return p }
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{
		cfg:       cfg,
		mux:       http.NewServeMux(),
		slots:     make(chan struct{}, cfg.MaxRuns),
		waiting:   make(chan struct{}, cfg.MaxRuns+cfg.MaxQueue),
		receiving: make(chan struct{}, cfg.MaxUploads),
		started:   time.Now(),
	}
	s.halt, s.haltRuns = context.WithCancelCause(context.Background())
	s.closing, s.startClosing = context.WithCancel(context.Background())
	s.routes()
	return s, nil
}

// routes registers the endpoints. Patterns carry no method, so that a
// wrong method gets a JSON 405 from route rather than the mux's text.
func (s *Server) routes() {
	s.handle("/healthz", route{http.MethodGet: s.health})
	s.handle("/api/v1/ask", route{http.MethodPost: s.ask})
	s.handle("/api/v1/runs", route{http.MethodGet: s.listRuns})
	s.handle("/api/v1/runs/{id}", route{http.MethodGet: s.showRun})
	s.handle("/api/v1/runs/{id}/resume", route{http.MethodPost: s.resume})
	s.handle("/api/v1/documents", route{http.MethodGet: s.listDocuments, http.MethodPost: s.uploadDocuments})
	s.handle("/api/v1/documents/{id}", route{http.MethodDelete: s.deleteDocument})
	s.handle("/api/v1/documents/{id}/pages/{n}", route{http.MethodGet: s.documentPage})
	s.handle("/api/v1/documents/{id}/pages/{n}/highlights", route{http.MethodGet: s.documentHighlights})
	s.handle("/api/v1/sections/{id}", route{http.MethodGet: s.showSection})
	s.handle("/v1/models", route{http.MethodGet: s.models})
	s.handle("/v1/models/{id}", route{http.MethodGet: s.model})
	s.handle("/v1/chat/completions", route{http.MethodPost: s.chatCompletions})
	if s.cfg.MCP != nil {
		h := jsonErrors(s.closesStreams(s.cfg.MCP))
		s.mux.Handle("/mcp", h)
		s.mux.Handle("/mcp/", h)
	}
	// the web page: "/{$}" is / alone; other paths fall through to 404
	s.handle("/{$}", route{http.MethodGet: s.serveWeb})
	s.handle("/app.js", route{http.MethodGet: s.serveWeb})
	s.handle("/app.css", route{http.MethodGet: s.serveWeb})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no endpoint %s (the endpoints under /api/v1/ and /v1/ are listed in docs/serving.md)", r.URL.Path))
	})
}

// jsonErrors makes the plain-text errors of h (the MCP SDK's http.Error:
// a malformed body, a wrong method, a missing session) the server's one
// JSON object {"error": "..."} with the same status; every other response,
// streams included, passes through untouched.
func jsonErrors(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ew := &errorWriter{ResponseWriter: w}
		h.ServeHTTP(ew, r)
		if ew.status != 0 {
			writeError(w, ew.status, ew.body.String())
		}
	})
}

// errorWriter holds back a plain-text error response (status 400 or more)
// for jsonErrors to rewrite.
type errorWriter struct {
	http.ResponseWriter
	status      int // the held-back error's status; 0: passing through
	wroteHeader bool
	body        strings.Builder
}

func (e *errorWriter) WriteHeader(code int) {
	if e.wroteHeader {
		return
	}
	e.wroteHeader = true
	if code >= 400 && strings.HasPrefix(e.Header().Get("Content-Type"), "text/plain") {
		e.status = code
		return
	}
	e.ResponseWriter.WriteHeader(code)
}

func (e *errorWriter) Write(b []byte) (int, error) {
	if !e.wroteHeader {
		e.WriteHeader(http.StatusOK)
	}
	if e.status != 0 {
		if e.body.Len() < 4096 {
			e.body.Write(b)
		}
		return len(b), nil
	}
	return e.ResponseWriter.Write(b)
}

// Flush passes a stream's events on (an error is never flushed).
func (e *errorWriter) Flush() {
	if e.status != 0 {
		return
	}
	if f, ok := e.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (e *errorWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// route maps methods to the handlers of one path.
type route map[string]http.HandlerFunc

func (s *Server) handle(pattern string, rt route) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if h, ok := rt[r.Method]; ok {
			h(w, r)
			return
		}
		if r.Method == http.MethodHead {
			if h, ok := rt[http.MethodGet]; ok {
				h(w, r)
				return
			}
		}
		allowed := make([]string, 0, len(rt))
		for m := range rt {
			allowed = append(allowed, m)
		}
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s is not supported; use %s", r.Method, r.URL.Path, strings.Join(allowed, ", ")))
	})
}

// ServeHTTP implements http.Handler: recovery, CORS, host and token
// checks and the body limit, then the endpoint.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.cfg.Logger.Error("server: internal error", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
			writeError(w, http.StatusInternalServerError, "internal error (logged on the server)")
		}
	}()
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if !s.cors(w, r) || !sameSiteOrNamed(w, r) {
		return
	}
	if !s.authorized(w, r) {
		return
	}
	limit := s.cfg.MaxBodyBytes
	if r.Method == http.MethodPost && r.URL.Path == "/api/v1/documents" {
		limit = s.cfg.MaxUploadBytes
	}
	if r.ContentLength > limit {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body too large: at most %d bytes", limit))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	s.mux.ServeHTTP(w, r)
}

func (s *Server) tooLarge() string {
	return fmt.Sprintf("request body too large: at most %d bytes", s.cfg.MaxBodyBytes)
}

// cors answers preflight requests and sets the CORS headers for the
// configured origin; it refuses other cross-origin requests. It reports
// whether the request goes on.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	allowed := s.cfg.CORSOrigin != "" && (s.cfg.CORSOrigin == "*" || s.cfg.CORSOrigin == origin)
	if !allowed {
		if sameOrigin(r, origin) {
			return true
		}
		writeError(w, http.StatusForbidden, fmt.Sprintf("cross-origin requests from %s are not allowed (start the server with --cors ORIGIN)", origin))
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	// MCP's session header, and when to try again after a 429
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Retry-After")
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", allowHeaders(r.Header.Get("Access-Control-Request-Headers")))
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return false
	}
	return true
}

// corsHeaders are the request headers the allowed origin may always
// send: the API's, and MCP's streamable HTTP transport's.
var corsHeaders = []string{"Authorization", "Content-Type", "Accept", "Last-Event-ID", "Mcp-Session-Id", "Mcp-Protocol-Version"}

// allowHeaders answers a preflight's Access-Control-Request-Headers for
// the allowed origin: corsHeaders, and every header it asks for (client
// libraries send their own, such as the OpenAI SDKs' X-Stainless-*; the
// token, not a cookie, is what authorises a request). Only names made of
// header-name characters are echoed.
func allowHeaders(requested string) string {
	out := slices.Clone(corsHeaders)
	for _, name := range strings.Split(requested, ",") {
		name = strings.TrimSpace(name)
		if name != "" && len(name) <= 64 && strings.IndexFunc(name, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
		}) < 0 && !slices.ContainsFunc(out, func(h string) bool { return strings.EqualFold(h, name) }) {
			out = append(out, name)
		}
	}
	return strings.Join(out, ", ")
}

// sameSiteOrNamed refuses a request a browser marks as cross-site
// (Sec-Fetch-Site) that names no Origin: a no-cors GET from another
// site's <img>, <script> or link, which the Origin check cannot see, and
// which would otherwise make the server render pages or run work. Opening
// the web page itself from a link stays allowed. It reports whether the
// request goes on.
func sameSiteOrNamed(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Origin") != "" || !strings.EqualFold(r.Header.Get("Sec-Fetch-Site"), "cross-site") || webAsset(r) {
		return true
	}
	writeError(w, http.StatusForbidden, "cross-site requests without an Origin are refused: call the API from the page or a program")
	return false
}

// sameOrigin reports whether origin is the server's own (a page it
// served itself).
func sameOrigin(r *http.Request, origin string) bool {
	return origin == "http://"+r.Host || origin == "https://"+r.Host
}

// authorized checks the bearer token, or without one that the request
// names a loopback host. The web page's files need no token (they hold
// no data; the page sends the token with its API calls).
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.Token != "" && webAsset(r) {
		return true
	}
	if s.cfg.Token == "" {
		if !loopbackHost(r.Host) {
			writeError(w, http.StatusForbidden, fmt.Sprintf("host %q is not a loopback address: without --token the server answers only requests to localhost", r.Host))
			return false
		}
		return true
	}
	got, ok := bearerToken(r)
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.Token)) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="docmind"`)
		msg := "missing token: send Authorization: Bearer TOKEN"
		if ok {
			msg = "wrong token"
		}
		writeError(w, http.StatusUnauthorized, msg)
		return false
	}
	return true
}

// bearerToken returns the token of an "Authorization: Bearer TOKEN"
// header, the scheme's case ignored (RFC 9110), and whether there is one.
func bearerToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// loopbackHost reports whether a Host header names this machine's
// loopback interface.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsLoopbackAddr reports whether a listen address (host:port) binds
// only the loopback interface; ":8080" (every interface) does not.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	return loopbackHost(host)
}

// errBusy is why a request found no run slot.
var errBusy = errors.New("too many questions at once: try again shortly")

// acquire takes a run slot, waiting behind at most MaxQueue others; it
// returns the release function, or errBusy, or the context's error.
func (s *Server) acquire(ctx context.Context) (func(), error) {
	select {
	case s.waiting <- struct{}{}:
	default:
		return nil, errBusy
	}
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots; <-s.waiting }, nil
	case <-ctx.Done():
		<-s.waiting
		return nil, ctx.Err()
	}
}

// RunSlot takes a run slot for work that reaches the server by another
// handler than its own (the MCP tools at /mcp), waiting behind at most
// MaxQueue others as the JSON API's runs do. It returns the run's context,
// also cancelled when Shutdown cuts off the runs in flight, and the
// slot's release; or an error saying why no slot was taken. A caller that
// goes away (ctx cancelled) interrupts the run, leaving it to resume, as
// it does a run of the JSON API.
func (s *Server) RunSlot(ctx context.Context) (context.Context, func(), error) {
	release, err := s.acquire(ctx)
	if err != nil {
		if !errors.Is(err, errBusy) {
			err = fmt.Errorf("the request ended before a run slot was free: %w", err)
		}
		return nil, nil, err
	}
	ctx, stopClient := interruptedWith(ctx, errClientGone)
	ctx, stop := s.interruptible(ctx)
	return ctx, func() { stop(); stopClient(); release() }, nil
}

// slot takes a run slot for the request, or answers that none is free
// (429, or 503 when the request ended first) and reports false.
func (s *Server) slot(w http.ResponseWriter, r *http.Request) (func(), bool) {
	release, err := s.acquire(r.Context())
	if err != nil {
		busy(w, err)
		return nil, false
	}
	return release, true
}

// busy answers a request that found no run slot.
func busy(w http.ResponseWriter, err error) {
	if errors.Is(err, errBusy) {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, err.Error())
		return
	}
	writeError(w, http.StatusServiceUnavailable, "the request ended before a run slot was free: "+err.Error())
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// errorBody is every error's JSON.
type errorBody struct {
	Error string `json:"error"`
}

// writeError writes {"error": msg} (on one line) with status.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Error: oneLine(msg)})
}

// oneLine folds a message onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// decodeJSON reads the request body as one JSON value into v; strict
// refuses unknown fields. It writes the error (400, 413, 415) and
// reports false when the body is not acceptable.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, v any, strict bool) bool {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := strings.Cut(ct, ";"); !strings.EqualFold(strings.TrimSpace(mt), "application/json") {
			writeError(w, http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %s: send application/json", ct))
			return false
		}
	}
	dec := json.NewDecoder(r.Body)
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	if err == nil {
		return true
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		writeError(w, http.StatusRequestEntityTooLarge, s.tooLarge())
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		writeError(w, http.StatusRequestTimeout, "the request body did not arrive in time")
		return false
	}
	writeError(w, http.StatusBadRequest, "malformed JSON body: "+err.Error())
	return false
}

// validID reports whether id may name a run, thread or section, and
// answers 400 when not.
func validID(w http.ResponseWriter, what, id string) bool {
	if threads.ValidID(id) {
		return true
	}
	writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid %s id %q: use letters, digits, '.', '_', ':' and '-' (at most 128)", what, id))
	return false
}

// health answers GET /healthz.
func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "runs": len(s.slots), "uptime_ms": time.Since(s.started).Milliseconds()})
}

// queryInt reads an integer query parameter in [0, max], default def.
func queryInt(w http.ResponseWriter, r *http.Request, name string, def, max int) (int, bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > max {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%s=%q: want a whole number from 0 to %d", name, v, max))
		return 0, false
	}
	return n, true
}

// RunsStopWait bounds how long Shutdown waits, once its context has
// ended, for the runs it interrupted to stop (each stops at its next node
// boundary or cancellable call) and their requests to be answered.
const RunsStopWait = 5 * time.Second

// Shutdown stops srv, which serves s: it stops accepting requests and
// lets those in flight finish until ctx ends (http.Server.Shutdown).
// Runs still in flight then are interrupted (threads.ErrInterrupted):
// their clients get a 503 (or an "error" event) saying so, and the run
// ledger keeps them, with the checkpoints of their completed nodes, as
// interrupted runs that POST runs/{id}/resume (or docmind resume)
// finishes; uploads in flight are abandoned. Once every run slot is free
// (at most RunsStopWait) the remaining connections are closed. It
// returns ctx's error when requests were cut off.
func (s *Server) Shutdown(ctx context.Context, srv *http.Server) error {
	s.startClosing()
	err := srv.Shutdown(ctx)
	if err == nil {
		return nil
	}
	s.haltRuns(threads.ErrInterrupted)
	deadline := time.Now().Add(RunsStopWait)
	for len(s.slots) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	srv.Close()
	return err
}

// closesStreams ends h's GET requests when Shutdown starts: MCP's
// streamable HTTP transport holds a GET open for as long as the session
// lives, to send the client messages, and an idle one would hold the
// shutdown for its whole wait. Calls (POST) finish as runs do.
func (s *Server) closesStreams(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			defer context.AfterFunc(s.closing, cancel)()
			r = r.WithContext(ctx)
		}
		h.ServeHTTP(w, r)
	})
}

// interruptible returns ctx, cancelled also when Shutdown cuts off the
// work in flight (with its cause, threads.ErrInterrupted); stop releases
// it.
func (s *Server) interruptible(ctx context.Context) (context.Context, func()) {
	ctx, interrupt := context.WithCancelCause(ctx)
	unhook := context.AfterFunc(s.halt, func() { interrupt(context.Cause(s.halt)) })
	return ctx, func() { unhook(); interrupt(nil) }
}
