package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/docmind/docmind/schema"
)

// Observer returns the observer to build a served pipeline with: it
// passes each event of a run to the request that started it, when that
// request asked for server-sent events, and ignores the others. It never
// blocks on anything but that request's connection.
func Observer() schema.Observer { return schema.ObserverFunc(dispatch) }

type eventsKey struct{}

// dispatch passes ev to the event sink in ctx, if any.
func dispatch(ctx context.Context, ev schema.Event) {
	if sink, ok := ctx.Value(eventsKey{}).(func(schema.Event)); ok {
		sink(ev)
	}
}

// withEvents returns ctx whose runs send their events to sink.
func withEvents(ctx context.Context, sink func(schema.Event)) context.Context {
	return context.WithValue(ctx, eventsKey{}, sink)
}

// wantsEvents reports whether the client asked for server-sent events.
func wantsEvents(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// sseWriter writes server-sent events. Its methods may be called from
// the run's goroutines; a write error (the client left) stops later
// writes.
type sseWriter struct {
	mu  sync.Mutex
	w   http.ResponseWriter
	rc  *http.ResponseController
	err error
}

// startSSE sends the headers of an event stream.
func startSSE(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: http.NewResponseController(w)}
	s.flush()
	return s
}

// startStream starts an event stream that sends a keep-alive comment
// while quiet; stop ends the keep-alives.
func startStream(w http.ResponseWriter) (out *sseWriter, stop func()) {
	out = startSSE(w)
	done := make(chan struct{})
	go out.keepAlive(keepAliveInterval, done)
	return out, func() { close(done) }
}

// event sends one event named name (none when "") with v as JSON data.
func (s *sseWriter) event(name string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(errorBody{Error: "encode event: " + err.Error()})
		name = "error"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	if name != "" {
		_, s.err = fmt.Fprintf(s.w, "event: %s\n", name)
	}
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, "data: %s\n\n", b)
	}
	s.flushLocked()
}

// raw sends a data line as it is (the OpenAI stream's "[DONE]").
func (s *sseWriter) raw(data string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, "data: %s\n\n", data)
	}
	s.flushLocked()
}

// keepAlive sends a comment line every interval until stop is closed,
// so that proxies and clients do not time out a long run.
func (s *sseWriter) keepAlive(interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.mu.Lock()
			if s.err == nil {
				_, s.err = fmt.Fprint(s.w, ": keep-alive\n\n")
			}
			s.flushLocked()
			s.mu.Unlock()
		}
	}
}

func (s *sseWriter) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked()
}

func (s *sseWriter) flushLocked() {
	if s.err == nil {
		s.err = s.rc.Flush()
	}
}

// keepAliveInterval is how often a quiet event stream sends a comment.
const keepAliveInterval = 15 * time.Second

// Event payloads of POST /api/v1/ask with Accept: text/event-stream.
type (
	nodeEvent struct {
		Node       string `json:"node"`
		Attempt    int    `json:"attempt"`
		DurationMS *int64 `json:"duration_ms,omitempty"`
		Error      string `json:"error,omitempty"`
	}
	tokenEvent struct {
		Token   string `json:"token"`
		Attempt int    `json:"attempt"`
	}
	retryEvent struct {
		Attempt    int    `json:"attempt"`
		MaxRetries int    `json:"max_retries"`
		Reason     string `json:"reason"`
	}
)

// pipelineEvents turns the pipeline's events into server-sent events:
// node_start, node_end, node_error, token (the draft, when the generator
// streams) and retry (with the judge's reason).
func pipelineEvents(out *sseWriter) func(schema.Event) {
	return func(ev schema.Event) {
		switch ev.Type {
		case schema.EventNodeStart:
			out.event("node_start", nodeEvent{Node: ev.Node, Attempt: ev.Attempt})
		case schema.EventNodeEnd:
			ms := ev.Duration.Milliseconds()
			out.event("node_end", nodeEvent{Node: ev.Node, Attempt: ev.Attempt, DurationMS: &ms})
		case schema.EventNodeError:
			msg := ""
			if ev.Err != nil {
				msg = oneLine(ev.Err.Error())
			}
			out.event("node_error", nodeEvent{Node: ev.Node, Attempt: ev.Attempt, Error: msg})
		case schema.EventToken:
			if ev.Token != "" {
				out.event("token", tokenEvent{Token: ev.Token, Attempt: ev.Attempt})
			}
		case schema.EventRetry:
			reason := ""
			if ev.State != nil && ev.State.JudgeVerdict != nil {
				reason = oneLine(ev.State.JudgeVerdict.Reasoning)
			}
			out.event("retry", retryEvent{Attempt: ev.Attempt, MaxRetries: ev.MaxRetries, Reason: reason})
		}
	}
}
