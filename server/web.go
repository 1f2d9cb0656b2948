package server

import (
	"embed"
	"net/http"
	"strconv"
)

// webFiles is the web page served at /: plain HTML, CSS and JavaScript,
// no build step, nothing fetched from elsewhere.
//
//go:embed web/index.html web/app.js web/app.css
var webFiles embed.FS

// webAssets maps the page's paths to its embedded files and their types.
var webAssets = map[string]struct{ file, contentType string }{
	"/":        {"web/index.html", "text/html; charset=utf-8"},
	"/app.js":  {"web/app.js", "text/javascript; charset=utf-8"},
	"/app.css": {"web/app.css", "text/css; charset=utf-8"},
}

// webPolicy is the page's Content-Security-Policy: its own script, style,
// API and page images only; no inline script, no other origin, no frames.
const webPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

// webAsset reports whether the request is for a file of the web page.
// The page holds no data, so it is served without the token: it asks
// for the token and sends it with every API call.
func webAsset(r *http.Request) bool {
	_, ok := webAssets[r.URL.Path]
	return ok && (r.Method == http.MethodGet || r.Method == http.MethodHead)
}

// serveWeb answers GET /, /app.js and /app.css.
func (s *Server) serveWeb(w http.ResponseWriter, r *http.Request) {
	a := webAssets[r.URL.Path]
	b, err := webFiles.ReadFile(a.file)
	if err != nil {
		s.internal(w, "read the embedded web page", err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", webPolicy)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(b)
	}
}
