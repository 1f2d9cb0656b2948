package docmind

import (
	"context"
	"iter"
	"strings"
	"time"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/threads"
)

// The events Stream yields, in the order a run sends them; Event.Type is
// one of them. All but EventAnswer are the run loop's own (package schema).
const (
	// EventNodeStart: a node is about to run.
	EventNodeStart = schema.EventNodeStart
	// EventNodeEnd: a node ran, in Duration.
	EventNodeEnd = schema.EventNodeEnd
	// EventNodeError: a node failed (Err); the stream ends with the error.
	EventNodeError = schema.EventNodeError
	// EventToken: a piece of the draft answer (Token), as the generator
	// writes it. The judge has not seen the draft yet: it may still be
	// replaced by FallbackMessage.
	EventToken = schema.EventToken
	// EventRetry: the judge rejected the draft and retrieval runs again
	// (Attempt is the retry's number).
	EventRetry = schema.EventRetry
	// EventAnswer: the run is over; Answer holds the result. It is the
	// last event of a run that completed.
	EventAnswer schema.EventType = "answer"
)

// Event is one step of a streamed run.
type Event struct {
	// Type says what the event reports (EventNodeStart, ...).
	Type schema.EventType
	// Node is the node the event belongs to (NodeDecompose, ...).
	Node string
	// Attempt is the retrieval pass (0 = the first).
	Attempt int
	// Token is the piece of the draft of an EventToken.
	Token string
	// Duration is how long the node took, on EventNodeEnd.
	Duration time.Duration
	// Err is why the node failed, on EventNodeError.
	Err error
	// Answer is the result, on EventAnswer.
	Answer *Answer
}

// Stream answers a question as Ask does, and yields the run's events as
// they happen: each node's start and end, each token of the draft answer,
// each retry, and last an EventAnswer with the Answer. When the run fails
// the last pair holds the error (it is ctx.Err() when ctx was cancelled).
// Breaking out of the loop cancels the run.
//
//	for ev, err := range p.Stream(ctx, question) {
//		if err != nil { ... }
//		if ev.Type == docmind.EventToken { fmt.Print(ev.Token) }
//	}
func (p *Pipeline) Stream(ctx context.Context, query string) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		query = strings.TrimSpace(query)
		if query == "" {
			yield(Event{}, ErrEmptyQuery)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		events := make(chan Event)
		send := func(ev Event) {
			select {
			case events <- ev:
			case <-ctx.Done():
			}
		}
		id := threads.NewRunID()
		var (
			st  *schema.State
			err error
		)
		go func() {
			defer close(events)
			st, err = p.streamer.Run(context.WithValue(ctx, sinkKey{}, send), schema.NewState(query))
		}()
		for ev := range events {
			if !yield(ev, nil) {
				cancel()
				for range events { // until the run has returned
				}
				return
			}
		}
		if err != nil {
			yield(Event{}, err)
			return
		}
		yield(Event{Type: EventAnswer, Node: NodeOutput, Answer: newAnswer(id, st)}, nil)
	}
}

// sinkKey carries, in a Stream run's context, where its events go.
type sinkKey struct{}

// streamObserver passes each event to the pipeline's own observer, if
// any, and to the Stream call whose context carries a sink.
type streamObserver struct{ next schema.Observer }

// OnEvent implements schema.Observer.
func (o streamObserver) OnEvent(ctx context.Context, ev schema.Event) {
	if o.next != nil {
		o.next.OnEvent(ctx, ev)
	}
	send, ok := ctx.Value(sinkKey{}).(func(Event))
	if !ok {
		return
	}
	send(Event{Type: ev.Type, Node: ev.Node, Attempt: ev.Attempt, Token: ev.Token, Duration: ev.Duration, Err: ev.Err})
}
