package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/docmind/docmind/internal/redact"
)

// Kind sorts LLM call failures by what the caller should do about them.
type Kind int

// Failure kinds.
const (
	// KindOther is anything not listed below; not retried.
	KindOther Kind = iota
	// KindAuth is a rejected API key (401) or refused access (403).
	KindAuth
	// KindRateLimit is 429 Too Many Requests; retried.
	KindRateLimit
	// KindServer is a 5xx; retried.
	KindServer
	// KindTimeout is a call that ran past its per-call timeout; retried.
	KindTimeout
	// KindNetwork is a reset or refused connection or a truncated
	// response; retried.
	KindNetwork
	// KindBadRequest is any other 4xx; not retried.
	KindBadRequest
	// KindCanceled is the caller's context ending; never retried.
	KindCanceled
)

// Retryable reports whether a failure of this kind is worth another attempt.
func (k Kind) Retryable() bool {
	switch k {
	case KindRateLimit, KindServer, KindTimeout, KindNetwork:
		return true
	}
	return false
}

// StatusError is an HTTP error status from an LLM endpoint. Providers return
// it (directly or wrapped) so that retries can see the status and the
// Retry-After header; Err keeps the provider's own typed error (for example
// *openai.APIError), reachable with errors.As.
type StatusError struct {
	StatusCode int
	// RetryAfter is the server's Retry-After, 0 when absent.
	RetryAfter time.Duration
	// Message is the server's error message, if any.
	Message string
	Err     error
}

// Error renders the status and message, without secrets (see
// internal/redact: a server may echo the API key it was sent).
func (e *StatusError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return redact.String(s)
}

// Unwrap returns the provider's error.
func (e *StatusError) Unwrap() error { return e.Err }

// Error is a failed LLM call as the user sees it: one line saying what
// failed, on which endpoint, and why. It wraps the last underlying error,
// so errors.Is(err, context.Canceled) and errors.As(err, &apiErr) work.
type Error struct {
	// Endpoint names the service: "OpenAI", "Anthropic", "Ollama" or the
	// host of a custom base URL.
	Endpoint   string
	Kind       Kind
	StatusCode int
	// Attempts is how many calls were made.
	Attempts int
	// Timeout is the per-call timeout, on KindTimeout.
	Timeout time.Duration
	// Message is the server's message, shortened to one line.
	Message string
	Err     error
}

// Error renders one line, for example "OpenAI rejected the API key (401)"
// or "rate limited by OpenAI after 4 attempts (429)". Secrets (the
// configured API keys, sk-… and bearer tokens) a server echoed in its
// message are replaced by "[redacted]".
func (e *Error) Error() string { return redact.String(e.line()) }

func (e *Error) line() string {
	ep := e.Endpoint
	if ep == "" {
		ep = "the LLM endpoint"
	}
	after := ""
	if e.Attempts > 1 {
		after = fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	msg := ""
	if e.Message != "" {
		msg = ": " + e.Message
	}
	switch e.Kind {
	case KindAuth:
		if e.StatusCode == http.StatusForbidden {
			return fmt.Sprintf("%s refused access with this API key (403)%s", ep, msg)
		}
		return fmt.Sprintf("%s rejected the API key (%d)", ep, e.StatusCode)
	case KindRateLimit:
		return fmt.Sprintf("rate limited by %s%s (429)", ep, after)
	case KindServer:
		return fmt.Sprintf("%s failed with a server error%s (%d)%s", ep, after, e.StatusCode, msg)
	case KindTimeout:
		if e.Timeout <= 0 {
			return fmt.Sprintf("%s timed out%s", ep, attemptsSuffix(e.Attempts))
		}
		return fmt.Sprintf("%s timed out after %s%s", ep, e.Timeout, attemptsSuffix(e.Attempts))
	case KindNetwork:
		return fmt.Sprintf("cannot reach %s%s: %s", ep, after, rootCause(e.Err))
	case KindBadRequest:
		if e.StatusCode == http.StatusNotFound {
			return fmt.Sprintf("%s does not know this model or path (404)%s", ep, msg)
		}
		return fmt.Sprintf("%s rejected the request (%d)%s", ep, e.StatusCode, msg)
	case KindCanceled:
		if errors.Is(e.Err, context.DeadlineExceeded) {
			return fmt.Sprintf("call to %s stopped: the run's deadline passed", ep)
		}
		return fmt.Sprintf("call to %s canceled", ep)
	default:
		msg := oneLine(e.Err.Error(), 200)
		// A provider's error may already name the endpoint ("HOST: cause",
		// "HOST returned no choices"): name it once.
		if rest, ok := strings.CutPrefix(msg, ep+": "); ok {
			msg = rest
		} else if strings.HasPrefix(msg, ep+" ") {
			return msg
		}
		return fmt.Sprintf("call to %s failed: %s", ep, msg)
	}
}

func attemptsSuffix(n int) string {
	if n > 1 {
		return fmt.Sprintf(" (%d attempts)", n)
	}
	return ""
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Classify sorts err into a Kind and returns the HTTP status and Retry-After
// it carries, if any. It understands *Error, *StatusError, context errors,
// network errors, and as a last resort the status codes that langchaingo's
// clients put into plain error strings.
func Classify(err error) (kind Kind, status int, retryAfter time.Duration) {
	if err == nil {
		return KindOther, 0, 0
	}
	var le *Error
	if errors.As(err, &le) {
		return le.Kind, le.StatusCode, 0
	}
	var se *StatusError
	if errors.As(err, &se) {
		return kindOfStatus(se.StatusCode), se.StatusCode, se.RetryAfter
	}
	if errors.Is(err, context.Canceled) {
		return KindCanceled, 0, 0
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errAttemptTimeout) {
		return KindTimeout, 0, 0
	}
	var ne net.Error
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		(errors.As(err, &ne) && ne.Timeout()) {
		return KindNetwork, 0, 0
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return KindNetwork, 0, 0
	}
	if code := statusInText(err.Error()); code != 0 {
		return kindOfStatus(code), code, 0
	}
	return KindOther, 0, 0
}

func kindOfStatus(code int) Kind {
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return KindAuth
	case code == http.StatusTooManyRequests:
		return KindRateLimit
	case code == http.StatusRequestTimeout:
		return KindTimeout
	case code >= 500:
		return KindServer
	case code >= 400:
		return KindBadRequest
	}
	return KindOther
}

var statusRE = regexp.MustCompile(`(?i)status(?: code)?:? (\d{3})\b`)

// statusInText finds "status code: 429" / "status 503" in error strings of
// clients that do not return typed errors.
func statusInText(s string) int {
	m := statusRE.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	if n < 400 || n > 599 {
		return 0
	}
	return n
}

// ParseRetryAfter reads a Retry-After header value: delay seconds or an
// HTTP date (relative to now). It returns 0 when v is empty or invalid
// (NaN and infinities included), and the longest time.Duration for a
// delay too long to represent; it is never negative.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		switch {
		case !(secs > 0) || math.IsInf(secs, 1): // ≤ 0, NaN, ±Inf
			return 0
		case secs >= math.MaxInt64/float64(time.Second):
			return math.MaxInt64
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// rootCause returns the innermost error's text, so network failures read
// "connection refused" rather than a chain of URLs.
func rootCause(err error) string {
	if err == nil {
		return "unknown error"
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed mid-response"
	case errors.Is(err, io.EOF):
		return "the server closed the connection before replying"
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return oneLine(err.Error(), 200)
		}
		err = next
	}
}

// oneLine collapses whitespace and shortens s to at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
