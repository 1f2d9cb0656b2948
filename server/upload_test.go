package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
)

// upload posts files (name → content) as multipart parts named "file".
func upload(t *testing.T, ts *httptest.Server, files ...[2]string) (int, []byte) {
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
	resp, err := ts.Client().Post(ts.URL+"/api/v1/documents", mw.FormDataContentType(), &body)
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
