package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// filterMCPLines passes messages on a line each and answers the rest:
// a line over maxMCPLine is dropped whole (not kept in memory) with a
// parse error, and the line after it still passes; CRLF endings and
// blank lines are fine.
func TestFilterMCPLines(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
	in := strings.Repeat("x", maxMCPLine+10) + "\n" + msg + "\r\n\n[]\n" + msg
	var pass, reply, errw bytes.Buffer
	if err := filterMCPLines(strings.NewReader(in), &pass, &reply, &errw, nil); err != nil {
		t.Fatal(err)
	}
	if want := msg + "\n" + msg + "\n"; pass.String() != want {
		t.Errorf("passed %q, want %q", pass.String(), want)
	}
	lines := strings.Split(strings.TrimSpace(reply.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"code":-32700`) || !strings.Contains(lines[0], "longer than") ||
		!strings.Contains(lines[1], `"code":-32600`) || !strings.Contains(lines[1], "empty batch") {
		t.Errorf("replies:\n%s", reply.String())
	}
	if !strings.Contains(errw.String(), "line 1 ignored") || !strings.Contains(errw.String(), "line 4 ignored") {
		t.Errorf("stderr:\n%s", errw.String())
	}
}

// The end of input waits for the requests read: an answer or a
// cancellation settles each; notifications are not waited for.
func TestPendingCalls(t *testing.T) {
	decode := func(s string) []jsonrpc.Message {
		t.Helper()
		msgs, err := decodeMCPLine([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return msgs
	}
	closed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	c := newPendingCalls()
	c.asked(decode(`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":"b","method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`))
	done := c.ended()
	c.answered(decode(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	if closed(done) {
		t.Fatal("ended with request b unanswered")
	}
	c.asked(decode(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b"}}`))
	if !closed(done) {
		t.Fatal("request b was cancelled, and the end still waits")
	}
}
