// Package providers builds DocMind's LLM models from the configuration LLM
// command-line users already know: OPENAI_API_KEY, OPENAI_BASE_URL,
// ANTHROPIC_API_KEY, OLLAMA_HOST, DOCMIND_MODEL and DOCMIND_JUDGE_MODEL,
// overridden by explicit flags (provider, model, judge model, base URL,
// timeout). With nothing configured it returns no models, and DocMind runs
// its offline engine. EmbedderFromEnv likewise builds the optional
// embedder for hybrid (BM25 + dense) retrieval from DOCMIND_EMBED_MODEL.
//
// Every model it returns is wrapped with llm.Retry (transient failures
// retried with backoff, one-line errors). OpenAI and OpenAI-compatible
// endpoints go through llm/openai (go-openai); Anthropic and Ollama through
// langchaingo's clients, with llm.Transport so their HTTP errors are typed.
package providers

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/ollama"

	"github.com/docmind/docmind/internal/redact"
	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/llm/openai"
)

// Provider names.
const (
	OpenAI    = "openai"
	Anthropic = "anthropic"
	Ollama    = "ollama"
	// Offline forces the offline engine even when keys are set.
	Offline = "offline"
)

// Default models per provider, used when neither Config.Model nor
// DOCMIND_MODEL names one.
var defaultModels = map[string]string{
	OpenAI:    "gpt-4o-mini",
	Anthropic: "claude-3-5-haiku-latest",
	Ollama:    "llama3.2",
}

// DefaultModel returns the model used for provider when none is
// configured.
func DefaultModel(provider string) string { return defaultModels[provider] }

// OllamaContext is the context window (num_ctx, in tokens) asked of an
// Ollama model. Ollama's own default (2,048 tokens in many releases)
// silently drops the start of a prompt that holds the question's ten
// sections (docmind.LLMSections) and the instructions. The default model,
// llama3.2, was trained on 128k tokens; 8,192 keeps the memory Ollama
// reserves for the window small.
const OllamaContext = 8192

// DefaultTimeout is the per-call timeout when Config.Timeout is 0.
const DefaultTimeout = 120 * time.Second

// Config holds explicit settings (from CLI flags or library code); each
// non-empty field wins over the environment.
type Config struct {
	// Provider is "openai", "anthropic", "ollama", "offline" or "" to pick
	// from the environment: OPENAI_BASE_URL or OPENAI_API_KEY → openai,
	// else ANTHROPIC_API_KEY → anthropic, else OLLAMA_HOST → ollama, else
	// offline.
	Provider string
	// Model is the main model (decomposer, generator, query rewriter);
	// default DOCMIND_MODEL, then DefaultModel(provider).
	Model string
	// JudgeModel is the judge's model; default DOCMIND_JUDGE_MODEL, then
	// Model.
	JudgeModel string
	// BaseURL overrides OPENAI_BASE_URL, ANTHROPIC_BASE_URL or OLLAMA_HOST.
	BaseURL string
	// APIKey overrides OPENAI_API_KEY or ANTHROPIC_API_KEY.
	APIKey string
	// EmbedModel is the embedding model for EmbedderFromEnv (for example
	// "text-embedding-3-small" or "nomic-embed-text"); default
	// DOCMIND_EMBED_MODEL; none means no embeddings (BM25 only).
	EmbedModel string
	// EmbedBaseURL is a separate OpenAI-compatible endpoint for
	// embeddings (default DOCMIND_EMBED_BASE_URL); empty means the chat
	// endpoint's. EmbedAPIKey is its key (default DOCMIND_EMBED_API_KEY);
	// the chat key is never sent to a separate embeddings server, except
	// OpenAI's own API, which gets OPENAI_API_KEY when no embeddings key
	// is set.
	EmbedBaseURL, EmbedAPIKey string
	// Timeout bounds each LLM call; 0 means DefaultTimeout.
	Timeout time.Duration
	// Retry tunes retries (attempts, delays, sleep for tests); its Timeout
	// and Endpoint are filled in from this Config.
	Retry llm.RetryPolicy
	// Transport carries the HTTP requests; nil means
	// http.DefaultTransport. Tests point it at nothing special: the
	// scripted servers are reached through BaseURL.
	Transport http.RoundTripper
}

// Models is what FromEnv returns. Main and Judge are nil when nothing is
// configured (offline mode).
type Models struct {
	Main, Judge llms.Model
	// Provider is the provider used, or "" offline.
	Provider string
	// Name and JudgeName are the model names (for cost estimates).
	Name, JudgeName string
	// Endpoint names the service in messages ("OpenAI", "localhost:11434").
	Endpoint string
}

// Offline reports whether no LLM is configured.
func (m Models) Offline() bool { return m.Main == nil }

// Describe returns one line for stderr saying which mode runs and, offline,
// how to switch, for example "LLM mode: openai gpt-4o-mini (judge gpt-4o) at
// OpenAI".
func (m Models) Describe() string {
	if m.Offline() {
		return "offline mode (no LLM configured): set OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST, or pass --provider, to use an LLM"
	}
	s := fmt.Sprintf("LLM mode: %s %s", m.Provider, m.Name)
	if m.JudgeName != m.Name {
		s += fmt.Sprintf(" (judge %s)", m.JudgeName)
	}
	return s + " at " + m.Endpoint
}

// Known reports whether name is a provider FromEnv accepts (any case;
// "" picks one from the environment, "offline" or "none" runs without a
// model).
func Known(name string) bool {
	name = strings.ToLower(strings.TrimSpace(name))
	_, ok := defaultModels[name]
	return ok || name == "" || name == Offline || name == "none"
}

// FromEnv builds the models from cfg and the environment read through
// getenv (os.Getenv in the CLI; a map lookup in tests). It returns zero
// Models and no error when nothing is configured.
func FromEnv(getenv func(string) string, cfg Config) (Models, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	provider := strings.ToLower(strings.TrimSpace(cfg.Provider))
	if provider == "" {
		switch {
		case cfg.BaseURL != "" || env("OPENAI_BASE_URL") != "" || env("OPENAI_API_KEY") != "":
			provider = OpenAI
		case env("ANTHROPIC_API_KEY") != "":
			provider = Anthropic
		case env("OLLAMA_HOST") != "":
			provider = Ollama
		default:
			return Models{}, nil
		}
	}
	if provider == Offline || provider == "none" {
		return Models{}, nil
	}
	if _, ok := defaultModels[provider]; !ok {
		return Models{}, fmt.Errorf("unknown LLM provider %q (use openai, anthropic, ollama or offline)", cfg.Provider)
	}
	name := firstNonEmpty(cfg.Model, env("DOCMIND_MODEL"), defaultModels[provider])
	judgeName := firstNonEmpty(cfg.JudgeModel, env("DOCMIND_JUDGE_MODEL"), name)

	var build func(model string) (llms.Model, error)
	var endpoint string
	switch provider {
	case OpenAI:
		baseURL, key, ep, err := openAISettings(cfg, env)
		if err != nil {
			return Models{}, err
		}
		endpoint = ep
		build = func(model string) (llms.Model, error) {
			return openai.New(openai.WithBaseURL(baseURL), openai.WithAPIKey(key), openai.WithModel(model),
				openai.WithHTTPClient(&http.Client{Transport: cfg.Transport}))
		}
	case Anthropic:
		key := firstNonEmpty(cfg.APIKey, env("ANTHROPIC_API_KEY"))
		redact.Add(key)
		if key == "" {
			return Models{}, errors.New("ANTHROPIC_API_KEY is not set")
		}
		baseURL := firstNonEmpty(cfg.BaseURL, env("ANTHROPIC_BASE_URL"), "https://api.anthropic.com/v1")
		endpoint = hostName(baseURL, "api.anthropic.com", "Anthropic")
		build = func(model string) (llms.Model, error) {
			return anthropic.New(anthropic.WithToken(key), anthropic.WithModel(model), anthropic.WithBaseURL(strings.TrimSuffix(baseURL, "/")),
				anthropic.WithHTTPClient(llm.HTTPClient(cfg.Transport)))
		}
	case Ollama:
		host, err := OllamaURL(firstNonEmpty(cfg.BaseURL, env("OLLAMA_HOST")))
		if err != nil {
			return Models{}, err
		}
		endpoint = "Ollama at " + host.Host
		build = func(model string) (llms.Model, error) {
			return ollama.New(ollama.WithModel(model), ollama.WithServerURL(host.String()),
				ollama.WithHTTPClient(llm.HTTPClient(cfg.Transport)), ollama.WithRunnerNumCtx(OllamaContext))
		}
	}

	policy := retryPolicy(cfg, endpoint)
	wrap := func(model string) (llms.Model, error) {
		m, err := build(model)
		if err != nil {
			return nil, fmt.Errorf("setting up %s model %q: %w", provider, model, err)
		}
		return llm.WithRetry(llm.SeparateThinking(m), policy), nil
	}
	main, err := wrap(name)
	if err != nil {
		return Models{}, err
	}
	judge := main
	if judgeName != name {
		if judge, err = wrap(judgeName); err != nil {
			return Models{}, err
		}
	}
	return Models{Main: main, Judge: judge, Provider: provider, Name: name, JudgeName: judgeName, Endpoint: endpoint}, nil
}

// retryPolicy is cfg.Retry with the timeout and endpoint filled in.
func retryPolicy(cfg Config, endpoint string) llm.RetryPolicy {
	p := cfg.Retry
	p.Timeout = cfg.Timeout
	if p.Timeout <= 0 {
		p.Timeout = DefaultTimeout
	}
	p.Endpoint = endpoint
	return p
}

// openAISettings resolves the base URL, API key and endpoint name of an
// OpenAI-compatible provider from cfg and the environment.
func openAISettings(cfg Config, env func(string) string) (baseURL, key, endpoint string, err error) {
	baseURL = firstNonEmpty(cfg.BaseURL, env("OPENAI_BASE_URL"), openai.DefaultBaseURL)
	key = firstNonEmpty(cfg.APIKey, env("OPENAI_API_KEY"))
	if key == "" && isOfficialOpenAI(baseURL) {
		return "", "", "", errors.New("OPENAI_API_KEY is not set (needed for api.openai.com; set OPENAI_BASE_URL for a local server)")
	}
	probe, err := openai.New(openai.WithBaseURL(baseURL))
	if err != nil {
		return "", "", "", fmt.Errorf("OPENAI_BASE_URL: %w", err)
	}
	return baseURL, key, probe.Endpoint(), nil
}

// OllamaURL reads OLLAMA_HOST the way the ollama CLI does: "host",
// "host:port" or a URL; default http://127.0.0.1:11434, and 0.0.0.0 (a
// listen address) means the local machine.
func OllamaURL(v string) (*url.URL, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		v = "127.0.0.1:11434"
	}
	if !strings.Contains(v, "://") {
		v = "http://" + v
	}
	u, err := url.Parse(v)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("OLLAMA_HOST %q is not a host, host:port or URL", v)
	}
	host, port := u.Hostname(), u.Port()
	if host == "" || host == "0.0.0.0" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "11434"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	u.Host = net.JoinHostPort(host, port)
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

func isOfficialOpenAI(baseURL string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && u.Host == "api.openai.com"
}

func hostName(baseURL, officialHost, officialName string) string {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return baseURL
	}
	if u.Host == officialHost {
		return officialName
	}
	return u.Host
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
