package llm_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/docmind/docmind/llm"
)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// FuzzErrorResponse sends error responses with arbitrary bodies and
// Retry-After headers through llm.Transport and checks what callers rely
// on: a *StatusError with the status, a Retry-After that is never
// negative (and exact for whole seconds), a message on one line of at
// most 200 characters, the nested {"error":{"message":…}} message when the
// body has one, and Classify agreeing with the status. Classify's reading
// of statuses in plain error text is checked on the body as well.
func FuzzErrorResponse(f *testing.F) {
	f.Add(uint16(429), []byte(`{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"requests","code":"rate_limit_exceeded"}}`), "20")
	f.Add(uint16(503), []byte(`{"error":"model is loading"}`), "Wed, 01 Jan 2025 00:00:10 GMT")
	f.Add(uint16(400), []byte(`{"message":"bad\nrequest   here"}`), "0.5")
	f.Add(uint16(401), []byte("<html><body>401 Unauthorized</body></html>"), "")
	f.Add(uint16(500), []byte(`{"error":{"message":""},"message":"fallback"}`), "-3")
	f.Add(uint16(502), []byte("upstream error: status code: 502"), "120")
	f.Add(uint16(404), []byte{0xff, 0xfe, '\n'}, " 7 ")
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, code uint16, body []byte, retryAfter string) {
		status := 400 + int(code)%200
		client := &http.Client{Transport: &llm.Transport{
			Now: func() time.Time { return now },
			Base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: status, Header: http.Header{"Retry-After": {retryAfter}},
					Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
			}),
		}}
		req, err := http.NewRequest(http.MethodPost, "http://llm.invalid/v1/chat/completions", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("status %d passed as a response", status)
		}
		var se *llm.StatusError
		if !errors.As(err, &se) {
			t.Fatalf("status %d: %T %v, want a *StatusError", status, err, err)
		}
		if se.StatusCode != status {
			t.Fatalf("StatusCode %d, want %d", se.StatusCode, status)
		}
		if se.RetryAfter < 0 {
			t.Fatalf("Retry-After %q read as %v", retryAfter, se.RetryAfter)
		}
		if n, err := strconv.Atoi(strings.TrimSpace(retryAfter)); err == nil && n >= 0 && n < 1e6 {
			if se.RetryAfter != time.Duration(n)*time.Second {
				t.Fatalf("Retry-After %q read as %v", retryAfter, se.RetryAfter)
			}
		}
		if d := llm.ParseRetryAfter(retryAfter, now); d != se.RetryAfter {
			t.Fatalf("ParseRetryAfter(%q) = %v, the transport read %v", retryAfter, d, se.RetryAfter)
		}
		checkOneLine(t, se.Message)
		var nested struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(body, &nested) == nil && strings.TrimSpace(nested.Error.Message) != "" {
			if want := strings.Join(strings.Fields(nested.Error.Message), " "); !strings.HasPrefix(want, strings.TrimSuffix(se.Message, "…")) {
				t.Fatalf("message %q, want the body's error message %q", se.Message, want)
			}
		}
		if msg := llm.ErrorMessage(body); msg != se.Message {
			t.Fatalf("ErrorMessage = %q, the transport read %q", msg, se.Message)
		}
		if kind, got, _ := llm.Classify(err); got != status || (kind == llm.KindOther) {
			t.Fatalf("Classify = %v, %d for status %d", kind, got, status)
		}
		if strings.ContainsAny(se.Error(), "\r\n") {
			t.Fatalf("error %q spans lines", se.Error())
		}
		if _, got, _ := llm.Classify(errors.New(string(body))); got != 0 && (got < 400 || got > 599) {
			t.Fatalf("Classify read status %d from %q", got, body)
		}
	})
}

func checkOneLine(t *testing.T, s string) {
	t.Helper()
	if strings.ContainsAny(s, "\r\n\t") || strings.Contains(s, "  ") || s != strings.TrimSpace(s) {
		t.Fatalf("message %q is not one tidy line", s)
	}
	if n := utf8.RuneCountInString(s); n > 201 {
		t.Fatalf("message of %d characters", n)
	}
}
