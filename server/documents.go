package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"time"

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
		docs[i].Path = s.Show(docs[i].Path)
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
	sec.Source = s.Show(sec.Source)
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

// Upload limits: at most MaxUploads bodies are read at once (more get
// 429), each within Config.UploadTimeout, before the upload takes a run
// slot to be ingested; a slow client holds an upload place, never a run
// slot.
const (
	// DefaultMaxUploads is how many upload bodies are read at once.
	DefaultMaxUploads = 4
	// DefaultUploadTimeout bounds reading one upload's body.
	DefaultUploadTimeout = 2 * time.Minute
)

// errUploadsBusy is why an upload found no place.
var errUploadsBusy = errors.New("too many uploads at once: try again shortly")

// uploadDocuments answers POST /api/v1/documents: each multipart "file"
// part is saved in Config.UploadDir and ingested into the index (a file
// of the same name replaces the earlier upload). The answer is one JSON
// Uploaded (201), or, when the client accepts text/event-stream, the
// ingest's progress as server-sent events (see uploadEvents).
//
// The body is read first, into hidden files of the upload directory,
// under an upload place and its own deadline; then the upload takes a
// run slot and is ingested as one unit, to its end even when the client
// leaves: afterwards each of its files is in the upload directory and
// the index, or in neither (reconcile).
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
	staged, ok := s.receiveUpload(w, r, mr)
	if !ok {
		return
	}
	defer staged.discard()
	release, ok := s.slot(w, r)
	if !ok {
		return
	}
	defer release()
	// the unit goes to its end once begun: the client's leaving does not
	// cut it (Shutdown and the run timeout still do)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), s.cfg.RunTimeout)
	defer cancel()
	s.uploads.Lock()
	defer s.uploads.Unlock()
	saved, err := staged.install()
	defer func() { s.reconcile(ctx, saved) }()
	if err != nil {
		s.internal(w, "save the upload", err)
		return
	}
	if !wantsEvents(r) {
		status, body := s.ingestUpload(ctx, saved, ingest.Options{})
		writeJSON(w, status, body)
		return
	}
	out, stop := startStream(w)
	defer stop()
	status, body := s.ingestUpload(ctx, saved, uploadEvents(out, len(saved)))
	if status != http.StatusCreated {
		out.event("error", body)
		return
	}
	out.event("summary", body)
}

// receiveUpload reads an upload's body under an upload place and the
// upload deadline, or answers the error (429, 400, 408, 413) and reports
// false, leaving no file behind.
func (s *Server) receiveUpload(w http.ResponseWriter, r *http.Request, mr *multipart.Reader) (*stagedUpload, bool) {
	select {
	case s.receiving <- struct{}{}:
		defer func() { <-s.receiving }()
	default:
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, errUploadsBusy.Error())
		return nil, false
	}
	// the body's own deadline, in place of the server's read timeout
	deadline := time.Now().Add(s.cfg.UploadTimeout)
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(deadline)
	staged, ok := s.receive(w, mr, deadline)
	if ok {
		// all read: no deadline while the upload waits and is ingested
		rc.SetReadDeadline(time.Time{})
	}
	return staged, ok
}

// stagedUpload is an upload whose files are read into hidden files of
// the upload directory, not yet in place.
type stagedUpload struct {
	dir   string
	names []string // the files' names
	tmps  []string // their hidden files
}

// install moves the staged files to their names in the upload directory
// and returns their paths (those moved, also on error).
func (u *stagedUpload) install() ([]string, error) {
	var paths []string
	for i, tmp := range u.tmps {
		path := filepath.Join(u.dir, u.names[i])
		if err := os.Rename(tmp, path); err != nil {
			return paths, err
		}
		u.tmps[i] = ""
		paths = append(paths, path)
	}
	return paths, nil
}

// discard removes the hidden files not installed.
func (u *stagedUpload) discard() {
	for _, tmp := range u.tmps {
		if tmp != "" {
			os.Remove(tmp)
		}
	}
}

// stagingPrefix starts the names of the hidden files of uploads being
// received; a file of this name in the upload directory is a leftover.
const stagingPrefix = ".upload-"

// receive saves the "file" parts of an upload as hidden files of the
// upload directory, or answers the error (400, 408, 413) and reports
// false, leaving no file behind.
func (s *Server) receive(w http.ResponseWriter, mr *multipart.Reader, deadline time.Time) (*stagedUpload, bool) {
	if err := os.MkdirAll(s.cfg.UploadDir, 0o700); err != nil {
		s.internal(w, "create the upload directory", err)
		return nil, false
	}
	u := &stagedUpload{dir: s.cfg.UploadDir}
	fail := func(err error) (*stagedUpload, bool) {
		u.discard()
		// the rest of the body is not read
		w.Header().Set("Connection", "close")
		if !time.Now().Before(deadline) {
			writeError(w, http.StatusRequestTimeout, fmt.Sprintf("the upload was not received within %s", s.cfg.UploadTimeout))
			return nil, false
		}
		s.uploadError(w, err)
		return nil, false
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		if part.FormName() != "file" {
			part.Close()
			continue
		}
		name := part.FileName()
		if !uploadName.MatchString(name) || strings.Contains(name, "..") {
			part.Close()
			u.discard()
			writeError(w, http.StatusBadRequest, fmt.Sprintf("file name %q: use letters, digits, '.', '_', '-' and spaces, not starting with '.' (at most 200)", name))
			return nil, false
		}
		tmp, err := s.stage(part)
		part.Close()
		if err != nil {
			return fail(err)
		}
		u.names = append(u.names, name)
		u.tmps = append(u.tmps, tmp)
	}
	if len(u.tmps) == 0 {
		writeError(w, http.StatusBadRequest, `no file: send each file in a multipart part named "file"`)
		return nil, false
	}
	return u, true
}

// ingestUpload ingests the saved files of an upload with opt's Started
// and Progress hooks, and returns the status and JSON of the answer:
// 201 and Uploaded, or an errorBody (422 when nothing was indexed, 500
// when the index failed). The caller reconciles the files with the index
// afterwards (skipped files leave the upload directory).
func (s *Server) ingestUpload(ctx context.Context, saved []string, opt ingest.Options) (int, any) {
	ctx, stop := s.interruptible(ctx)
	defer stop()
	l, closeLoader := docmind.NewLoader()
	defer closeLoader()
	opt.Parser = ingest.LoaderParser(l)
	sum, err := ingest.Run(ctx, s.cfg.Index, saved, opt)
	if err != nil {
		return errorStatus(err), s.internalError("ingest the upload", err)
	}
	out := Uploaded{Ingest: sum, Documents: []index.Document{}}
	var skipped []string
	for i, res := range sum.Results {
		if res.Status == ingest.Skipped {
			skipped = append(skipped, filepath.Base(res.Path)+": "+res.Reason)
		}
		sum.Results[i].Path = s.Show(res.Path)
		if doc, ok, err := s.cfg.Index.Document(ctx, res.Path); err == nil && ok && res.Status != ingest.Skipped {
			doc.Path = s.Show(doc.Path)
			out.Documents = append(out.Documents, doc)
		}
	}
	if len(out.Documents) == 0 && len(skipped) > 0 {
		return http.StatusUnprocessableEntity, errorBody{Error: oneLine("nothing indexed: " + strings.Join(skipped, "; "))}
	}
	return http.StatusCreated, out
}

// reconcile makes each upload path one unit with its index entry: a file
// without an up-to-date document in the index is removed (with the
// outdated document), and a document whose file is gone leaves the
// index. Errors are logged: the next start reconciles again. It returns
// how many uploads it removed.
func (s *Server) reconcile(ctx context.Context, paths []string) int {
	removed := 0
	for _, path := range paths {
		doc, indexed, err := s.cfg.Index.Document(ctx, path)
		if err != nil {
			s.cfg.Logger.Error("server: reconcile an upload", "file", filepath.Base(path), "err", err)
			continue
		}
		if indexed && sameHash(path, doc.Hash) {
			continue
		}
		removed++
		os.Remove(path)
		if indexed {
			if _, err := s.cfg.Index.DeleteDocument(ctx, path); err != nil {
				s.cfg.Logger.Error("server: reconcile an upload", "file", filepath.Base(path), "err", err)
			}
		}
	}
	return removed
}

// sameHash reports whether the file at path has the SHA-256 hash (hex).
func sameHash(path, hash string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == hash
}

// ReconcileUploads brings the upload directory and the index into step
// after a crash (docmind serve calls it at start): hidden files of
// uploads being received are removed, and so is each upload whose file
// or up-to-date index entry is missing: an upload is in both or in
// neither. It returns how many uploads it removed.
func (s *Server) ReconcileUploads(ctx context.Context) (int, error) {
	if s.cfg.UploadDir == "" || s.cfg.Index == nil {
		return 0, nil
	}
	s.uploads.Lock()
	defer s.uploads.Unlock()
	entries, err := os.ReadDir(s.cfg.UploadDir)
	if err != nil && !os.IsNotExist(err) {
		return 0, err
	}
	paths := map[string]bool{}
	for _, e := range entries {
		path := filepath.Join(s.cfg.UploadDir, e.Name())
		if strings.HasPrefix(e.Name(), stagingPrefix) {
			os.Remove(path)
			continue
		}
		if e.Type().IsRegular() {
			paths[path] = true
		}
	}
	docs, err := s.cfg.Index.Documents(ctx)
	if err != nil {
		return 0, err
	}
	for _, d := range docs {
		if s.isUpload(d.Path) {
			paths[d.Path] = true
		}
	}
	list := make([]string, 0, len(paths))
	for p := range paths {
		list = append(list, p)
	}
	return s.reconcile(ctx, list), ctx.Err()
}

// isUpload reports whether path is a file of the upload directory.
func (s *Server) isUpload(path string) bool {
	return s.cfg.UploadDir != "" && filepath.Dir(path) == filepath.Clean(s.cfg.UploadDir)
}

// Show is how the server's replies show a document's path: an upload by its name
// under "uploads/", another as Config.ShowSource shows it.
func (s *Server) Show(path string) string {
	if s.isUpload(path) {
		return "uploads/" + filepath.Base(path)
	}
	return s.cfg.ShowSource(path)
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

// stage writes an uploaded file as a hidden file of the upload
// directory and returns its path (nothing is left when it fails).
func (s *Server) stage(r io.Reader) (string, error) {
	tmp, err := os.CreateTemp(s.cfg.UploadDir, stagingPrefix+"*")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(tmp, r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
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
	if s.isUpload(doc.Path) {
		os.Remove(doc.Path)
	}
	doc.Path = s.Show(doc.Path)
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
