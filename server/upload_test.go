package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
)

// uploadRequest is a POST /api/v1/documents of files (name → content)
// as multipart parts named "file".
func uploadRequest(t *testing.T, ts *httptest.Server, files ...[2]string) *http.Request {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range files {
		w, err := mw.CreateFormFile("file", f[0])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f[1]))
	}
	mw.Close()
	req, err := http.NewRequest("POST", ts.URL+"/api/v1/documents", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req
}

// upload posts files (name → content) and returns the answer.
func upload(t *testing.T, ts *httptest.Server, files ...[2]string) (int, []byte) {
	t.Helper()
	resp, err := ts.Client().Do(uploadRequest(t, ts, files...))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.Bytes()
}

const warrantyDoc = `# Product Warranty

## Warranty Period

The Provider warrants the Deliverables for a warranty period of twelve (12) months from acceptance.
`

// TestUploadAskDelete uploads a document the contract lacks, asks about
// it, and deletes it: the answer comes from the upload, then the
// question falls back again.
func TestUploadAskDelete(t *testing.T) {
	ix, _ := freshIndex(t, contractDir(t))
	uploads := t.TempDir()
	ts, _ := newServerOn(t, ix, func(c *Config) { c.UploadDir = uploads; c.MaxUploadBytes = 4096 })

	if out := ask(t, ts, `{"question": "`+warranty+`"}`); out.Answer() != schema.FallbackMessage {
		t.Fatalf("before the upload: %q", out.Answer())
	}
	status, b := upload(t, ts, [2]string{"warranty.md", warrantyDoc})
	if status != http.StatusCreated {
		t.Fatalf("upload: %d %s", status, b)
	}
	var up Uploaded
	if err := json.Unmarshal(b, &up); err != nil || up.Ingest == nil || up.Ingest.Indexed != 1 || len(up.Documents) != 1 || up.Documents[0].Sections == 0 {
		t.Fatalf("upload answer: %v %s", err, b)
	}
	if _, err := os.Stat(filepath.Join(uploads, "warranty.md")); err != nil {
		t.Fatalf("the upload is not in the upload directory: %v", err)
	}
	out := ask(t, ts, `{"question": "`+warranty+`"}`)
	if !out.Answered() || !strings.Contains(out.Answer(), "twelve (12) months") {
		t.Fatalf("after the upload: %q", out.Answer())
	}
	if len(out.Citations) == 0 || out.Citations[0].Title != "Warranty Period" {
		t.Fatalf("citations %+v, want the uploaded Warranty Period", out.Citations)
	}

	id := up.Documents[0].ID
	status, _, b = call(t, ts, "DELETE", fmt.Sprintf("/api/v1/documents/%d", id), "")
	if status != 200 {
		t.Fatalf("delete: %d %s", status, b)
	}
	if _, err := os.Stat(filepath.Join(uploads, "warranty.md")); !os.IsNotExist(err) {
		t.Errorf("the uploaded file is still there after delete: %v", err)
	}
	if out := ask(t, ts, `{"question": "`+warranty+`"}`); out.Answer() != schema.FallbackMessage {
		t.Fatalf("after the delete: %q", out.Answer())
	}
	status, _, b = call(t, ts, "DELETE", fmt.Sprintf("/api/v1/documents/%d", id), "")
	wantError(t, status, b, 404, fmt.Sprintf("no document %d", id))
	status, _, b = call(t, ts, "DELETE", "/api/v1/documents/abc", "")
	wantError(t, status, b, 400, "invalid document id")

	// Bad uploads.
	status, b = upload(t, ts, [2]string{"bad|name.md", warrantyDoc})
	wantError(t, status, b, 400, "file name")
	status, b = upload(t, ts, [2]string{".hidden.md", warrantyDoc})
	wantError(t, status, b, 400, "file name")
	status, b = upload(t, ts, [2]string{"big.md", strings.Repeat("word ", 2000)})
	wantError(t, status, b, 413, "at most 4096 bytes")
	status, b = upload(t, ts, [2]string{"blob.bin", "\x00\x01\x02\x03\xff\xfe binary"})
	wantError(t, status, b, 422, "nothing indexed: blob.bin")
	status, b = upload(t, ts)
	wantError(t, status, b, 400, "no file")
	status, _, b = call(t, ts, "POST", "/api/v1/documents", `{"file": "x"}`)
	wantError(t, status, b, 415, "multipart/form-data")
	if entries, _ := os.ReadDir(uploads); len(entries) != 0 {
		t.Errorf("failed uploads left files: %v", entries)
	}

	off, _ := newServerOn(t, ix, nil)
	status, b = upload(t, off, [2]string{"warranty.md", warrantyDoc})
	wantError(t, status, b, 403, "uploads are off")
}

// uploadStream posts files as upload does, accepting text/event-stream,
// and returns the stream's events (framing checked by readEvents).
func uploadStream(t *testing.T, ts *httptest.Server, files ...[2]string) []sseEvent {
	t.Helper()
	return streamEvents(t, ts, uploadRequest(t, ts, files...))
}

// TestUploadProgressEvents uploads two files, one of which cannot be
// indexed, accepting text/event-stream: each file is reported started,
// then indexed (with its sections) or skipped (with the reason), and a
// final summary event carries what the JSON answer would.
func TestUploadProgressEvents(t *testing.T) {
	ix, _ := freshIndex(t, contractDir(t))
	ts, _ := newServerOn(t, ix, func(c *Config) { c.UploadDir = t.TempDir() })

	evs := uploadStream(t, ts, [2]string{"warranty.md", warrantyDoc}, [2]string{"blob.bin", "\x00\x01\x02\x03\xff\xfe binary"})
	byFile := map[string][]string{}
	var last UploadEvent
	for _, e := range evs[:len(evs)-1] {
		var ev UploadEvent
		if err := json.Unmarshal([]byte(e.data), &ev); err != nil {
			t.Fatalf("event %s: %v", e.name, err)
		}
		if ev.Status != e.name || ev.FilesTotal != 2 {
			t.Errorf("event %s %+v: want its status as its name, of 2 files", e.name, ev)
		}
		byFile[ev.File] = append(byFile[ev.File], e.name)
		switch e.name {
		case "indexed":
			if ev.File != "warranty.md" || ev.Sections == 0 || ev.Format != "markdown" {
				t.Errorf("indexed %+v: want warranty.md with its sections", ev)
			}
		case "skipped":
			if ev.File != "blob.bin" || !strings.Contains(ev.Reason, "binary") {
				t.Errorf("skipped %+v: want blob.bin with the reason", ev)
			}
		}
		if e.name != "started" {
			last = ev
		}
	}
	if got := fmt.Sprint(byFile); got != "map[blob.bin:[started skipped] warranty.md:[started indexed]]" {
		t.Errorf("events by file %s: want each started, then indexed or skipped", got)
	}
	if last.FilesDone != 2 {
		t.Errorf("last file event %+v: want 2 of 2 done", last)
	}
	final := evs[len(evs)-1]
	var up Uploaded
	if err := json.Unmarshal([]byte(final.data), &up); final.name != "summary" || err != nil ||
		up.Ingest == nil || up.Ingest.Indexed != 1 || up.Ingest.Skipped != 1 || len(up.Documents) != 1 || up.Documents[0].Sections == 0 {
		t.Fatalf("final event %s %s: want the summary with one document indexed, one skipped", final.name, final.data)
	}

	// The same file again: unchanged. Nothing indexable: an error event.
	evs = uploadStream(t, ts, [2]string{"warranty.md", warrantyDoc})
	if len(evs) != 3 || evs[1].name != "unchanged" || evs[2].name != "summary" {
		t.Errorf("the same upload again: %v, want started, unchanged, summary", evs)
	}
	evs = uploadStream(t, ts, [2]string{"blob.bin", "\x00\x01 binary"})
	if n := len(evs); n == 0 || evs[n-1].name != "error" || !strings.Contains(evs[n-1].data, "nothing indexed: blob.bin") {
		t.Errorf("an upload with nothing to index: %v, want an error event last", evs)
	}
	// Errors found before any file is ingested keep their JSON status.
	req := uploadRequest(t, ts, [2]string{"bad|name.md", warrantyDoc})
	req.Header.Set("Accept", "text/event-stream")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wantError(t, resp.StatusCode, b, 400, "file name")
}
