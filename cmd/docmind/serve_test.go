//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/internal/testenv"
)

func TestServeRefusesPublicAddressWithoutToken(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		r := runCLI(t, nil, "serve", "--docs", "examples/contract", "--addr", addr)
		if r.code != exitUsage {
			t.Fatalf("serve --addr %s: exit %d, want %d; stderr:\n%s", addr, r.code, exitUsage, r.stderr)
		}
		assertOneLineError(t, r, "is not a loopback address: pass --token")
	}
}

// serve --help, and the command list of docmind --help, name every way
// in: the web page at /, the JSON API, the OpenAI-compatible API and MCP
// at /mcp (they named only the two APIs).
func TestServeHelpNamesEveryWayIn(t *testing.T) {
	help := runInProcess(t, nil, "serve", "--help").stdout
	for _, want := range []string{"web page at /", "/api/v1/", "/v1/", "MCP at /mcp", "open http://127.0.0.1:8080"} {
		if !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
			t.Errorf("serve --help does not mention %q:\n%s", want, help)
		}
	}
	root := runInProcess(t, nil, "--help").stdout
	_, line, _ := strings.Cut(root, "\n  serve ")
	line, _, _ = strings.Cut(line, "\n")
	for _, want := range []string{"web page", "MCP"} {
		if !strings.Contains(line, want) {
			t.Errorf("docmind --help lists serve as %q, without %q", line, want)
		}
	}
}

// TestServeAnswersAndShutsDownGracefully starts docmind serve on a free
// loopback port, asks over the JSON API, and sends SIGTERM while an event
// stream is running: the stream finishes with its result, the process
// exits 0, and the runs are in the ledger the CLI reads.
func TestServeAnswersAndShutsDownGracefully(t *testing.T) {
	data := t.TempDir()
	cmd := exec.Command(binPath, "serve", "--docs", "examples/contract", "--addr", "127.0.0.1:0", "--data-dir", data)
	cmd.Dir = testenv.RepoRoot(t)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "XDG_CACHE_HOME=" + cacheDir(t)}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	defer func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
		}
	}()
	// The address is on the "serving on" line.
	lines := bufio.NewScanner(stderr)
	base := ""
	var log bytes.Buffer
	for base == "" && lines.Scan() {
		log.WriteString(lines.Text() + "\n")
		if _, after, ok := strings.Cut(lines.Text(), "serving on "); ok {
			base = strings.Fields(after)[0]
		}
	}
	if base == "" {
		t.Fatalf("no 'serving on' line; stderr:\n%s", log.String())
	}
	// It says where each way in is: the page, the two APIs and MCP.
	for _, want := range []string{"web page", "/api/v1/", "/v1/", "/mcp"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the 'serving on' line does not mention %s:\n%s", want, log.String())
		}
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(stderr)
		rest <- string(b)
	}()
	go func() { exited <- cmd.Wait() }()

	resp, err := http.Post(base+"/api/v1/ask", "application/json", strings.NewReader(`{"question": "What are the late payment penalties?"}`))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		FinalOutput string          `json:"final_output"`
		Run         *checkpoint.Run `json:"run"`
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || !strings.Contains(out.FinalOutput, "1.5%") || out.Run == nil {
		t.Fatalf("ask: %d %v %+v", resp.StatusCode, err, out)
	}

	// The same answer over MCP at /mcp (streamable HTTP).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "docmind-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("MCP at /mcp: %v", err)
	}
	if _, got := callAsk(ctx, t, cs, map[string]any{"question": "What are the late payment penalties?"}); !got.Answered || !strings.Contains(got.Answer, "1.5%") {
		t.Errorf("MCP ask at /mcp: %+v", got)
	}
	cs.Close()

	req, _ := http.NewRequest("POST", base+"/api/v1/ask", strings.NewReader(`{"question": "What is the warranty period?"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	// The stream has begun: stop the server.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	events, err := io.ReadAll(stream.Body)
	if err != nil {
		t.Fatalf("the stream was cut by the shutdown: %v\n%s", err, events)
	}
	if !bytes.Contains(events, []byte("event: result\ndata: ")) || !bytes.Contains(events, []byte("Unable to provide a confident response")) {
		t.Fatalf("the stream did not end with its result:\n%s", events)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("serve exited with %v after SIGTERM; stderr:\n%s%s", err, log.String(), <-rest)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve still running 20 s after SIGTERM")
	}
	tail := <-rest
	if !strings.Contains(tail, "docmind: shutting down") || !strings.HasSuffix(strings.TrimSpace(tail), "docmind: stopped") {
		t.Errorf("stderr after the signal:\n%s", tail)
	}

	// The three runs (two over the API, one over MCP) are in the ledger, done.
	r := runCLI(t, nil, "runs", "ls", "--json", "--data-dir", data)
	var runs []checkpoint.Run
	if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil || len(runs) != 3 {
		t.Fatalf("runs ls: %v\n%s", err, r.stdout)
	}
	for _, run := range runs {
		if run.Status != checkpoint.StatusDone {
			t.Errorf("run %s is %s, want done", run.ID, run.Status)
		}
	}
}

// TestServeWithoutIndexStartsEmpty: `docmind serve` with no index yet
// (no --docs, nothing ingested) starts on a new, empty index and says so;
// a document uploaded through the API is then answered from.
func TestServeWithoutIndexStartsEmpty(t *testing.T) {
	cmd := exec.Command(binPath, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir())
	cmd.Dir = testenv.RepoRoot(t)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "XDG_CACHE_HOME=" + t.TempDir()}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	lines := bufio.NewScanner(stderr)
	base, empty := "", false
	var log bytes.Buffer
	for base == "" && lines.Scan() {
		log.WriteString(lines.Text() + "\n")
		empty = empty || strings.Contains(lines.Text(), "has no documents yet")
		if _, after, ok := strings.Cut(lines.Text(), "serving on "); ok {
			base = strings.Fields(after)[0]
		}
	}
	if base == "" || !empty {
		t.Fatalf("serve without an index did not start on an empty one; stderr:\n%s", log.String())
	}
	go io.Copy(io.Discard, stderr)

	contract, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "examples", "contract", "master-services-agreement.md"))
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "master-services-agreement.md")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(contract)
	mw.Close()
	resp, err := http.Post(base+"/api/v1/documents", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %d", resp.StatusCode)
	}
	resp, err = http.Post(base+"/api/v1/ask", "application/json", strings.NewReader(`{"question": "What are the late payment penalties?"}`))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		FinalOutput string `json:"final_output"`
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if err != nil || !strings.Contains(out.FinalOutput, "1.5%") {
		t.Fatalf("ask after the upload: %d %v %q", resp.StatusCode, err, out.FinalOutput)
	}
}
