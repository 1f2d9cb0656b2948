package schema

import (
	"context"
	"time"
)

// EventType says what an Event reports.
type EventType string

// Event types.
const (
	// EventNodeStart is sent before a node runs; State is its input.
	EventNodeStart EventType = "node_start"
	// EventNodeEnd is sent after a node ran; State is its output.
	EventNodeEnd EventType = "node_end"
	// EventNodeError is sent when a node failed; Err says why.
	EventNodeError EventType = "node_error"
	// EventToken carries a chunk of the generator's draft answer.
	EventToken EventType = "token"
	// EventRetry is sent when the judge rejected an answer and retrieval
	// runs again; Attempt is the retry number.
	EventRetry EventType = "retry"
)

// Event is what an Observer receives while a run progresses.
type Event struct {
	Type EventType
	Node string
	// Attempt is the retrieval pass the event belongs to (0 = first).
	Attempt int
	// MaxRetries is the run's retry limit (on retry events).
	MaxRetries int
	// State is a snapshot; observers must not modify it.
	State    *State
	Token    string
	Err      error
	Duration time.Duration
}

// Observer receives events. It is called synchronously on the run's
// goroutine and should return quickly.
type Observer interface {
	OnEvent(ctx context.Context, ev Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(ctx context.Context, ev Event)

// OnEvent calls f.
func (f ObserverFunc) OnEvent(ctx context.Context, ev Event) { f(ctx, ev) }
