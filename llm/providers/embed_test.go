package providers_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/llm/providers"
)

func TestEmbedderFromEnvSelection(t *testing.T) {
	tests := []struct {
		name         string
		env          map[string]string
		cfg          providers.Config
		wantModel    string
		wantProvider string
		wantEndpoint string
		wantErr      string
	}{
		{name: "nothing configured", env: map[string]string{"OPENAI_API_KEY": "sk"}},
		{name: "env model, openai key", env: map[string]string{"OPENAI_API_KEY": "sk", "DOCMIND_EMBED_MODEL": "text-embedding-3-small"},
			wantModel: "text-embedding-3-small", wantProvider: "openai", wantEndpoint: "OpenAI"},
		{name: "flag wins over env", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:8080/v1", "DOCMIND_EMBED_MODEL": "a"},
			cfg: providers.Config{EmbedModel: "b"}, wantModel: "b", wantProvider: "openai", wantEndpoint: "localhost:8080"},
		{name: "offline answering still embeds", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:8080/v1"},
			cfg: providers.Config{Provider: "offline", EmbedModel: "e"}, wantModel: "e", wantProvider: "openai", wantEndpoint: "localhost:8080"},
		{name: "anthropic chat, openai embeddings", env: map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "sk"},
			cfg: providers.Config{Provider: "anthropic", EmbedModel: "e", BaseURL: "https://anthropic.example"}, wantModel: "e", wantProvider: "openai", wantEndpoint: "OpenAI"},
		{name: "ollama host", env: map[string]string{"OLLAMA_HOST": "0.0.0.0", "DOCMIND_EMBED_MODEL": "nomic-embed-text"},
			wantModel: "nomic-embed-text", wantProvider: "ollama", wantEndpoint: "Ollama at 127.0.0.1:11434"},
		{name: "explicit ollama over openai env", env: map[string]string{"OPENAI_API_KEY": "sk"},
			cfg: providers.Config{Provider: "ollama", EmbedModel: "nomic-embed-text"}, wantModel: "nomic-embed-text", wantProvider: "ollama", wantEndpoint: "Ollama at 127.0.0.1:11434"},
		{name: "model without endpoint", env: map[string]string{"DOCMIND_EMBED_MODEL": "e"}, wantErr: "needs an embeddings endpoint"},
		{name: "anthropic only", env: map[string]string{"ANTHROPIC_API_KEY": "a"}, cfg: providers.Config{EmbedModel: "e"}, wantErr: "needs an embeddings endpoint"},
		{name: "official openai without key", cfg: providers.Config{Provider: "openai", EmbedModel: "e"}, wantErr: "OPENAI_API_KEY is not set"},
		{name: "unknown provider", cfg: providers.Config{Provider: "bogus", EmbedModel: "e"}, wantErr: "unknown LLM provider"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := providers.EmbedderFromEnv(envOf(tc.env), tc.cfg)
			if checkErr(t, err, tc.wantErr) {
				return
			}
			if e.Model != tc.wantModel || e.Provider != tc.wantProvider || e.Endpoint != tc.wantEndpoint || e.Enabled() != (tc.wantModel != "") {
				t.Errorf("got %+v (enabled %v), want model %q provider %q endpoint %q", e, e.Enabled(), tc.wantModel, tc.wantProvider, tc.wantEndpoint)
			}
			if !strings.Contains(e.Describe(), "embeddings: ") {
				t.Errorf("Describe() = %q", e.Describe())
			}
		})
	}
}

func TestEmbedderFromEnvOpenAIRoundTrip(t *testing.T) {
	srv := openaitest.New(t)
	srv.SetEmbeddingDim(16)
	rec := &openaitest.SleepRecorder{}
	e, err := providers.EmbedderFromEnv(envOf(map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "test", "DOCMIND_EMBED_MODEL": "test-embed"}),
		providers.Config{Provider: "offline", Retry: llm.RetryPolicy{Sleep: rec.Sleep}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Script(openaitest.RouteEmbeddings, openaitest.Reply{Status: 500})
	v, err := e.Embedder.EmbedQuery(context.Background(), "late payment")
	if err != nil || len(v) != 16 {
		t.Fatalf("EmbedQuery: %v, %d dims", err, len(v))
	}
	if srv.Calls(openaitest.RouteEmbeddings) != 2 || len(rec.Slept()) != 1 {
		t.Errorf("calls %d, waits %v: the 500 should be retried once", srv.Calls(openaitest.RouteEmbeddings), rec.Slept())
	}
	if last, _ := srv.Last(openaitest.RouteEmbeddings); last.Body.Model != "test-embed" {
		t.Errorf("model sent %q", last.Body.Model)
	}
}

func TestEmbedderFromEnvOllamaRoundTrip(t *testing.T) {
	s := &scripted{handlers: []http.HandlerFunc{
		statusReply(503, "", `{"error":"loading model"}`),
		statusReply(200, "", `{"embeddings":[[0.6,0.8,0]]}`),
		statusReply(200, "", `{"embeddings":[[0,0,1]]}`),
		statusReply(404, "", `{"error":"model \"nomic-embed-text\" not found, try pulling it first"}`),
	}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	rec := &openaitest.SleepRecorder{}
	e, err := providers.EmbedderFromEnv(envOf(map[string]string{"OLLAMA_HOST": srv.URL}),
		providers.Config{EmbedModel: "nomic-embed-text", Retry: llm.RetryPolicy{Sleep: rec.Sleep, BaseDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	vecs, err := e.Embedder.EmbedDocuments(ctx, []string{"a", "b"})
	if err != nil || len(vecs) != 2 || vecs[0][1] != 0.8 || vecs[1][2] != 1 {
		t.Fatalf("EmbedDocuments: %v %v", vecs, err)
	}
	s.mu.Lock()
	path, model := s.paths[1], s.bodies[1]["model"]
	s.mu.Unlock()
	if path != "/api/embed" || model != "nomic-embed-text" {
		t.Errorf("request %s model %v", path, model)
	}
	_, err = e.Embedder.EmbedQuery(ctx, "c")
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindBadRequest || !strings.Contains(err.Error(), "not found") {
		t.Errorf("404: %v", err)
	}
}

// checkErr fails the test unless err matches want ("" wants no error) and
// reports whether the case expected an error (and so is done).
func checkErr(t *testing.T, err error, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return false
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
	return true
}

// DOCMIND_EMBED_BASE_URL sends embeddings to their own server with their
// own key, whatever the chat endpoint is; the chat key never goes there.
func TestEmbedderSeparateEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name, embedKey, wantAuth string
		cfg                      providers.Config
	}{
		{name: "env, own key", embedKey: "embed-key-123456", wantAuth: "Bearer embed-key-123456"},
		{name: "env, no key", wantAuth: ""},
		{name: "flag", embedKey: "embed-key-123456", wantAuth: "Bearer embed-key-123456", cfg: providers.Config{Provider: "openai"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chat, emb := openaitest.New(t), openaitest.New(t)
			emb.SetEmbeddingDim(8)
			env := map[string]string{"OPENAI_BASE_URL": chat.URL, "OPENAI_API_KEY": "chat-key-abcdef", "DOCMIND_EMBED_MODEL": "test-embed",
				"DOCMIND_EMBED_API_KEY": tc.embedKey}
			cfg := tc.cfg
			if cfg.Provider == "" {
				env["DOCMIND_EMBED_BASE_URL"] = emb.URL
			} else {
				cfg.EmbedBaseURL = emb.URL
			}
			e, err := providers.EmbedderFromEnv(envOf(env), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Embedder.EmbedQuery(context.Background(), "late payment"); err != nil {
				t.Fatal(err)
			}
			if chat.Calls("") != 0 || emb.Calls(openaitest.RouteEmbeddings) != 1 {
				t.Errorf("chat server got %d calls, embeddings server %d; want 0 and 1", chat.Calls(""), emb.Calls(openaitest.RouteEmbeddings))
			}
			last, _ := emb.Last(openaitest.RouteEmbeddings)
			if got := last.Header.Get("Authorization"); strings.TrimSpace(got) != tc.wantAuth {
				t.Errorf("Authorization = %q, want %q", got, tc.wantAuth)
			}
			if want := strings.TrimPrefix(strings.TrimSuffix(emb.URL, "/v1"), "http://"); e.Endpoint != want {
				t.Errorf("endpoint = %q, want %q", e.Endpoint, want)
			}
		})
	}
}
