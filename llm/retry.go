package llm

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// errAttemptTimeout is the cause of a per-call timeout.
var errAttemptTimeout = errors.New("per-call timeout")

// Defaults of RetryPolicy.
const (
	DefaultMaxAttempts = 4
	DefaultBaseDelay   = 500 * time.Millisecond
	DefaultMaxDelay    = 30 * time.Second
)

// RetryPolicy says how Retry handles transient failures. The zero value
// means: 4 attempts, 0.5 s base delay doubling each time with jitter, at
// most 30 s between attempts, no per-call timeout.
type RetryPolicy struct {
	// MaxAttempts bounds the calls made, the first included; 1 disables
	// retries.
	MaxAttempts int
	// BaseDelay is the wait before the second attempt; it doubles for each
	// further attempt, with jitter (a random 50–100 % of the value).
	BaseDelay time.Duration
	// MaxDelay caps the wait between attempts. A Retry-After longer than
	// MaxDelay ends the retries, since waiting less would be refused again.
	MaxDelay time.Duration
	// Timeout bounds each attempt; 0 means no per-call timeout. When the
	// caller's context has a deadline (a whole run's), an attempt also
	// gets no more than its share of the time left: what is left divided
	// by the attempts still allowed, so a hung server leaves room for the
	// retries and the error comes before the deadline.
	Timeout time.Duration
	// Endpoint names the service in errors ("OpenAI", "localhost:11434").
	Endpoint string
	// Sleep waits between attempts; nil uses a timer. Tests inject a
	// recorder here.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns the jitter fraction in [0,1); nil uses math/rand/v2.
	Rand func() float64
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.Sleep == nil {
		p.Sleep = sleepCtx
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	return p
}

// Delay returns the wait before attempt n+1 after attempt n (n ≥ 1)
// failed: Retry-After when the server sent one, otherwise BaseDelay·2^(n-1)
// with jitter, capped at MaxDelay.
func (p RetryPolicy) Delay(n int, retryAfter time.Duration) time.Duration {
	p = p.withDefaults()
	if retryAfter > 0 {
		return min(retryAfter, p.MaxDelay)
	}
	d := p.BaseDelay
	for i := 1; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	return d/2 + time.Duration(p.Rand()*float64(d/2))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Retry wraps any llms.Model (OpenAI, Anthropic, Ollama, a user's own) with
// RetryPolicy: transient failures are retried, every failure comes back
// as an *Error with one clear line. A streaming call is retried only while
// no chunk has reached the caller, so streamed text is never duplicated.
type Retry struct {
	Model  llms.Model
	Policy RetryPolicy
}

// WithRetry returns m wrapped with policy p.
func WithRetry(m llms.Model, p RetryPolicy) *Retry {
	return &Retry{Model: m, Policy: p}
}

var _ llms.Model = (*Retry)(nil)

// Call implements llms.Model.
func (r *Retry) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, r, prompt, options...)
}

// GenerateContent implements llms.Model with retries.
func (r *Retry) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	p := r.Policy.withDefaults()
	var probe llms.CallOptions
	for _, o := range options {
		o(&probe)
	}
	var streamed atomic.Bool
	opts := options
	if fn := probe.StreamingFunc; fn != nil {
		opts = append(append([]llms.CallOption(nil), options...), llms.WithStreamingFunc(func(ctx context.Context, chunk []byte) error {
			streamed.Store(true)
			return fn(ctx, chunk)
		}))
	}
	n := 0
	return retryLoop(ctx, p, streamed.Load, func() (*llms.ContentResponse, error) {
		n++
		return r.attempt(ctx, p, n, messages, opts)
	})
}

// retryLoop calls attempt until it succeeds, fails for good, or the
// policy's attempts run out; stop reports whether a retry must not happen
// any more (for example because streamed text reached the caller). Every
// failure comes back as an *Error.
func retryLoop[T any](ctx context.Context, p RetryPolicy, stop func() bool, attempt func() (T, error)) (T, error) {
	var zero T
	for n := 1; ; n++ {
		out, err := attempt()
		if err == nil {
			return out, nil
		}
		e := describe(ctx, p, err, n)
		if !e.Kind.Retryable() || n >= p.MaxAttempts || (stop != nil && stop()) {
			return zero, e
		}
		_, _, retryAfter := Classify(err)
		if retryAfter > p.MaxDelay {
			return zero, e
		}
		if serr := p.Sleep(ctx, p.Delay(n, retryAfter)); serr != nil {
			return zero, describe(ctx, p, errors.Join(serr, err), n)
		}
	}
}

// attemptContext returns the context of attempt n, bounded by the
// policy's per-call timeout and by its share of the time left before ctx's
// deadline (see RetryPolicy.Timeout).
func attemptContext(ctx context.Context, p RetryPolicy, n int) (context.Context, context.CancelFunc) {
	timeout := p.Timeout
	if dl, ok := ctx.Deadline(); ok {
		share := time.Until(dl) / time.Duration(max(p.MaxAttempts-n+1, 1))
		if n < p.MaxAttempts && share > 0 && (timeout <= 0 || share < timeout) {
			timeout = share
		}
	}
	if timeout > 0 {
		return context.WithTimeoutCause(ctx, timeout, &attemptTimeout{timeout})
	}
	return ctx, func() {}
}

// attemptTimeout is the cause of a per-call timeout of d.
type attemptTimeout struct{ d time.Duration }

func (e *attemptTimeout) Error() string { return "per-call timeout of " + e.d.String() }

// Is makes an attemptTimeout errors.Is errAttemptTimeout.
func (e *attemptTimeout) Is(target error) bool { return target == errAttemptTimeout }

// markTimeout tags err as a per-call timeout when actx ran out but the
// caller's ctx did not.
func markTimeout(ctx, actx context.Context, err error) error {
	if err != nil && ctx.Err() == nil && actx.Err() != nil && errors.Is(context.Cause(actx), errAttemptTimeout) {
		return errors.Join(context.Cause(actx), err)
	}
	return err
}

func (r *Retry) attempt(ctx context.Context, p RetryPolicy, n int, messages []llms.MessageContent, opts []llms.CallOption) (resp *llms.ContentResponse, err error) {
	actx, cancel := attemptContext(ctx, p, n)
	defer cancel()
	defer recoverPanic(p, &err)
	resp, err = r.Model.GenerateContent(actx, messages, opts...)
	if err == nil && (resp == nil || len(resp.Choices) == 0) {
		err = errors.New("empty response (no choices)")
	}
	return resp, markTimeout(ctx, actx, err)
}

// recoverPanic turns a provider's panic into an error in *err; call it
// deferred.
func recoverPanic(p RetryPolicy, err *error) {
	if rec := recover(); rec != nil {
		*err = &Error{Endpoint: p.Endpoint, Kind: KindOther, Attempts: 1, Err: panicError{rec}}
	}
}

type panicError struct{ v any }

func (p panicError) Error() string { return "provider panicked: " + oneLine(fmtAny(p.v), 200) }

// describe turns err into an *Error for attempt n.
func describe(ctx context.Context, p RetryPolicy, err error, n int) *Error {
	var le *Error
	if errors.As(err, &le) && le.Kind != KindOther {
		c := *le
		c.Attempts = max(c.Attempts, n)
		if c.Endpoint == "" {
			c.Endpoint = p.Endpoint
		}
		return &c
	}
	e := &Error{Endpoint: p.Endpoint, Attempts: n, Err: err}
	if ctx.Err() != nil {
		e.Kind = KindCanceled
		if !errors.Is(err, ctx.Err()) {
			e.Err = errors.Join(ctx.Err(), err)
		}
		return e
	}
	kind, status, _ := Classify(err)
	if kind == KindCanceled {
		// The provider saw a cancellation the caller did not ask for
		// (for example a per-call timeout surfacing as Canceled).
		kind = KindTimeout
	}
	e.Kind, e.StatusCode = kind, status
	if kind == KindTimeout {
		e.Timeout = p.Timeout
		var at *attemptTimeout
		if errors.As(err, &at) {
			e.Timeout = at.d
		}
	}
	var se *StatusError
	if errors.As(err, &se) && se.Message != "" {
		e.Message = oneLine(se.Message, 200)
	}
	return e
}
