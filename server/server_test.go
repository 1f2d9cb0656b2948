package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/ingest"
	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/threads"
)

// The tests serve the real offline pipeline over an index of
// examples/contract, with a real run ledger, through httptest servers on
// 127.0.0.1.

const (
	lateFee  = "What are the late payment penalties?"
	warranty = "What is the warranty period?"
)

var (
	indexOnce sync.Once
	sharedIx  *index.Index
	indexErr  error
)

// contractIndex is an index of examples/contract, built once.
func contractIndex(t *testing.T) *index.Index {
	t.Helper()
	indexOnce.Do(func() {
		dir, err := osMkdirTemp()
		if err != nil {
			indexErr = err
			return
		}
		ctx := context.Background()
		ix, err := index.Open(ctx, index.PathInDir(dir))
		if err != nil {
			indexErr = err
			return
		}
		l, closeLoader := newLoader()
		defer closeLoader()
		_, indexErr = ingest.Run(ctx, ix, []string{contractDir(t)}, ingest.Options{Parser: ingest.LoaderParser(l)})
		sharedIx = ix
	})
	if indexErr != nil {
		t.Fatal(indexErr)
	}
	return sharedIx
}

// contractDir is examples/contract.
func contractDir(t *testing.T) string {
	return filepath.Join(testenv.RepoRoot(t), "examples", "contract")
}

// newLoader is the loader docmind ingest uses.
var newLoader = docmind.NewLoader

// freshIndex is a new index of the files and folders at paths.
func freshIndex(t *testing.T, paths ...string) (*index.Index, *ingest.Summary) {
	t.Helper()
	ix, err := index.Open(context.Background(), index.PathInDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	l, closeLoader := newLoader()
	defer closeLoader()
	sum, err := ingest.Run(context.Background(), ix, paths, ingest.Options{Parser: ingest.LoaderParser(l)})
	if err != nil {
		t.Fatal(err)
	}
	return ix, sum
}

// newServer starts a Server over the contract index with a fresh run
// ledger; adjust changes its config.
func newServer(t *testing.T, adjust func(*Config)) (*httptest.Server, *Server) {
	t.Helper()
	return newServerOn(t, contractIndex(t), adjust)
}

// newServerOn is newServer answering from ix.
func newServerOn(t *testing.T, ix *index.Index, adjust func(*Config)) (*httptest.Server, *Server) {
	t.Helper()
	m, _ := newManager(t, ix, ix.Retriever(), checkpoint.PathInDir(t.TempDir()))
	cfg := Config{Manager: m, Index: ix}
	if adjust != nil {
		adjust(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts, s
}

// newManager is a threads manager over the offline pipeline answering
// from retriever (and ix's corpus), its run ledger at ledger; the store
// is closed when the test ends.
func newManager(t *testing.T, ix *index.Index, retriever schema.Retriever, ledger string) (*threads.Manager, checkpoint.Store) {
	t.Helper()
	p, err := docmind.New(docmind.WithRetriever(retriever), docmind.WithCorpus(ix.Corpus()), docmind.WithObserver(Observer()))
	if err != nil {
		t.Fatal(err)
	}
	store, err := checkpoint.OpenSQLite(context.Background(), ledger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	m, err := threads.New(threads.Config{Store: store, Runner: p.Runner()})
	if err != nil {
		t.Fatal(err)
	}
	return m, store
}

// call sends a request and returns the status and body.
func call(t *testing.T, ts *httptest.Server, method, path, body string, header ...string) (int, http.Header, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// wantError checks a JSON error: the status and one object {"error": one
// line containing want}.
func wantError(t *testing.T, status int, body []byte, wantStatus int, want string) {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("status %d, want %d; body %s", status, wantStatus, body)
	}
	var e map[string]any
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, body)
	}
	msg, ok := e["error"].(string)
	if !ok || len(e) != 1 {
		t.Fatalf(`error body %s, want one object {"error": "..."}`, body)
	}
	if strings.Contains(msg, "\n") || !strings.Contains(msg, want) {
		t.Fatalf("error %q, want one line containing %q", msg, want)
	}
}

func decodeOutcome(t *testing.T, body []byte) Outcome {
	t.Helper()
	var out Outcome
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("not an outcome: %v\n%s", err, body)
	}
	if out.State == nil || out.Run == nil {
		t.Fatalf("outcome without state or run: %s", body)
	}
	return out
}

func ask(t *testing.T, ts *httptest.Server, body string) Outcome {
	t.Helper()
	status, _, b := call(t, ts, "POST", "/api/v1/ask", body)
	if status != http.StatusOK {
		t.Fatalf("ask: status %d: %s", status, b)
	}
	return decodeOutcome(t, b)
}

func TestAskLateFeeWithCitations(t *testing.T) {
	ts, _ := newServer(t, nil)
	out := ask(t, ts, `{"question": "`+lateFee+`"}`)
	if !strings.Contains(out.Answer(), "1.5%") || !out.Answered() {
		t.Fatalf("answer %q, want the judged 1.5%% late fee", out.Answer())
	}
	if out.Run.Status != checkpoint.StatusDone || out.Run.Outcome != checkpoint.OutcomeAnswered || !strings.HasPrefix(out.Run.Thread, "api-") {
		t.Errorf("run %+v, want done, answered, in a new api- thread", *out.Run)
	}
	if len(out.Citations) == 0 || out.Citations[0].Title != "Late Payment Penalties" || out.Citations[0].PageRef != "page 8" {
		t.Fatalf("citations %+v, want Late Payment Penalties, page 8 first", out.Citations)
	}
	c := out.Citations[0]
	if len(c.Quotes) == 0 {
		t.Fatalf("citation without the judge's quote: %+v", c)
	}
	// The quote's offsets point into the section's text.
	status, _, b := call(t, ts, "GET", "/api/v1/sections/"+c.SectionID, "")
	if status != http.StatusOK {
		t.Fatalf("GET section: %d %s", status, b)
	}
	var sec SectionText
	if err := json.Unmarshal(b, &sec); err != nil {
		t.Fatal(err)
	}
	q := c.Quotes[0]
	if sec.Length != len(sec.Content) || q.End > len(sec.Content) || sec.Content[q.Start:q.End] != q.Text || !strings.Contains(q.Text, "1.5%") {
		t.Fatalf("quote %+v does not match the section's text %q", q, sec.Content)
	}
	if !strings.HasSuffix(sec.Source, "master-services-agreement.md") {
		t.Errorf("section source %q", sec.Source)
	}
}

func TestAskWarrantyFallsBack(t *testing.T) {
	ts, _ := newServer(t, nil)
	out := ask(t, ts, `{"question": "`+warranty+`", "thread": "t-1"}`)
	if out.Answer() != schema.FallbackMessage || out.Answered() {
		t.Fatalf("answer %q, want the fallback message", out.Answer())
	}
	if len(out.Citations) != 0 || out.Run.Thread != "t-1" || out.Run.Outcome != checkpoint.OutcomeFallback {
		t.Fatalf("citations %v, run %+v: want none, thread t-1, fallback", out.Citations, *out.Run)
	}
}

// sseEvent is one server-sent event.
type sseEvent struct{ name, data string }

// readEvents reads a whole event stream, checking its framing: each
// event is "event: NAME" and "data: JSON" lines ended by a blank line.
func readEvents(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var evs []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data == "" {
				t.Fatalf("event %q without data", cur.name)
			}
			if !json.Valid([]byte(cur.data)) {
				t.Fatalf("event %q data is not JSON: %s", cur.name, cur.data)
			}
			evs = append(evs, cur)
			cur = sseEvent{}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if cur.data != "" {
				t.Fatalf("two data lines in one event: %q", line)
			}
			cur.data = strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected line in the event stream: %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != (sseEvent{}) {
		t.Fatalf("stream ended inside an event: %+v", cur)
	}
	return evs
}

// streamEvents sends req accepting text/event-stream and returns the
// events of the stream, which must be one (200, text/event-stream).
func streamEvents(t *testing.T, ts *httptest.Server, req *http.Request) []sseEvent {
	t.Helper()
	req.Header.Set("Accept", "text/event-stream")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d, Content-Type %q: want an event stream (%s)", resp.StatusCode, ct, b)
	}
	return readEvents(t, resp.Body)
}

// askEvents asks a question accepting text/event-stream and returns the
// stream's events.
func askEvents(t *testing.T, ts *httptest.Server, question string) []sseEvent {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.URL+"/api/v1/ask", strings.NewReader(`{"question": "`+question+`"}`))
	req.Header.Set("Content-Type", "application/json")
	return streamEvents(t, ts, req)
}

func TestAskServerSentEvents(t *testing.T) {
	ts, _ := newServer(t, nil)
	evs := askEvents(t, ts, warranty)
	var names []string
	for _, e := range evs {
		names = append(names, e.name)
	}
	seq := strings.Join(names, " ")
	if !strings.HasPrefix(seq, "node_start node_end node_start node_end") || !strings.HasSuffix(seq, "verdict result") {
		t.Fatalf("events %s: want node starts and ends first, verdict and result last", seq)
	}
	// The warranty question is retried: the retry event gives the
	// judge's reason.
	var retry retryEvent
	for _, e := range evs {
		if e.name == "retry" {
			if err := json.Unmarshal([]byte(e.data), &retry); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if retry.Attempt != 1 || retry.MaxRetries != 2 || !strings.Contains(retry.Reason, "warranty") {
		t.Fatalf("retry event %+v, want attempt 1 of 2 with the judge's reason", retry)
	}
	var first nodeEvent
	json.Unmarshal([]byte(evs[0].data), &first)
	if first.Node != schema.NodeDecompose {
		t.Errorf("first event %+v, want decompose's start", first)
	}
	var v schema.Verdict
	if err := json.Unmarshal([]byte(evs[len(evs)-2].data), &v); err != nil || v.ShouldReturn {
		t.Errorf("verdict event %s: want the final, rejecting verdict", evs[len(evs)-2].data)
	}
	out := decodeOutcome(t, []byte(evs[len(evs)-1].data))
	if out.Answer() != schema.FallbackMessage || out.Run.Status != checkpoint.StatusDone {
		t.Errorf("result %q (%s), want the fallback, done", out.Answer(), out.Run.Status)
	}
}

func TestAskBadRequests(t *testing.T) {
	ts, _ := newServer(t, func(c *Config) { c.MaxBodyBytes = 1024 })
	for _, tc := range []struct {
		name, body string
		header     []string
		status     int
		want       string
	}{
		{"malformed JSON", `{"question": `, nil, 400, "malformed JSON"},
		{"not an object", `["x"]`, nil, 400, "malformed JSON"},
		{"unknown field", `{"question": "x", "q": 1}`, nil, 400, "unknown field"},
		{"two values", `{"question": "x"} {}`, nil, 400, "more than one JSON value"},
		{"no question", `{"question": "  "}`, nil, 400, `"question" is required`},
		{"bad thread", `{"question": "x", "thread": "../etc"}`, nil, 400, "invalid thread id"},
		{"form body", `question=x`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "send application/json"},
		{"oversized", `{"question": "` + strings.Repeat("a", 2000) + `"}`, nil, 413, "at most 1024 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, b := call(t, ts, "POST", "/api/v1/ask", tc.body, tc.header...)
			wantError(t, status, b, tc.status, tc.want)
		})
	}
	// A body without Content-Length is cut at the limit too.
	t.Run("oversized chunked", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() {
			fmt.Fprintf(pw, `{"question": "%s"}`, strings.Repeat("a", 4000))
			pw.Close()
		}()
		req, _ := http.NewRequest("POST", ts.URL+"/api/v1/ask", pr)
		req.Header.Set("Content-Type", "application/json")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		wantError(t, resp.StatusCode, b, 413, "too large")
	})
	status, h, b := call(t, ts, "GET", "/api/v1/ask", "")
	wantError(t, status, b, 405, "use POST")
	if h.Get("Allow") != "POST" {
		t.Errorf("Allow %q", h.Get("Allow"))
	}
	status, _, b = call(t, ts, "GET", "/api/v2/nothing", "")
	wantError(t, status, b, 404, "no endpoint /api/v2/nothing")
	// the 404 points at the page that lists the endpoints, which exists
	// (it once named a README section "Serving" the README does not have)
	wantError(t, status, b, 404, "docs/serving.md")
	if _, err := os.Stat(filepath.Join("..", "docs", "serving.md")); err != nil {
		t.Errorf("the 404 names docs/serving.md: %v", err)
	}
}

func TestRunsListShowAndErrors(t *testing.T) {
	ts, _ := newServer(t, nil)
	status, _, b := call(t, ts, "GET", "/api/v1/runs", "")
	if status != 200 || strings.TrimSpace(string(b)) != "[]" {
		t.Fatalf("empty ledger: %d %s", status, b)
	}
	out := ask(t, ts, `{"question": "`+lateFee+`", "thread": "runs-test"}`)
	status, _, b = call(t, ts, "GET", "/api/v1/runs?thread=runs-test", "")
	var runs []checkpoint.Run
	if err := json.Unmarshal(b, &runs); err != nil || status != 200 || len(runs) != 1 || runs[0].ID != out.Run.ID {
		t.Fatalf("runs: %d %s", status, b)
	}
	status, _, b = call(t, ts, "GET", "/api/v1/runs/"+out.Run.ID, "")
	var rec threads.RunRecord
	if err := json.Unmarshal(b, &rec); err != nil || status != 200 {
		t.Fatalf("run: %d %s", status, b)
	}
	// every step: the initial state and one per node
	if len(rec.Steps) != rec.Run.Steps+1 || len(rec.Steps) < 6 || rec.Steps[len(rec.Steps)-1].Node != schema.NodeOutput {
		t.Fatalf("run has %d steps (run.steps %d), want the start and every node through output", len(rec.Steps), rec.Run.Steps)
	}
	status, _, b = call(t, ts, "GET", "/api/v1/runs/0123456789ab", "")
	wantError(t, status, b, 404, `no run "0123456789ab"`)
	status, _, b = call(t, ts, "GET", "/api/v1/runs/bad%20id!", "")
	wantError(t, status, b, 400, "invalid run id")
	status, _, b = call(t, ts, "GET", "/api/v1/runs?status=sleeping", "")
	wantError(t, status, b, 400, "status=")
	status, _, b = call(t, ts, "GET", "/api/v1/runs?limit=-1", "")
	wantError(t, status, b, 400, "limit=")
	status, _, b = call(t, ts, "POST", "/api/v1/runs/0123456789ab/resume", `{"approve": true}`)
	wantError(t, status, b, 404, "no run")
}

func TestReviewApproveReject(t *testing.T) {
	ts, _ := newServer(t, nil)
	paused := ask(t, ts, `{"question": "`+warranty+`", "review": true}`)
	if paused.Run.Status != checkpoint.StatusAwaitingReview || paused.Answer() != "" {
		t.Fatalf("run %s with answer %q, want awaiting_review and no answer yet", paused.Run.Status, paused.Answer())
	}
	path := "/api/v1/runs/" + paused.Run.ID + "/resume"
	status, _, b := call(t, ts, "POST", path, `{}`)
	wantError(t, status, b, 409, "waiting for review")
	status, _, b = call(t, ts, "POST", path, `{"note": "x"}`)
	wantError(t, status, b, 400, `"note" goes with "approve"`)
	status, _, b = call(t, ts, "POST", path, `{"approve": "yes"}`)
	wantError(t, status, b, 400, "malformed JSON")

	status, _, b = call(t, ts, "POST", path, `{"approve": true, "note": "checked by hand"}`)
	if status != 200 {
		t.Fatalf("approve: %d %s", status, b)
	}
	approved := decodeOutcome(t, b)
	if approved.Run.Status != checkpoint.StatusDone || approved.Run.ReviewDecision != checkpoint.ReviewApproved ||
		approved.Run.ReviewNote != "checked by hand" || approved.Answer() != paused.Response() {
		t.Fatalf("approved run %+v answer %q, want done with the draft %q", *approved.Run, approved.Answer(), paused.Response())
	}
	status, _, b = call(t, ts, "POST", path, `{"approve": false}`)
	wantError(t, status, b, 409, "not awaiting review")

	other := ask(t, ts, `{"question": "`+warranty+`", "review": true}`)
	status, _, b = call(t, ts, "POST", "/api/v1/runs/"+other.Run.ID+"/resume", `{"approve": false}`)
	rejected := decodeOutcome(t, b)
	if status != 200 || rejected.Answer() != schema.FallbackMessage || rejected.Run.ReviewDecision != checkpoint.ReviewRejected {
		t.Fatalf("reject: %d, answer %q", status, rejected.Answer())
	}
	// A finished run resumes as it is.
	status, _, b = call(t, ts, "POST", "/api/v1/runs/"+other.Run.ID+"/resume", "")
	if status != 200 || decodeOutcome(t, b).Run.ID != other.Run.ID {
		t.Fatalf("resume of a finished run: %d %s", status, b)
	}
}

func TestDocumentsAndSections(t *testing.T) {
	ts, _ := newServer(t, func(c *Config) { c.ShowSource = filepath.Base })
	status, _, b := call(t, ts, "GET", "/api/v1/documents", "")
	var docs []index.Document
	if err := json.Unmarshal(b, &docs); err != nil || status != 200 {
		t.Fatalf("documents: %d %s", status, b)
	}
	if len(docs) != 2 || docs[1].Path != "master-services-agreement.md" || docs[1].Sections == 0 {
		t.Fatalf("documents %+v, want the two contract files by their shown path", docs)
	}
	// a section id hashes its document's absolute path: take it from a
	// citation, as a client does
	cited := ask(t, ts, `{"question": "`+lateFee+`"}`)
	if len(cited.Citations) == 0 || cited.Citations[0].SectionID == "" {
		t.Fatalf("no cited section id: %+v", cited.Citations)
	}
	status, _, b = call(t, ts, "GET", "/api/v1/sections/"+cited.Citations[0].SectionID+"?quote=1.5%25", "")
	var sec SectionText
	if err := json.Unmarshal(b, &sec); err != nil || status != 200 {
		t.Fatalf("section: %d %s", status, b)
	}
	if sec.Title != "Late Payment Penalties" || sec.Source != "master-services-agreement.md" || len(sec.Matches) == 0 {
		t.Fatalf("section %+v", sec)
	}
	for _, m := range sec.Matches {
		if sec.Content[m.Start:m.End] != "1.5%" {
			t.Fatalf("match %+v is not at its offsets", m)
		}
	}
	status, _, b = call(t, ts, "GET", "/api/v1/sections/ffffffffffffffff", "")
	wantError(t, status, b, 404, "no section ffffffffffffffff")
	status, _, b = call(t, ts, "GET", "/api/v1/sections/..%2F..%2Fetc%2Fpasswd", "")
	wantError(t, status, b, 400, "invalid section id")

	bare, _ := newServer(t, func(c *Config) { c.Index = nil })
	status, _, b = call(t, bare, "GET", "/api/v1/documents", "")
	wantError(t, status, b, 404, "no document index")
}

func TestTokenRequired(t *testing.T) {
	ts, _ := newServer(t, func(c *Config) { c.Token = "s3cret" })
	status, h, b := call(t, ts, "GET", "/api/v1/runs", "")
	wantError(t, status, b, 401, "missing token")
	if !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("WWW-Authenticate %q", h.Get("WWW-Authenticate"))
	}
	status, _, b = call(t, ts, "GET", "/api/v1/runs", "", "Authorization", "Bearer wrong")
	wantError(t, status, b, 401, "wrong token")
	status, _, b = call(t, ts, "POST", "/v1/chat/completions", `{}`, "Authorization", "Basic s3cret")
	wantError(t, status, b, 401, "missing token")
	status, h, b = call(t, ts, "GET", "/api/v1/runs", "", "Authorization", "Bearer s3cret")
	if status != 200 {
		t.Fatalf("with the token: %d %s", status, b)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("JSON reply without X-Content-Type-Options: nosniff: %v", h)
	}
	// the scheme is case-insensitive (RFC 9110)
	for _, scheme := range []string{"bearer", "BEARER"} {
		if status, _, b = call(t, ts, "GET", "/api/v1/runs", "", "Authorization", scheme+" s3cret"); status != 200 {
			t.Errorf("%s s3cret: %d %s", scheme, status, b)
		}
	}
	// With a token, any Host may be named (the server may be behind a
	// name).
	status, _, _ = call(t, ts, "GET", "/healthz", "", "Authorization", "Bearer s3cret", "Host", "docs.example.com")
	if status != 200 {
		t.Fatalf("with the token and another host: %d", status)
	}
}

func TestLoopbackHostAndCORS(t *testing.T) {
	ts, _ := newServer(t, nil)
	req, _ := http.NewRequest("GET", ts.URL+"/api/v1/runs", nil)
	req.Host = "attacker.example"
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wantError(t, resp.StatusCode, b, 403, "not a loopback address")

	status, h, b := call(t, ts, "GET", "/api/v1/runs", "", "Origin", "http://evil.example")
	wantError(t, status, b, 403, "cross-origin requests from http://evil.example are not allowed")
	if h.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS header on a refused request")
	}

	// a cross-site no-cors request (an <img> on another site) carries no
	// Origin: refused on every endpoint that does work, not on the page
	for _, path := range []string{"/api/v1/runs", "/api/v1/documents/1/pages/1", "/v1/models"} {
		status, _, b = call(t, ts, "GET", path, "", "Sec-Fetch-Site", "cross-site")
		wantError(t, status, b, 403, "cross-site requests without an Origin are refused")
	}
	if status, _, b = call(t, ts, "GET", "/", "", "Sec-Fetch-Site", "cross-site"); status != 200 {
		t.Errorf("the page opened from another site's link: %d %s", status, b)
	}
	if status, _, b = call(t, ts, "GET", "/api/v1/runs", "", "Sec-Fetch-Site", "same-origin"); status != 200 {
		t.Errorf("a same-origin request: %d %s", status, b)
	}

	// CORS needs a token
	m, _ := newManager(t, contractIndex(t), contractIndex(t).Retriever(), checkpoint.PathInDir(t.TempDir()))
	if _, err := New(Config{Manager: m, CORSOrigin: "*"}); err == nil || !strings.Contains(err.Error(), "without a token") {
		t.Errorf("New with CORS and no token: %v", err)
	}
	open, _ := newServer(t, func(c *Config) { c.CORSOrigin, c.Token = "http://localhost:3000", "s3cret" })
	status, h, _ = call(t, open, "OPTIONS", "/api/v1/ask", "", "Origin", "http://localhost:3000", "Access-Control-Request-Method", "POST")
	if status != 204 || h.Get("Access-Control-Allow-Origin") != "http://localhost:3000" || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Fatalf("preflight: %d %v", status, h)
	}
	// a browser MCP client sends MCP's headers, a client library its own,
	// and reads the session id and Retry-After
	status, h, _ = call(t, open, "OPTIONS", "/mcp", "", "Origin", "http://localhost:3000", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "mcp-session-id,mcp-protocol-version,x-stainless-os,bad header;x")
	allowed := strings.ToLower(h.Get("Access-Control-Allow-Headers"))
	for _, want := range []string{"mcp-session-id", "mcp-protocol-version", "x-stainless-os", "authorization"} {
		if !strings.Contains(allowed, want) {
			t.Errorf("preflight for /mcp does not allow %s: %q", want, allowed)
		}
	}
	if strings.Contains(allowed, "bad header") || strings.Count(allowed, "mcp-session-id") != 1 {
		t.Errorf("allowed headers %q", allowed)
	}
	status, h, _ = call(t, open, "GET", "/api/v1/runs", "", "Origin", "http://localhost:3000", "Authorization", "Bearer s3cret")
	if status != 200 || h.Get("Access-Control-Allow-Origin") != "http://localhost:3000" || !strings.Contains(h.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") {
		t.Fatalf("allowed origin: %d %v", status, h)
	}
	status, _, b = call(t, open, "GET", "/api/v1/runs", "", "Origin", "http://other.example", "Authorization", "Bearer s3cret")
	wantError(t, status, b, 403, "not allowed")
}

// TestBusy fills every run slot and queue place of a real server: the
// next question is refused with 429 and a JSON error, and served again
// once a slot is free.
func TestBusy(t *testing.T) {
	ts, s := newServer(t, func(c *Config) { c.MaxRuns, c.MaxQueue = 1, -1 })
	release, err := s.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, body string }{
		{"/api/v1/ask", `{"question": "` + lateFee + `"}`},
		{"/v1/chat/completions", `{"model": "docmind", "messages": [{"role": "user", "content": "` + lateFee + `"}]}`},
		{"/v1/chat/completions", `{"model": "docmind", "stream": true, "messages": [{"role": "user", "content": "` + lateFee + `"}]}`},
	} {
		status, h, b := call(t, ts, "POST", tc.path, tc.body, "Accept", "text/event-stream")
		wantError(t, status, b, 429, "too many questions at once")
		if h.Get("Retry-After") == "" {
			t.Errorf("%s: no Retry-After", tc.path)
		}
	}
	// Reading the ledger needs no run slot.
	if status, _, _ := call(t, ts, "GET", "/api/v1/runs", ""); status != 200 {
		t.Errorf("GET runs while busy: %d", status)
	}
	// work from another handler (the MCP tools) waits for the same slots
	if _, _, err := s.RunSlot(context.Background()); !errors.Is(err, errBusy) {
		t.Errorf("RunSlot while busy: %v, want errBusy", err)
	}
	release()
	ask(t, ts, `{"question": "`+lateFee+`"}`)
	ctx, done, err := s.RunSlot(context.Background())
	if err != nil || len(s.slots) != 1 || ctx.Err() != nil {
		t.Fatalf("RunSlot when free: %v, %d slots taken", err, len(s.slots))
	}
	done()
	if len(s.slots) != 0 {
		t.Errorf("RunSlot's release left %d slots taken", len(s.slots))
	}
}

// A JSON body that stops arriving gets 408 once the server's read timeout
// passes, not a 400 quoting the socket's addresses.
func TestSlowBodyTimesOut(t *testing.T) {
	_, s := newServer(t, nil)
	ts := httptest.NewUnstartedServer(s)
	ts.Config.ReadTimeout = 300 * time.Millisecond
	ts.Start()
	defer ts.Close()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/v1/ask HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"question\": ")
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	wantError(t, resp.StatusCode, b, http.StatusRequestTimeout, "did not arrive in time")
}

// An MCP client's GET stream, open while its session lives, ends when
// Shutdown starts: an idle one held the shutdown for its whole wait.
func TestShutdownEndsStreams(t *testing.T) {
	opened := make(chan struct{})
	_, s := newServer(t, func(c *Config) {
		c.MCP = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			close(opened)
			<-r.Context().Done()
		})
	})
	ts := httptest.NewServer(s)
	resp, err := http.Get(ts.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-opened
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := s.Shutdown(ctx, ts.Config); err != nil {
		t.Fatalf("Shutdown: %v after %s", err, time.Since(start))
	}
}

// TestQueueWaits: beyond MaxRuns, requests wait for a slot (up to
// MaxQueue of them) rather than fail.
func TestQueueWaits(t *testing.T) {
	ts, _ := newServer(t, func(c *Config) { c.MaxRuns, c.MaxQueue = 1, 16 })
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := ts.Client().Post(ts.URL+"/api/v1/ask", "application/json", strings.NewReader(`{"question": "`+lateFee+`"}`))
			if err != nil {
				errs <- err.Error()
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				errs <- resp.Status
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestRunTimeout(t *testing.T) {
	ts, _ := newServer(t, func(c *Config) { c.RunTimeout = time.Nanosecond })
	status, _, b := call(t, ts, "POST", "/api/v1/ask", `{"question": "`+lateFee+`"}`)
	if status != http.StatusGatewayTimeout {
		t.Fatalf("status %d, want 504: %s", status, b)
	}
	var out map[string]any
	json.Unmarshal(b, &out)
	if msg, _ := out["error"].(string); !strings.Contains(msg, "run timeout") {
		t.Fatalf("error %q, want the run timeout", msg)
	}
}

func TestHealth(t *testing.T) {
	ts, _ := newServer(t, nil)
	status, _, b := call(t, ts, "GET", "/healthz", "")
	if status != 200 || !bytes.Contains(b, []byte(`"status":"ok"`)) {
		t.Fatalf("%d %s", status, b)
	}
}

func TestIsLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:80": true, "[::1]:8080": true, "127.0.0.2:1": true,
		":8080": false, "0.0.0.0:8080": false, "192.168.1.5:8080": false, "[::]:8080": false, "example.com:80": false, "127.0.0.1": false,
	} {
		if got := IsLoopbackAddr(addr); got != want {
			t.Errorf("IsLoopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}

// osMkdirTemp makes the shared index's directory (removed by TestMain).
func osMkdirTemp() (string, error) {
	d, err := os.MkdirTemp("", "docmind-server-test-")
	sharedDir = d
	return d, err
}

var sharedDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedIx != nil {
		sharedIx.Close()
	}
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	os.Exit(code)
}
