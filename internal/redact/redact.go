// Package redact removes secrets from text that leaves the process or is
// stored: error lines, logs and saved runs. It knows the API keys the
// process was configured with (Add) and recognises key-like and bearer
// tokens (sk-…, Bearer …) on its own, since an LLM server's error message
// may echo the key it was sent.
package redact

import (
	"io"
	"regexp"
	"strings"
	"sync"
)

// Mask replaces every secret.
const Mask = "[redacted]"

// minSecret is the length under which a configured key is not redacted:
// placeholder keys of local servers ("x", "ollama", "test") are no
// secrets, and replacing them would garble ordinary words.
const minSecret = 8

var (
	mu      sync.RWMutex
	secrets []string

	tokenRE = regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{8,}|(?i:\bbearer\s+)[A-Za-z0-9._~+/=\-]{8,}`)
)

// Add registers secrets (API keys) to redact from now on; empty and short
// values are ignored.
func Add(keys ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, k := range keys {
		k = strings.TrimSpace(k)
		if len(k) < minSecret {
			continue
		}
		known := false
		for _, s := range secrets {
			known = known || s == k
		}
		if !known {
			secrets = append(secrets, k)
		}
	}
}

// String returns s with the registered keys, sk-… tokens and bearer
// tokens replaced by Mask.
func String(s string) string {
	mu.RLock()
	for _, k := range secrets {
		s = strings.ReplaceAll(s, k, Mask)
	}
	mu.RUnlock()
	return tokenRE.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(strings.ToLower(m), "bearer") {
			return m[:len("bearer")] + " " + Mask
		}
		return Mask
	})
}

// Writer redacts every write to w. Each write is redacted on its own, so
// write whole lines (fmt.Fprintf, slog handlers and log do).
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

// Unwrap returns the writer written to (for terminal checks).
func (r writer) Unwrap() io.Writer { return r.w }

func (r writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
