package providers

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms/ollama"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/llm/openai"
)

// Embedding is what EmbedderFromEnv returns. Embedder is nil when no
// embedding model is configured: retrieval is then BM25 only.
type Embedding struct {
	// Embedder embeds texts, with retries (llm.RetryEmbedder).
	Embedder embeddings.Embedder
	// Model is the embedding model's name, as the index records it.
	Model string
	// Provider is "openai" or "ollama".
	Provider string
	// Endpoint names the service in messages.
	Endpoint string
}

// Enabled reports whether an embedder is configured.
func (e Embedding) Enabled() bool { return e.Embedder != nil }

// Describe returns one line for stderr, for example "embeddings:
// text-embedding-3-small (openai at OpenAI)".
func (e Embedding) Describe() string {
	if !e.Enabled() {
		return "embeddings: none (BM25 only)"
	}
	return fmt.Sprintf("embeddings: %s (%s at %s)", e.Model, e.Provider, e.Endpoint)
}

// EmbedderFromEnv builds the embedder of cfg.EmbedModel, else
// DOCMIND_EMBED_MODEL, and returns a zero Embedding when neither is set.
//
// A separate OpenAI-compatible embeddings endpoint (cfg.EmbedBaseURL, else
// DOCMIND_EMBED_BASE_URL, with cfg.EmbedAPIKey, else DOCMIND_EMBED_API_KEY)
// wins over everything below. Otherwise the endpoint is that of
// cfg.Provider when it is openai or ollama.
// Otherwise — no provider, "offline" (answer offline but retrieve with
// embeddings) or anthropic (which has no embeddings API) — it is picked
// from the environment: OPENAI_BASE_URL or OPENAI_API_KEY → the
// OpenAI-compatible /embeddings endpoint, else OLLAMA_HOST → Ollama. An
// embedding model without any endpoint is an error, not a silent BM25
// fallback. cfg.BaseURL and cfg.APIKey apply unless cfg.Provider is
// anthropic (they are then Anthropic's).
func EmbedderFromEnv(getenv func(string) string, cfg Config) (Embedding, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	model := firstNonEmpty(strings.TrimSpace(cfg.EmbedModel), env("DOCMIND_EMBED_MODEL"))
	if model == "" {
		return Embedding{}, nil
	}
	provider := strings.ToLower(strings.TrimSpace(cfg.Provider))
	embedURL := firstNonEmpty(strings.TrimSpace(cfg.EmbedBaseURL), env("DOCMIND_EMBED_BASE_URL"))
	switch {
	case embedURL != "":
		provider = OpenAI
	case provider == OpenAI || provider == Ollama:
	case provider == Anthropic:
		cfg.BaseURL, cfg.APIKey = "", ""
		provider = ""
	case provider == "" || provider == Offline || provider == "none":
		provider = ""
	default:
		return Embedding{}, fmt.Errorf("unknown LLM provider %q (use openai, anthropic, ollama or offline)", cfg.Provider)
	}
	if provider == "" {
		switch {
		case cfg.BaseURL != "" || env("OPENAI_BASE_URL") != "" || env("OPENAI_API_KEY") != "":
			provider = OpenAI
		case env("OLLAMA_HOST") != "":
			provider = Ollama
		default:
			return Embedding{}, fmt.Errorf("embedding model %q needs an embeddings endpoint: set OPENAI_API_KEY or OPENAI_BASE_URL (OpenAI-compatible) or OLLAMA_HOST", model)
		}
	}
	var client embeddings.EmbedderClient
	var endpoint string
	switch provider {
	case OpenAI:
		baseURL, key, ep, err := openAISettings(cfg, env)
		if embedURL != "" {
			baseURL, key, ep, err = embedSettings(embedURL, cfg, env)
		}
		if err != nil {
			return Embedding{}, err
		}
		m, err := openai.New(openai.WithBaseURL(baseURL), openai.WithAPIKey(key), openai.WithEmbeddingModel(model),
			openai.WithHTTPClient(&http.Client{Transport: cfg.Transport}))
		if err != nil {
			return Embedding{}, fmt.Errorf("setting up openai embedding model %q: %w", model, err)
		}
		client, endpoint = m, ep
	case Ollama:
		host, err := OllamaURL(firstNonEmpty(cfg.BaseURL, env("OLLAMA_HOST")))
		if err != nil {
			return Embedding{}, err
		}
		m, err := ollama.New(ollama.WithModel(model), ollama.WithServerURL(host.String()),
			ollama.WithHTTPClient(llm.HTTPClient(cfg.Transport)))
		if err != nil {
			return Embedding{}, fmt.Errorf("setting up ollama embedding model %q: %w", model, err)
		}
		client, endpoint = m, "Ollama at "+host.Host
	}
	e, err := embeddings.NewEmbedder(llm.WithEmbeddingRetry(client, retryPolicy(cfg, endpoint)))
	if err != nil {
		return Embedding{}, fmt.Errorf("setting up %s embedding model %q: %w", provider, model, err)
	}
	return Embedding{Embedder: e, Model: model, Provider: provider, Endpoint: endpoint}, nil
}

// embedSettings resolves the key and endpoint name of a separate
// embeddings endpoint (DOCMIND_EMBED_BASE_URL): its own key, or on OpenAI's
// API the chat key; other servers never get the chat key.
func embedSettings(baseURL string, cfg Config, env func(string) string) (url, key, endpoint string, err error) {
	key = firstNonEmpty(strings.TrimSpace(cfg.EmbedAPIKey), env("DOCMIND_EMBED_API_KEY"))
	if key == "" && isOfficialOpenAI(baseURL) {
		key = firstNonEmpty(cfg.APIKey, env("OPENAI_API_KEY"))
		if key == "" {
			return "", "", "", errors.New("DOCMIND_EMBED_API_KEY (or OPENAI_API_KEY) is not set (needed for embeddings from api.openai.com)")
		}
	}
	probe, err := openai.New(openai.WithBaseURL(baseURL))
	if err != nil {
		return "", "", "", fmt.Errorf("DOCMIND_EMBED_BASE_URL: %w", err)
	}
	return baseURL, key, probe.Endpoint(), nil
}
