package server

import (
	"net/http"
	"strings"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/schema"
)

// noIndex answers the document endpoints of a server without an index.
func (s *Server) noIndex(w http.ResponseWriter) bool {
	if s.cfg.Index != nil {
		return false
	}
	writeError(w, http.StatusNotFound, "this server has no document index")
	return true
}

// listDocuments answers GET /api/v1/documents: the indexed documents
// (id, path, hash, size, mtime, format, pages, title, ingested_at,
// sections), by path; paths as answers show their sources.
func (s *Server) listDocuments(w http.ResponseWriter, r *http.Request) {
	if s.noIndex(w) {
		return
	}
	docs, err := s.cfg.Index.Documents(r.Context())
	if err != nil {
		s.internal(w, "list documents", err)
		return
	}
	if docs == nil {
		docs = []index.Document{}
	}
	for i := range docs {
		docs[i].Path = s.cfg.ShowSource(docs[i].Path)
	}
	writeJSON(w, http.StatusOK, docs)
}

// SectionText is the JSON of GET /api/v1/sections/{id}: the section (id,
// title, heading path, content, source, pages, ...), the length of its
// content in bytes (the unit of a Quote's offsets) and, given
// ?quote=TEXT, where that text occurs in the content.
type SectionText struct {
	schema.Section
	Length  int     `json:"length"`
	Matches []Quote `json:"matches,omitempty"`
}

// maxMatches bounds the matches of ?quote= returned.
const maxMatches = 100

// showSection answers GET /api/v1/sections/{id}.
func (s *Server) showSection(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !validID(w, "section", id) || s.noIndex(w) {
		return
	}
	sec, ok, err := s.cfg.Index.Section(r.Context(), id)
	if err != nil {
		s.internal(w, "read section", err)
		return
	}
	if !ok {
		writeError(w, http.StatusNotFound, "no section "+id+" in the index (section ids are in the citations and retrieved_sections of an answer)")
		return
	}
	sec.Source = s.cfg.ShowSource(sec.Source)
	out := SectionText{Section: sec, Length: len(sec.Content)}
	if q := r.URL.Query().Get("quote"); q != "" {
		for from := 0; len(out.Matches) < maxMatches; {
			i := strings.Index(sec.Content[from:], q)
			if i < 0 {
				break
			}
			start := from + i
			out.Matches = append(out.Matches, Quote{Text: q, Start: start, End: start + len(q)})
			from = start + len(q)
		}
	}
	writeJSON(w, http.StatusOK, out)
}
