package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	sdk "github.com/sashabaranov/go-openai"
	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
)

// These tests drive llm.Retry around the go-openai adapter through real
// HTTP against the scripted server; only the sleeps between attempts are
// recorded instead of waited.

func TestRetryPaths(t *testing.T) {
	tests := []struct {
		name      string
		replies   []openaitest.Reply
		policy    llm.RetryPolicy
		wantErr   string // "" = success
		wantKind  llm.Kind
		wantCalls int
		wantSleep []time.Duration
	}{
		{
			name: "429 with Retry-After then success",
			replies: []openaitest.Reply{
				{Status: 429, Header: openaitest.RetryAfter("2"), Message: "Rate limit reached"},
				{Content: "ok"},
			},
			wantCalls: 2,
			wantSleep: []time.Duration{2 * time.Second},
		},
		{
			name:      "500 until the budget is spent",
			replies:   repeat(openaitest.Reply{Status: 500, Message: "The server had an error"}, 3),
			policy:    llm.RetryPolicy{MaxAttempts: 3, BaseDelay: 100 * time.Millisecond},
			wantErr:   "OpenAI failed with a server error after 3 attempts (500): The server had an error",
			wantKind:  llm.KindServer,
			wantCalls: 3,
			// Jitter fixed at 0.5: 75% of 100 ms, then of 200 ms.
			wantSleep: []time.Duration{75 * time.Millisecond, 150 * time.Millisecond},
		},
		{
			name:      "429 forever reads as rate limited",
			replies:   repeat(openaitest.Reply{Status: 429, Message: "slow down"}, 4),
			wantErr:   "rate limited by OpenAI after 4 attempts (429)",
			wantKind:  llm.KindRateLimit,
			wantCalls: 4,
			wantSleep: []time.Duration{375 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond},
		},
		{
			name:      "401 is not retried",
			replies:   []openaitest.Reply{{Status: 401, Message: "Incorrect API key provided: sk-test"}},
			wantErr:   "OpenAI rejected the API key (401)",
			wantKind:  llm.KindAuth,
			wantCalls: 1,
		},
		{
			name:      "400 is not retried",
			replies:   []openaitest.Reply{{Status: 400, Message: "Unsupported parameter: 'temperature'"}},
			wantErr:   "OpenAI rejected the request (400): Unsupported parameter: 'temperature'",
			wantKind:  llm.KindBadRequest,
			wantCalls: 1,
		},
		{
			name:      "Retry-After beyond MaxDelay gives up at once",
			replies:   []openaitest.Reply{{Status: 429, Header: openaitest.RetryAfter("3600")}},
			wantErr:   "rate limited by OpenAI (429)",
			wantKind:  llm.KindRateLimit,
			wantCalls: 1,
		},
		{
			name: "slow response past the per-call timeout",
			replies: []openaitest.Reply{
				{Content: "late", Delay: 30 * time.Second},
				{Content: "late", Delay: 30 * time.Second},
			},
			// 500 ms: each request reaches the server before its attempt
			// times out, even on a loaded machine under -race
			policy:    llm.RetryPolicy{MaxAttempts: 2, Timeout: 500 * time.Millisecond, BaseDelay: time.Millisecond},
			wantErr:   "OpenAI timed out after 500ms (2 attempts)",
			wantKind:  llm.KindTimeout,
			wantCalls: 2,
			wantSleep: []time.Duration{750 * time.Microsecond},
		},
		{
			name:      "connection closed before any response, then success",
			replies:   []openaitest.Reply{{Hangup: true}, {Reset: true}, {Content: "ok"}},
			policy:    llm.RetryPolicy{BaseDelay: time.Millisecond},
			wantCalls: 3,
			wantSleep: []time.Duration{750 * time.Microsecond, 1500 * time.Microsecond},
		},
		{
			name:      "connection closed before any response, every time",
			replies:   repeat(openaitest.Reply{Hangup: true}, 2),
			policy:    llm.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond},
			wantErr:   "cannot reach OpenAI after 2 attempts: the server closed the connection before replying",
			wantKind:  llm.KindNetwork,
			wantCalls: 2,
			wantSleep: []time.Duration{750 * time.Microsecond},
		},
		{
			name: "slow first attempt, fast second",
			replies: []openaitest.Reply{
				{Content: "late", Delay: 30 * time.Second},
				{Content: "ok"},
			},
			// The timeout leaves the fast reply room on a loaded 2-core
			// machine running -race; the slow one ends when the client
			// goes away.
			policy:    llm.RetryPolicy{Timeout: time.Second, BaseDelay: time.Millisecond},
			wantCalls: 2,
			wantSleep: []time.Duration{750 * time.Microsecond},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Script(openaitest.RouteGenerate, tc.replies...)
			m := newModel(t, srv, openai.WithEndpointName("OpenAI"))
			rec := &openaitest.SleepRecorder{}
			p := tc.policy
			p.Endpoint = m.Endpoint()
			p.Sleep = rec.Sleep
			p.Rand = func() float64 { return 0.5 }
			start := time.Now()
			out, err := llm.WithRetry(m, p).Call(context.Background(), "hi")
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if tc.wantErr == "" {
				if err != nil || out != "ok" {
					t.Fatalf("got %q, %v; want ok", out, err)
				}
			} else {
				if err == nil {
					t.Fatalf("got %q, want error %q", out, tc.wantErr)
				}
				if err.Error() != tc.wantErr {
					t.Errorf("error = %q\nwant    %q", err, tc.wantErr)
				}
				var le *llm.Error
				if !errors.As(err, &le) || le.Kind != tc.wantKind {
					t.Errorf("kind = %v, want %v", le.Kind, tc.wantKind)
				}
			}
			if got := srv.Calls(""); got != tc.wantCalls {
				t.Errorf("calls = %d, want %d", got, tc.wantCalls)
			}
			if len(rec.Slept()) != len(tc.wantSleep) {
				t.Fatalf("slept %v, want %v", rec.Slept(), tc.wantSleep)
			}
			for i := range rec.Slept() {
				if rec.Slept()[i] != tc.wantSleep[i] {
					t.Errorf("sleep %d = %v, want %v", i, rec.Slept()[i], tc.wantSleep[i])
				}
			}
		})
	}
}

func TestRetryKeepsTypedErrors(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate, openaitest.Reply{Status: 401, Message: "bad key"})
	m := newModel(t, srv)
	_, err := llm.WithRetry(m, llm.RetryPolicy{Endpoint: m.Endpoint()}).Call(context.Background(), "hi")
	var apiErr *sdk.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 401 || apiErr.Message != "bad key" {
		t.Errorf("APIError not reachable through llm.Error: %v", err)
	}
	if !strings.HasSuffix(err.Error(), "rejected the API key (401)") {
		t.Errorf("error = %q", err)
	}
}

func TestStreamNotRetriedAfterFirstChunk(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate,
		openaitest.Reply{Content: "a b c d e f g h", ChunkDelay: 40 * time.Millisecond},
		openaitest.Reply{Content: "second"})
	m := newModel(t, srv)
	var got strings.Builder
	_, err := llm.WithRetry(m, llm.RetryPolicy{Timeout: 100 * time.Millisecond, Endpoint: m.Endpoint(), Sleep: new(openaitest.SleepRecorder).Sleep}).
		Call(context.Background(), "hi", withStream(&got))
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindTimeout {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if srv.Calls("") != 1 || strings.Contains(got.String(), "second") || got.Len() == 0 {
		t.Errorf("calls=%d streamed=%q: a stream that already delivered text must not be retried", srv.Calls(""), got.String())
	}
}

func repeat(r openaitest.Reply, n int) []openaitest.Reply {
	out := make([]openaitest.Reply, n)
	for i := range out {
		out[i] = r
	}
	return out
}

func withStream(into *strings.Builder) llms.CallOption {
	return llms.WithStreamingFunc(func(_ context.Context, c []byte) error { into.Write(c); return nil })
}

// With a deadline for the whole run, a hung server does not take
// MaxAttempts × Timeout: each attempt gets its share of the time left, so
// every attempt is made and the error comes at the deadline.
func TestRetrySharesTheRunDeadline(t *testing.T) {
	srv := openaitest.New(t)
	srv.Always(openaitest.RouteGenerate, openaitest.Reply{Content: "late", Delay: time.Hour})
	m := newModel(t, srv, openai.WithEndpointName("OpenAI"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := llm.WithRetry(m, llm.RetryPolicy{Timeout: 2 * time.Minute, BaseDelay: time.Millisecond, Endpoint: "OpenAI"}).Call(ctx, "hi")
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("took %v with a 2 s deadline", took)
	}
	var le *llm.Error
	if !errors.As(err, &le) || err.Error() != "call to OpenAI stopped: the run's deadline passed" {
		t.Errorf("err = %v", err)
	}
	// 4 attempts of about 0.5 s each; a loaded machine may fit fewer, but
	// never only the first one (which used to wait for the whole deadline).
	if got := srv.Calls(""); got < 2 || got > llm.DefaultMaxAttempts {
		t.Errorf("calls = %d, want 2 to %d: each attempt gets a share of the time left", got, llm.DefaultMaxAttempts)
	}
}
