package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/ingest"
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

// DefaultMaxUploadBytes bounds an upload's body (POST documents).
const DefaultMaxUploadBytes = 32 << 20

// uploadName is what an uploaded file may be called.
var uploadName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._ -]{0,199}$`)

// Uploaded is the JSON of POST /api/v1/documents: what the ingest did
// with each file (as docmind ingest --json reports it) and the documents
// now in the index for the files that were indexed.
type Uploaded struct {
	Ingest    *ingest.Summary  `json:"ingest"`
	Documents []index.Document `json:"documents"`
}

// uploadDocuments answers POST /api/v1/documents: each multipart "file"
// part is saved in Config.UploadDir and ingested into the index (a file
// of the same name replaces the earlier upload). The answer is one JSON
// Uploaded (201), or, when the client accepts text/event-stream, the
// ingest's progress as server-sent events (see uploadEvents).
func (s *Server) uploadDocuments(w http.ResponseWriter, r *http.Request) {
	if s.noIndex(w) {
		return
	}
	if s.cfg.UploadDir == "" {
		writeError(w, http.StatusForbidden, "uploads are off on this server (no upload directory)")
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		writeError(w, http.StatusUnsupportedMediaType, "send the files as multipart/form-data, each in a part named \"file\": "+err.Error())
		return
	}
	release, ok := s.slot(w, r)
	if !ok {
		return
	}
	defer release()
	s.uploads.Lock()
	defer s.uploads.Unlock()
	saved, ok := s.receive(w, mr)
	if !ok {
		return
	}
	if !wantsEvents(r) {
		status, body := s.ingestUpload(r.Context(), saved, ingest.Options{})
		writeJSON(w, status, body)
		return
	}
	out, stop := startStream(w)
	defer stop()
	status, body := s.ingestUpload(r.Context(), saved, uploadEvents(out, len(saved)))
	if status != http.StatusCreated {
		out.event("error", body)
		return
	}
	out.event("summary", body)
}

// receive saves the "file" parts of an upload in the upload directory
// and returns their paths, or answers the error (400, 413) and reports
// false, leaving no file behind.
func (s *Server) receive(w http.ResponseWriter, mr *multipart.Reader) ([]string, bool) {
	if err := os.MkdirAll(s.cfg.UploadDir, 0o700); err != nil {
		s.internal(w, "create the upload directory", err)
		return nil, false
	}
	var saved []string
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.removeAll(saved)
			s.uploadError(w, err)
			return nil, false
		}
		if part.FormName() != "file" {
			part.Close()
			continue
		}
		name := part.FileName()
		if !uploadName.MatchString(name) || strings.Contains(name, "..") {
			part.Close()
			s.removeAll(saved)
			writeError(w, http.StatusBadRequest, fmt.Sprintf("file name %q: use letters, digits, '.', '_', '-' and spaces, not starting with '.' (at most 200)", name))
			return nil, false
		}
		path, err := s.save(name, part)
		part.Close()
		if err != nil {
			s.removeAll(saved)
			s.uploadError(w, err)
			return nil, false
		}
		saved = append(saved, path)
	}
	if len(saved) == 0 {
		writeError(w, http.StatusBadRequest, `no file: send each file in a multipart part named "file"`)
		return nil, false
	}
	return saved, true
}

// ingestUpload ingests the saved files of an upload with opt's Started
// and Progress hooks, and returns the status and JSON of the answer:
// 201 and Uploaded, or an errorBody (422 when nothing was indexed, 500
// when the index failed). Skipped files leave the upload directory.
func (s *Server) ingestUpload(ctx context.Context, saved []string, opt ingest.Options) (int, any) {
	ctx, stop := s.interruptible(ctx)
	defer stop()
	l, closeLoader := docmind.NewLoader()
	defer closeLoader()
	opt.Parser = ingest.LoaderParser(l)
	sum, err := ingest.Run(ctx, s.cfg.Index, saved, opt)
	if err != nil {
		s.removeAll(saved)
		return http.StatusInternalServerError, s.internalError("ingest the upload", err)
	}
	out := Uploaded{Ingest: sum, Documents: []index.Document{}}
	var skipped []string
	for i, res := range sum.Results {
		if res.Status == ingest.Skipped {
			os.Remove(res.Path)
			skipped = append(skipped, filepath.Base(res.Path)+": "+res.Reason)
		}
		sum.Results[i].Path = s.cfg.ShowSource(res.Path)
		if doc, ok, err := s.cfg.Index.Document(ctx, res.Path); err == nil && ok {
			doc.Path = s.cfg.ShowSource(doc.Path)
			out.Documents = append(out.Documents, doc)
		}
	}
	if len(out.Documents) == 0 && len(skipped) > 0 {
		return http.StatusUnprocessableEntity, errorBody{Error: oneLine("nothing indexed: " + strings.Join(skipped, "; "))}
	}
	return http.StatusCreated, out
}

// UploadEvent is the data of the per-file events of POST
// /api/v1/documents with Accept: text/event-stream: "started" as the
// file is read, then "indexed", "unchanged" or "skipped" (with the
// reason) once it is in the index or not. A final "summary" event
// carries the Uploaded JSON (or "error" carries {"error": ...}).
type UploadEvent struct {
	File   string `json:"file"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	Format string `json:"format,omitempty"`
	Pages  int    `json:"pages,omitempty"`
	// Sections is how many sections the file gave.
	Sections int `json:"sections,omitempty"`
	// FilesDone of FilesTotal are through the ingest.
	FilesDone  int `json:"files_done"`
	FilesTotal int `json:"files_total"`
}

// uploadEvents returns the ingest hooks that send an upload's progress
// to out.
func uploadEvents(out *sseWriter, total int) ingest.Options {
	return ingest.Options{
		Started: func(path string) {
			out.event("started", UploadEvent{File: filepath.Base(path), Status: "started", FilesTotal: total})
		},
		Progress: func(p ingest.Progress) {
			r := p.Last
			out.event(string(r.Status), UploadEvent{
				File: filepath.Base(r.Path), Status: string(r.Status), Reason: oneLine(r.Reason),
				Format: r.Format, Pages: r.Pages, Sections: r.Sections,
				FilesDone: p.FilesDone, FilesTotal: p.FilesTotal,
			})
		},
	}
}

// save writes an uploaded file into the upload directory (through a
// temporary file, so that a failed upload leaves no half file).
func (s *Server) save(name string, r io.Reader) (string, error) {
	tmp, err := os.CreateTemp(s.cfg.UploadDir, ".upload-*")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(tmp, r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	path := filepath.Join(s.cfg.UploadDir, name)
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return path, nil
}

// removeAll removes the files of an upload that failed.
func (s *Server) removeAll(paths []string) {
	for _, p := range paths {
		os.Remove(p)
	}
}

// uploadError answers an upload that could not be read.
func (s *Server) uploadError(w http.ResponseWriter, err error) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("upload too large: at most %d bytes", s.cfg.MaxUploadBytes))
		return
	}
	writeError(w, http.StatusBadRequest, "reading the upload: "+err.Error())
}

// deleteDocument answers DELETE /api/v1/documents/{id}: the document
// leaves the index (and an uploaded file its upload directory). A file of
// the --docs folder comes back when the server next starts.
func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request) {
	doc, ok := s.documentByID(w, r)
	if !ok {
		return
	}
	s.uploads.Lock()
	defer s.uploads.Unlock()
	if _, err := s.cfg.Index.DeleteDocument(r.Context(), doc.Path); err != nil {
		s.internal(w, "delete document", err)
		return
	}
	if s.cfg.UploadDir != "" && filepath.Dir(doc.Path) == filepath.Clean(s.cfg.UploadDir) {
		os.Remove(doc.Path)
	}
	doc.Path = s.cfg.ShowSource(doc.Path)
	writeJSON(w, http.StatusOK, map[string]any{"deleted": doc})
}

// documentByID finds the document of the request's {id} (the id GET
// documents lists), answering 400 or 404 when there is none.
func (s *Server) documentByID(w http.ResponseWriter, r *http.Request) (index.Document, bool) {
	raw := r.PathValue("id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid document id %q: ids are the numbers GET /api/v1/documents lists", raw))
		return index.Document{}, false
	}
	if s.noIndex(w) {
		return index.Document{}, false
	}
	docs, err := s.cfg.Index.Documents(r.Context())
	if err != nil {
		s.internal(w, "list documents", err)
		return index.Document{}, false
	}
	for _, d := range docs {
		if d.ID == id {
			return d, true
		}
	}
	writeError(w, http.StatusNotFound, fmt.Sprintf("no document %d in the index", id))
	return index.Document{}, false
}
