package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/docmind/docmind/llm/openaitest"
)

// embedEnv is the environment of a user with an OpenAI-compatible
// endpoint (the scripted server) and an embedding model.
func embedEnv(srv *openaitest.Server, indexDir string, extra ...string) []string {
	return append([]string{"DOCMIND_INDEX=" + indexDir, "OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=test"}, extra...)
}

type indexStats struct {
	Sections       int    `json:"sections"`
	Vectors        int    `json:"vectors"`
	EmbeddingModel string `json:"embedding_model"`
	EmbeddingDim   int    `json:"embedding_dim"`
}

func statsOf(t *testing.T, env []string) indexStats {
	t.Helper()
	r := runCLI(t, env, "index", "stats", "--json")
	var st indexStats
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &st) != nil {
		t.Fatalf("index stats: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	return st
}

func TestIngestAndAskWithEmbeddings(t *testing.T) {
	srv := openaitest.New(t)
	srv.SetEmbeddingDim(32)
	dir := t.TempDir()
	env := embedEnv(srv, dir, "DOCMIND_EMBED_MODEL=test-embed")

	r := runCLI(t, env, "ingest", "examples/contract")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "2 indexed") {
		t.Fatalf("ingest: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "embeddings: test-embed (openai at 127.0.0.1:") {
		t.Errorf("ingest does not say which embeddings it uses: %s", r.stderr)
	}
	ingestCalls := srv.Calls(openaitest.RouteEmbeddings)
	if ingestCalls == 0 {
		t.Fatal("ingest did not call the embeddings endpoint")
	}
	if last, _ := srv.Last(openaitest.RouteEmbeddings); last.Body.Model != "test-embed" || last.Header.Get("Authorization") != "Bearer test" {
		t.Errorf("embeddings request: model %q, auth %q", last.Body.Model, last.Header.Get("Authorization"))
	}
	st := statsOf(t, env)
	if st.EmbeddingModel != "test-embed" || st.EmbeddingDim != 32 || st.Vectors == 0 || st.Vectors != st.Sections {
		t.Fatalf("stats %+v: want every section embedded by test-embed (32 dimensions)", st)
	}
	r = runCLI(t, env, "index", "stats")
	if !strings.Contains(r.stdout, "embeddings test-embed (32 dimensions, ") {
		t.Errorf("index stats text:\n%s", r.stdout)
	}

	// Offline answering, hybrid retrieval: the question is embedded, the
	// chat endpoint is never called (an unscripted chat call fails the test).
	r = runCLI(t, env, "ask", "--provider", "offline", "--json", "What are the late payment penalties?")
	if r.code != exitOK {
		t.Fatalf("ask: exit %d: %s", r.code, r.stderr)
	}
	if s := decodeState(t, r.stdout); !strings.Contains(s.Answer(), "1.5%") || !strings.Contains(s.Answer(), "page 8") {
		t.Errorf("answer: %q", s.Answer())
	}
	if srv.Calls(openaitest.RouteEmbeddings) <= ingestCalls {
		t.Error("ask did not embed the question")
	}
	if n := srv.Calls(openaitest.RouteGenerate); n != 0 {
		t.Errorf("offline ask made %d chat calls", n)
	}

	// Re-ingesting unchanged files embeds nothing.
	before := srv.Calls(openaitest.RouteEmbeddings)
	if r = runCLI(t, env, "ingest", "examples/contract"); r.code != exitOK || srv.Calls(openaitest.RouteEmbeddings) != before {
		t.Errorf("re-ingest: exit %d, %d new embeddings calls", r.code, srv.Calls(openaitest.RouteEmbeddings)-before)
	}

	// Without an embedding model, ask falls back to BM25 and says so.
	r = runCLI(t, embedEnv(srv, dir), "ask", "--provider", "offline", "--json", "What are the late payment penalties?")
	if r.code != exitOK || !strings.Contains(r.stderr, "BM25 only (pass --embed-model test-embed") {
		t.Errorf("ask without embed model: exit %d: %s", r.code, r.stderr)
	}
}

func TestEmbeddingModelMismatch(t *testing.T) {
	srv := openaitest.New(t)
	dir := t.TempDir()
	if r := runCLI(t, embedEnv(srv, dir), "ingest", "--embed-model", "test-embed", "examples/contract"); r.code != exitOK {
		t.Fatalf("ingest: exit %d: %s", r.code, r.stderr)
	}
	calls := srv.Calls(openaitest.RouteEmbeddings)
	const want = "was built with embeddings from test-embed, not other-embed; pass --embed-model test-embed or re-ingest into a new --index"
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"ask, flag", embedEnv(srv, dir), []string{"ask", "--provider", "offline", "--embed-model", "other-embed", "What is the notice period?"}, want},
		{"ask, env", embedEnv(srv, dir, "DOCMIND_EMBED_MODEL=other-embed"), []string{"ask", "--provider", "offline", "What is the notice period?"}, want},
		{"ingest, other model", embedEnv(srv, dir), []string{"ingest", "--embed-model", "other-embed", "examples/contract"}, want},
		{"ingest, no model", embedEnv(srv, dir), []string{"ingest", "examples/contract"},
			"was built with embeddings from test-embed; pass --embed-model test-embed or re-ingest into a new --index"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, tc.env, tc.args...)
			if r.code != exitError {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, exitError, r.stderr)
			}
			assertOneLineError(t, r, tc.want)
		})
	}
	if n := srv.Calls(openaitest.RouteEmbeddings); n != calls {
		t.Errorf("refused runs still called the embeddings endpoint %d times", n-calls)
	}
	if st := statsOf(t, embedEnv(srv, dir)); st.EmbeddingModel != "test-embed" || st.Vectors != st.Sections {
		t.Errorf("index changed by refused runs: %+v", st)
	}
}

func TestEmbeddingEndpointErrors(t *testing.T) {
	srv := openaitest.New(t)
	srv.Always(openaitest.RouteEmbeddings, openaitest.Reply{Status: 401, Message: "invalid key"})
	dir := t.TempDir()
	r := runCLI(t, embedEnv(srv, dir, "DOCMIND_EMBED_MODEL=test-embed"), "ingest", "examples/contract")
	if r.code != exitError {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// The first line says which embeddings run, the second why they failed.
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "docmind: ingest: embed ") || !strings.HasSuffix(lines[1], "rejected the API key (401)") {
		t.Errorf("stderr:\n%s", r.stderr)
	} else if n := strings.Count(lines[1], "examples/contract/"); n != 1 {
		t.Errorf("the error names the file %d times, want once: %s", n, lines[1])
	}
	if n := srv.Calls(openaitest.RouteEmbeddings); n != 1 {
		t.Errorf("embeddings calls %d, want 1 (401 is not retried, ingest stops)", n)
	}

	// An embedding model with no endpoint to call is an error, not a
	// silent BM25 fallback.
	r = runCLI(t, []string{"DOCMIND_INDEX=" + t.TempDir()}, "ingest", "--embed-model", "text-embedding-3-small", "examples/contract")
	if r.code != exitError {
		t.Fatalf("no endpoint: exit %d: %s", r.code, r.stderr)
	}
	assertOneLineError(t, r, "needs an embeddings endpoint")
}

// An index built without embeddings gets vectors for every section when
// it is next ingested with an embedding model, even though no file changed:
// otherwise hybrid search would silently see none of the earlier documents.
func TestIngestWithEmbeddingsBackfillsEarlierDocuments(t *testing.T) {
	srv := openaitest.New(t)
	srv.SetEmbeddingDim(16)
	dir := t.TempDir()
	if r := runCLI(t, embedEnv(srv, dir), "ingest", "examples/contract"); r.code != exitOK {
		t.Fatalf("ingest without embeddings: exit %d: %s", r.code, r.stderr)
	}
	if st := statsOf(t, embedEnv(srv, dir)); st.Vectors != 0 || st.Sections == 0 {
		t.Fatalf("stats before: %+v", st)
	}
	r := runCLI(t, embedEnv(srv, dir), "ingest", "--embed-model", "test-embed", "examples/contract")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "2 indexed") {
		t.Fatalf("ingest with embeddings: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	st := statsOf(t, embedEnv(srv, dir))
	if st.EmbeddingModel != "test-embed" || st.Vectors != st.Sections {
		t.Fatalf("stats after: %+v, want every section embedded", st)
	}
	// Now complete: the next ingest has nothing to do.
	before := srv.Calls(openaitest.RouteEmbeddings)
	r = runCLI(t, embedEnv(srv, dir), "ingest", "--embed-model", "test-embed", "examples/contract")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "0 indexed, 2 unchanged") || srv.Calls(openaitest.RouteEmbeddings) != before {
		t.Errorf("third ingest: exit %d, %d embeddings calls\n%s", r.code, srv.Calls(openaitest.RouteEmbeddings)-before, r.stdout)
	}
}

// Ingesting only some files with an embedding model says how many sections
// of the others still lack vectors, and how to fix it.
func TestIngestWarnsAboutOtherUnembeddedFiles(t *testing.T) {
	srv := openaitest.New(t)
	dir := t.TempDir()
	if r := runCLI(t, embedEnv(srv, dir), "ingest", "examples/contract"); r.code != exitOK {
		t.Fatalf("ingest: exit %d: %s", r.code, r.stderr)
	}
	r := runCLI(t, embedEnv(srv, dir), "ingest", "--embed-model", "test-embed", "examples/contract/master-services-agreement.md")
	if r.code != exitOK {
		t.Fatalf("partial ingest: exit %d: %s", r.code, r.stderr)
	}
	st := statsOf(t, embedEnv(srv, dir))
	if st.Vectors == 0 || st.Vectors >= st.Sections {
		t.Fatalf("stats %+v: want only msa.md embedded", st)
	}
	if !strings.Contains(r.stderr, "sections have no vectors") || !strings.Contains(r.stderr, "Ingest those files again with --embed-model") {
		t.Errorf("no warning about the other file:\n%s", r.stderr)
	}
}

// --embed-base-url (or DOCMIND_EMBED_BASE_URL) sends the embeddings to a
// server of their own while the chat model stays on OPENAI_BASE_URL.
func TestIngestAndAskWithSeparateEmbeddingsServer(t *testing.T) {
	chat, emb := openaitest.New(t), openaitest.New(t)
	emb.SetEmbeddingDim(16)
	contractModel(t, chat, "1.5%")
	dir := t.TempDir()
	env := append(llmEnv(chat), "DOCMIND_INDEX="+dir, "DOCMIND_EMBED_API_KEY=embed-secret-0001")
	if r := runCLI(t, env, "ingest", "--embed-model", "test-embed", "--embed-base-url", emb.URL, "examples/contract"); r.code != exitOK {
		t.Fatalf("ingest: exit %d\n%s", r.code, r.stderr)
	}
	ingested := emb.Calls(openaitest.RouteEmbeddings)
	r := runCLI(t, append(env, "DOCMIND_EMBED_BASE_URL="+emb.URL), "ask", "--embed-model", "test-embed", "What are the penalties?")
	if r.code != exitOK {
		t.Fatalf("ask: exit %d\n%s", r.code, r.stderr)
	}
	if ingested == 0 || emb.Calls(openaitest.RouteEmbeddings) <= ingested {
		t.Errorf("embeddings server got %d calls at ingest, %d in all: want both ingest and ask there", ingested, emb.Calls(openaitest.RouteEmbeddings))
	}
	if chat.Calls(openaitest.RouteEmbeddings) != 0 || chat.Calls(openaitest.RouteGenerate) == 0 {
		t.Errorf("chat server: %d embeddings calls (want 0), %d generate calls", chat.Calls(openaitest.RouteEmbeddings), chat.Calls(openaitest.RouteGenerate))
	}
	for _, req := range emb.Requests() {
		if got := req.Header.Get("Authorization"); got != "Bearer embed-secret-0001" {
			t.Errorf("embeddings request Authorization = %q", got)
		}
	}
}
