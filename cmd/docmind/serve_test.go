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

// TestServeRefusesUnsafeNoAuth: without a token, serve neither listens
// beyond the loopback interface nor lets other origins in (--cors), and
// --no-auth with --token is a contradiction.
func TestServeRefusesUnsafeNoAuth(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--addr", "0.0.0.0:0"}, "is not a loopback address: it needs a token"},
		{[]string{"--addr", ":0"}, "is not a loopback address: it needs a token"},
		{[]string{"--cors", "*"}, "--cors * without a token"},
		{[]string{"--token", "abc"}, "--no-auth and --token contradict"},
	} {
		r := runCLI(t, nil, append([]string{"serve", "--docs", "examples/contract", "--no-auth"}, tc.args...)...)
		if r.code != exitUsage {
			t.Fatalf("serve --no-auth %v: exit %d, want %d; stderr:\n%s", tc.args, r.code, exitUsage, r.stderr)
		}
		assertOneLineError(t, r, tc.want)
	}
}

// served is a docmind serve process started by startServe.
type served struct {
	cmd *exec.Cmd
	// base is the server's URL, token the token of the URL it printed
	// ("" with --no-auth), log what it wrote until then.
	base, token string
	log         bytes.Buffer
	stderr      io.Reader
}

// startServe starts docmind serve on a free loopback port with args
// (and the environment env), and reads the URL it prints; the process is
// stopped when the test ends.
func startServe(t *testing.T, env []string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Dir = testenv.RepoRoot(t)
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "XDG_CACHE_HOME=" + cacheDir(t)}, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sv := &served{cmd: cmd, stderr: stderr}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	// The address is on the "serving on" line.
	lines := bufio.NewScanner(stderr)
	for sv.base == "" && lines.Scan() {
		sv.log.WriteString(lines.Text() + "\n")
		if _, after, ok := strings.Cut(lines.Text(), "serving on "); ok {
			url := strings.Fields(after)[0]
			sv.base, sv.token, _ = strings.Cut(url, "/#token=")
			sv.base = strings.TrimSuffix(sv.base, "/")
		}
	}
	if sv.base == "" {
		t.Fatalf("no 'serving on' line; stderr:\n%s", sv.log.String())
	}
	return sv
}

// do sends a request with the server's token.
func (sv *served) do(t *testing.T, method, path, contentType string, body io.Reader) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, sv.base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if sv.token != "" {
		req.Header.Set("Authorization", "Bearer "+sv.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// bearerTransport sends a token with every request.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// serve --help, and the command list of docmind --help, name every way
// in: the web page at /, the JSON API, the OpenAI-compatible API and MCP
// at /mcp (they named only the two APIs).
func TestServeHelpNamesEveryWayIn(t *testing.T) {
	help := runInProcess(t, nil, "serve", "--help").stdout
	for _, want := range []string{"web page at /", "/api/v1/", "/v1/", "MCP at /mcp", "http://127.0.0.1:8080/#token=", "--no-auth"} {
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

// serve and mcp read the SQLite index only: their help does not offer
// --store (it listed a flag they always refuse), and passing it, or
// $DOCMIND_STORE, is still refused in one line.
func TestServeAndMCPDoNotOfferStore(t *testing.T) {
	for _, name := range []string{"serve", "mcp"} {
		help := runInProcess(t, nil, name, "--help").stdout
		if strings.Contains(help, "--store") || !strings.Contains(help, "--index") {
			t.Errorf("%s --help lists --store (or no --index):\n%s", name, help)
		}
		for _, r := range []result{
			runInProcess(t, nil, name, "--store", "weaviate://127.0.0.1:1/Docs"),
			runInProcess(t, map[string]string{"DOCMIND_STORE": "weaviate://127.0.0.1:1/Docs"}, name),
		} {
			if r.code != exitUsage || r.stdout != "" {
				t.Fatalf("%s with a store: exit %d, want %d; stdout %q, stderr:\n%s", name, r.code, exitUsage, r.stdout, r.stderr)
			}
			assertOneLineError(t, r, name+" serves the SQLite index only")
		}
	}
}

// TestServeAnswersAndShutsDownGracefully starts docmind serve on a free
// loopback port, asks over the JSON API, and sends SIGTERM while an event
// stream is running: the stream finishes with its result, the process
// exits 0, and the runs are in the ledger the CLI reads.
func TestServeAnswersAndShutsDownGracefully(t *testing.T) {
	data := t.TempDir()
	sv := startServe(t, nil, "--docs", "examples/contract", "--data-dir", data)
	cmd, base, log := sv.cmd, sv.base, &sv.log
	exited := make(chan error, 1)
	// It says where each way in is: the page, the two APIs and MCP.
	for _, want := range []string{"web page", "/api/v1/", "/v1/", "/mcp"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the 'serving on' line does not mention %s:\n%s", want, log.String())
		}
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(sv.stderr)
		rest <- string(b)
	}()
	go func() { exited <- cmd.Wait() }()

	// A token is required by default: the one of the printed URL.
	if len(sv.token) < 32 {
		t.Fatalf("the URL printed carries no token: %s", log.String())
	}
	unauth, err := http.Post(base+"/api/v1/ask", "application/json", strings.NewReader(`{"question": "What are the late payment penalties?"}`))
	if err != nil {
		t.Fatal(err)
	}
	unauth.Body.Close()
	if unauth.StatusCode != http.StatusUnauthorized {
		t.Fatalf("ask without the token: %d, want 401", unauth.StatusCode)
	}
	resp := sv.do(t, "POST", "/api/v1/ask", "application/json", strings.NewReader(`{"question": "What are the late payment penalties?"}`))
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
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1, HTTPClient: &http.Client{Transport: bearerTransport(sv.token)}}, nil)
	if err != nil {
		t.Fatalf("MCP at /mcp: %v", err)
	}
	if _, got := callAsk(ctx, t, cs, map[string]any{"question": "What are the late payment penalties?"}); !got.Answered || !strings.Contains(got.Answer, "1.5%") {
		t.Errorf("MCP ask at /mcp: %+v", got)
	}
	// The session stays open through the shutdown: its client holds a
	// GET stream open for the server's messages, which used to hold the
	// shutdown for its whole wait.
	defer cs.Close()

	req, _ := http.NewRequest("POST", base+"/api/v1/ask", strings.NewReader(`{"question": "What is the warranty period?"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+sv.token)
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
// a document uploaded through the API is then answered from. It runs
// with --no-auth: no token is asked for.
func TestServeWithoutIndexStartsEmpty(t *testing.T) {
	sv := startServe(t, []string{"XDG_CACHE_HOME=" + t.TempDir()}, "--data-dir", t.TempDir(), "--no-auth")
	if !strings.Contains(sv.log.String(), "has no documents yet") || sv.token != "" || !strings.Contains(sv.log.String(), "without a token") {
		t.Fatalf("serve --no-auth without an index did not start on an empty one, without a token; stderr:\n%s", sv.log.String())
	}
	base := sv.base
	go io.Copy(io.Discard, sv.stderr)

	contract, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "examples", "contract", "master-services-agreement.md"))
	if err != nil {
		t.Fatal(err)
	}
	uploadNoAuth(t, base, "master-services-agreement.md", contract)
	resp, err := http.Post(base+"/api/v1/ask", "application/json", strings.NewReader(`{"question": "What are the late payment penalties?"}`))
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

// TestServeTokenKeptBesideTheIndex: the token serve generates on first
// start is kept, mode 0600, in serve-token beside the index, and the
// next start serves with the same one; a token file others can read is
// refused.
func TestServeTokenKeptBesideTheIndex(t *testing.T) {
	ix := filepath.Join(t.TempDir(), "index")
	args := []string{"--index", ix, "--data-dir", t.TempDir()}
	if r := runCLI(t, nil, "ingest", "--index", ix, "examples/contract"); r.code != 0 {
		t.Fatalf("ingest: %d %s", r.code, r.stderr)
	}
	first := startServe(t, nil, args...)
	// the documents show relative to their folder, not where they are
	resp := first.do(t, "GET", "/api/v1/documents", "", nil)
	docs, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(docs), `"path":"master-services-agreement.md"`) || strings.Contains(string(docs), testenv.RepoRoot(t)) {
		t.Errorf("documents: %d %s", resp.StatusCode, docs)
	}
	first.cmd.Process.Signal(syscall.SIGTERM)
	go io.Copy(io.Discard, first.stderr)
	first.cmd.Wait()
	fi, err := os.Stat(filepath.Join(ix, "serve-token"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("serve-token beside the index: %v %v", fi, err)
	}
	b, _ := os.ReadFile(filepath.Join(ix, "serve-token"))
	if strings.TrimSpace(string(b)) != first.token || first.token == "" {
		t.Fatalf("serve-token holds %q, the URL printed %q", b, first.token)
	}
	second := startServe(t, nil, args...)
	if second.token != first.token {
		t.Errorf("the second start serves with token %q, the first with %q", second.token, first.token)
	}
	// the scheme's case does not matter
	req, _ := http.NewRequest("GET", second.base+"/api/v1/runs", nil)
	req.Header.Set("Authorization", "bearer "+second.token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("lower-case bearer: %v %v", resp, err)
	}
	resp.Body.Close()
	second.cmd.Process.Signal(syscall.SIGTERM)
	go io.Copy(io.Discard, second.stderr)
	second.cmd.Wait()

	os.Chmod(filepath.Join(ix, "serve-token"), 0o644)
	r := runCLI(t, nil, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	if r.code == 0 || !strings.Contains(r.stderr, "is not a private regular file") {
		t.Errorf("serve with a readable token file: exit %d\n%s", r.code, r.stderr)
	}
}

// TestServedFolderKeepsItsUploads: a file uploaded to `serve --docs DIR`
// is answered by that server, not by a one-shot `ask --docs DIR` (whose
// cache is the folder's alone), and a server started on another index
// does not reconcile it away: the next `serve --docs DIR` still has it.
func TestServedFolderKeepsItsUploads(t *testing.T) {
	docs, data, cache := t.TempDir(), t.TempDir(), t.TempDir()
	contract, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "examples", "contract", "master-services-agreement.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "msa.md"), contract, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CACHE_HOME=" + cache, "DOCMIND_DATA_DIR=" + data}
	const q = "How long are zebra records kept?"
	ask := func(sv *served) string {
		t.Helper()
		resp, err := http.Post(sv.base+"/api/v1/ask", "application/json", strings.NewReader(`{"question": "`+q+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			FinalOutput string `json:"final_output"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out.FinalOutput
	}
	stop := func(sv *served) {
		t.Helper()
		sv.cmd.Process.Signal(syscall.SIGTERM)
		if err := sv.cmd.Wait(); err != nil {
			t.Fatalf("serve did not stop cleanly: %v", err)
		}
	}

	sv := startServe(t, env, "--docs", docs, "--no-auth")
	go io.Copy(io.Discard, sv.stderr)
	uploadNoAuth(t, sv.base, "records.md", []byte("# Records Retention\n\nZebra records are kept for seventeen (17) years after the zebra leaves the reserve.\n"))
	if got := ask(sv); !strings.Contains(got, "seventeen (17) years") {
		t.Fatalf("the server does not answer from its upload: %q", got)
	}
	stop(sv)

	// a one-shot ask over the folder answers from the folder alone
	r := runCLI(t, env, "ask", "--json", "--docs", docs, q)
	if r.code != exitFallback || strings.Contains(r.stdout, "records.md") || strings.Contains(r.stdout, "seventeen") {
		t.Errorf("ask --docs answered from the server's upload: exit %d\n%s", r.code, r.stdout)
	}

	// a server on the default index leaves the folder's uploads alone
	other := startServe(t, env, "--no-auth")
	go io.Copy(io.Discard, other.stderr)
	stop(other)
	sv = startServe(t, env, "--docs", docs, "--no-auth")
	go io.Copy(io.Discard, sv.stderr)
	if got := ask(sv); !strings.Contains(got, "seventeen (17) years") {
		t.Errorf("after a server on another index, the folder's upload is gone: %q", got)
	}
	stop(sv)
}

// uploadNoAuth uploads one file to a server started with --no-auth and
// fails the test unless it is indexed (201).
func uploadNoAuth(t *testing.T, base, name string, content []byte) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(content)
	mw.Close()
	resp, err := http.Post(base+"/api/v1/documents", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload %s: %d", name, resp.StatusCode)
	}
}
