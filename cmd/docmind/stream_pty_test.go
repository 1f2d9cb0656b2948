//go:build linux

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/llm/openaitest"
)

// openPTY opens a pseudo-terminal pair (Linux /dev/ptmx), skipping the
// test when the system has none.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		m.Close()
		t.Skipf("unlock pseudo-terminal: %v", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		m.Close()
		t.Skipf("pseudo-terminal number: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// runOnTerminal runs the built command with stdout and stderr on one
// pseudo-terminal, as in a user's shell, and returns what the terminal
// showed (escape sequences and carriage returns removed).
func runOnTerminal(t *testing.T, env []string, args ...string) (screen string, code int) {
	t.Helper()
	master, slave := openPTY(t)
	cmd := exec.Command(binPath, args...)
	cmd.Dir = testenv.RepoRoot(t)
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "XDG_CACHE_HOME=" + cacheDir(t)}, env...)
	cmd.Stdout, cmd.Stderr = slave, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close() // the child holds its own copies; EOF (EIO) when it exits
	out := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(master) // ends with EIO once the child is gone
		out <- b
	}()
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running docmind: %v", err)
	}
	screen = string(<-out)
	screen = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]").ReplaceAllString(screen, "")
	return strings.ReplaceAll(screen, "\r", ""), code
}

// When the streamed draft breaks off mid-answer (the server drops the
// connection), the error starts on a line of its own; it used to be
// appended to the partial draft: "draft: If payment is docmind: ...".
func TestAskStreamBrokenMidAnswerOnTerminal(t *testing.T) {
	srv := openaitest.New(t)
	contractModel(t, srv, "1.5%")
	srv.Respond(func(req openaitest.Request) openaitest.Reply {
		if req.Route == openaitest.RouteGenerate && strings.Contains(req.Text(), "<documents>") {
			return openaitest.Reply{Content: "If payment is not received within thirty days a fee applies.", BreakAfter: 3}
		}
		return openaitest.Reply{Content: "late payment penalties late fee overdue amount"}
	})
	screen, code := runOnTerminal(t, llmEnv(srv), "ask", "--docs", "examples/contract", "What are the penalties?")
	if code != exitError {
		t.Errorf("exit %d, want %d; terminal:\n%s", code, exitError, screen)
	}
	if !strings.Contains(screen, "draft: If payment is ") {
		t.Fatalf("the partial draft was not streamed; terminal:\n%s", screen)
	}
	var errLine string
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "docmind: ") && !strings.Contains(l, "LLM mode") {
			errLine = l
		}
	}
	if errLine == "" {
		t.Fatalf("no error line; terminal:\n%s", screen)
	}
	if !strings.HasPrefix(errLine, "docmind: ") {
		t.Errorf("the error shares a line with the draft: %q; terminal:\n%s", errLine, screen)
	}
}
