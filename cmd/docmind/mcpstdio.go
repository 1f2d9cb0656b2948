package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP SDK's stdio transport ends the session at the first line that
// is not a JSON-RPC message, without a reply. guardedStdio sits between
// the client and it: each line that is not JSON gets JSON-RPC's parse
// error (-32700), each that is JSON but not a message its invalid request
// error (-32600), both with a null id as the specification says, and a
// line on stderr; the session goes on with the next line. Replies and
// these errors are written to stdout a line at a time, under one lock.
// The SDK also ends the session as soon as the input ends, dropping the
// answers still being worked out; here the input ends for it once they
// are written.

// maxMCPLine bounds a line read from the client, as the SDK's own reader
// does (mcp.DefaultMaxLineLength).
const maxMCPLine = mcp.DefaultMaxLineLength

// lockedWriter makes each Write whole: the SDK writes a message and its
// newline in one call. The responses it writes settle their calls.
type lockedWriter struct {
	mu    sync.Mutex
	w     io.Writer
	calls *pendingCalls
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if l.calls != nil {
		if msgs, derr := decodeMCPLine(bytes.TrimSpace(p)); derr == nil {
			l.calls.answered(msgs)
		}
	}
	return n, err
}

func (*lockedWriter) Close() error { return nil }

// pendingCalls are the requests passed on and not yet answered: a client
// that writes its requests and closes its end (a script piping to
// `docmind mcp`) still gets every answer before the session ends.
type pendingCalls struct {
	mu   sync.Mutex
	ids  map[any]bool
	done chan struct{} // closed when ids empties after the input ended
	end  bool
}

func newPendingCalls() *pendingCalls {
	return &pendingCalls{ids: map[any]bool{}, done: make(chan struct{})}
}

// asked records the requests among msgs, and forgets those a
// notifications/cancelled names (a cancelled request gets no answer).
func (c *pendingCalls) asked(msgs []jsonrpc.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range msgs {
		r, ok := m.(*jsonrpc.Request)
		switch {
		case !ok:
		case r.ID.IsValid():
			c.ids[r.ID.Raw()] = true
		case r.Method == "notifications/cancelled":
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(r.Params, &p) == nil {
				if id, err := jsonrpc.MakeID(p.RequestID); err == nil && id.IsValid() {
					delete(c.ids, id.Raw())
				}
			}
		}
	}
	c.settle()
}

// answered settles the requests msgs respond to.
func (c *pendingCalls) answered(msgs []jsonrpc.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range msgs {
		if r, ok := m.(*jsonrpc.Response); ok && r.ID.IsValid() {
			delete(c.ids, r.ID.Raw())
		}
	}
	c.settle()
}

// ended says the input ended; done closes once every call is answered.
func (c *pendingCalls) ended() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.end = true
	c.settle()
	return c.done
}

func (c *pendingCalls) settle() {
	if c.end && len(c.ids) == 0 {
		select {
		case <-c.done:
		default:
			close(c.done)
		}
	}
}

// guardedStdio returns the transport for `docmind mcp` over in and out,
// reporting rejected lines on errw. When in ends, the session ends once
// the requests read are answered, or after grace (a run's deadline), or
// when ctx ends.
func guardedStdio(ctx context.Context, in io.Reader, out, errw io.Writer, grace time.Duration) *mcp.IOTransport {
	calls := newPendingCalls()
	w := &lockedWriter{w: out, calls: calls}
	pr, pw := io.Pipe()
	go func() {
		err := filterMCPLines(in, pw, w, errw, calls)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-calls.ended():
		case <-t.C:
		case <-ctx.Done():
		}
		pw.CloseWithError(err)
	}()
	return &mcp.IOTransport{Reader: pr, Writer: w}
}

// filterMCPLines copies the JSON-RPC messages of in to pass, a line each
// (recording their requests in calls, when not nil), and answers every
// other non-blank line on reply. It returns in's error, or nil at its
// end.
func filterMCPLines(in io.Reader, pass io.Writer, reply, errw io.Writer, calls *pendingCalls) error {
	r := bufio.NewReaderSize(in, 64<<10)
	n := 0
	for {
		line, tooLong, err := readMCPLine(r)
		if err == nil || len(line) > 0 || tooLong {
			n++ // every line counts, blank ones too
		}
		if len(line) > 0 || tooLong {
			code, msg := 0, ""
			switch trimmed := bytes.TrimSpace(line); {
			case tooLong:
				code, msg = -32700, fmt.Sprintf("Parse error: line longer than %d bytes", maxMCPLine)
			case len(trimmed) == 0:
			case !json.Valid(trimmed):
				code, msg = -32700, "Parse error: the line is not JSON"
			default:
				msgs, derr := decodeMCPLine(trimmed)
				if derr != nil {
					code, msg = -32600, "Invalid Request: "+derr.Error()
					break
				}
				if calls != nil {
					calls.asked(msgs)
				}
				if _, werr := pass.Write(append(trimmed, '\n')); werr != nil {
					return nil // the session ended
				}
			}
			if code != 0 {
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
				if _, werr := reply.Write(append(b, '\n')); werr != nil {
					return werr
				}
				fmt.Fprintf(errw, "docmind: mcp: line %d ignored: %s\n", n, msg)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readMCPLine reads one line without its newline; tooLong says it ran
// over maxMCPLine, and then holds none of it (the rest is read and
// dropped).
func readMCPLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxMCPLine+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// decodeMCPLine reads a line as the SDK will: a JSON-RPC message, or a
// batch of them.
func decodeMCPLine(b []byte) ([]jsonrpc.Message, error) {
	var batch []json.RawMessage
	if json.Unmarshal(b, &batch) == nil {
		if len(batch) == 0 {
			return nil, fmt.Errorf("empty batch")
		}
		var out []jsonrpc.Message
		for _, raw := range batch {
			m, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return out, nil
	}
	m, err := jsonrpc.DecodeMessage(b)
	if err != nil {
		return nil, err
	}
	return []jsonrpc.Message{m}, nil
}
