package llm

import (
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// Transport is an http.RoundTripper for LLM clients that report HTTP errors
// only as strings (langchaingo's anthropic and ollama clients): it turns
// every response with status ≥ 400 into a *StatusError carrying the status,
// the Retry-After header and the server's message. http.Client wraps it in a
// *url.Error, which unwraps, so Classify and Retry see the typed error.
//
// Returning an error for an HTTP status departs from the usual RoundTripper
// contract on purpose; use Transport only in clients made for LLM calls.
type Transport struct {
	// Base does the actual round trip; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Now is the clock for Retry-After dates; nil means time.Now.
	Now func() time.Time
}

// HTTPClient returns an *http.Client using a Transport over base (nil for
// http.DefaultTransport). It sets no overall timeout: Retry bounds each
// call with RetryPolicy.Timeout, and streams may legitimately run long.
func HTTPClient(base http.RoundTripper) *http.Client {
	return &http.Client{Transport: &Transport{Base: base}}
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil || resp.StatusCode < http.StatusBadRequest {
		return resp, err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	return nil, &StatusError{
		StatusCode: resp.StatusCode,
		RetryAfter: ParseRetryAfter(resp.Header.Get("Retry-After"), now()),
		Message:    ErrorMessage(body),
	}
}

// ErrorMessage extracts the human-readable message from an error body in
// the shapes LLM APIs use ({"error":{"message":…}}, {"error":"…"},
// {"message":…}); otherwise it returns the body as one shortened line.
func ErrorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		var nested struct {
			Message string `json:"message"`
		}
		var flat string
		switch {
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &nested) == nil && nested.Message != "":
			return oneLine(nested.Message, 200)
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &flat) == nil && flat != "":
			return oneLine(flat, 200)
		case v.Message != "":
			return oneLine(v.Message, 200)
		}
	}
	return oneLine(string(body), 200)
}
