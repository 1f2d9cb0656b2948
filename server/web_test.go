package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestWebPage: / serves the embedded page with its script and style,
// locked down by a Content-Security-Policy; the page's files need no
// token (the page asks for it) while the API still does.
func TestWebPage(t *testing.T) {
	ts, _ := newServer(t, func(c *Config) { c.Token = "s3cret" })
	for path, want := range map[string]struct{ ctype, body string }{
		"/":        {"text/html; charset=utf-8", `<script src="/app.js" defer></script>`},
		"/app.js":  {"text/javascript; charset=utf-8", `"/api/v1/ask"`},
		"/app.css": {"text/css; charset=utf-8", ".hl {"},
	} {
		status, h, b := call(t, ts, "GET", path, "")
		if status != 200 || h.Get("Content-Type") != want.ctype || !strings.Contains(string(b), want.body) {
			t.Errorf("GET %s: %d %q, body without %q", path, status, h.Get("Content-Type"), want.body)
		}
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "default-src 'none'") || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: CSP %q, nosniff %q", path, csp, h.Get("X-Content-Type-Options"))
		}
	}
	// The page names nothing from another origin.
	for _, path := range []string{"/", "/app.js", "/app.css"} {
		_, _, b := call(t, ts, "GET", path, "")
		for _, ext := range []string{"http://", "https://", "//cdn", "@import"} {
			if strings.Contains(string(b), ext) {
				t.Errorf("%s refers to %q: the page must fetch nothing from elsewhere", path, ext)
			}
		}
	}
	status, _, b := call(t, ts, "GET", "/api/v1/runs", "")
	wantError(t, status, b, 401, "missing token")
	status, _, b = call(t, ts, "GET", "/index.html", "")
	wantError(t, status, b, 401, "missing token")
	status, _, b = call(t, ts, "POST", "/", "{}")
	wantError(t, status, b, 401, "missing token")
	status, _, b = call(t, ts, "POST", "/", "{}", "Authorization", "Bearer s3cret")
	wantError(t, status, b, 405, "use GET")
	status, _, b = call(t, ts, "GET", "/nothing", "", "Authorization", "Bearer s3cret")
	wantError(t, status, b, 404, "no endpoint /nothing")

	// Without a token the page is served to loopback hosts only.
	open, _ := newServer(t, nil)
	req, _ := http.NewRequest("GET", open.URL+"/", nil)
	req.Host = "attacker.example"
	resp, err := open.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	wantError(t, resp.StatusCode, b, 403, "not a loopback address")
}
