package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind/index"
)

// slowUpload opens a connection to ts and sends the start of a
// multipart upload, then stalls as a client sending 1 byte a second
// would; it returns the connection.
func slowUpload(t *testing.T, ts interface{ Close() }, addr string, token string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	part := "--X\r\nContent-Disposition: form-data; name=\"file\"; filename=\"slow.md\"\r\n\r\n# Slow\r\n"
	auth := ""
	if token != "" {
		auth = "Authorization: Bearer " + token + "\r\n"
	}
	fmt.Fprintf(conn, "POST /api/v1/documents HTTP/1.1\r\nHost: %s\r\n%sContent-Type: multipart/form-data; boundary=X\r\nContent-Length: 100000\r\n\r\n%s", addr, auth, part)
	return conn
}

// TestSlowUploadsDoNotBlockAsks: two clients stalling in their upload
// bodies hold upload places, not run slots, so a question is answered
// meanwhile (with one run slot and no queue, it got 429); a third upload
// finds no place (429), and each stalled upload ends at the upload
// deadline with 408, leaving no file.
func TestSlowUploadsDoNotBlockAsks(t *testing.T) {
	ix, _ := freshIndex(t, contractDir(t))
	uploads := t.TempDir()
	ts, _ := newServerOn(t, ix, func(c *Config) {
		c.UploadDir = uploads
		c.MaxRuns, c.MaxQueue = 1, -1
		c.MaxUploads = 2
		c.UploadTimeout = 2 * time.Second
	})
	addr := ts.Listener.Addr().String()
	slow := []net.Conn{slowUpload(t, ts, addr, ""), slowUpload(t, ts, addr, "")}
	time.Sleep(200 * time.Millisecond) // both are being read
	if out := ask(t, ts, `{"question": "`+lateFee+`"}`); !out.Answered() {
		t.Fatalf("ask during slow uploads: %q", out.Answer())
	}
	status, b := upload(t, ts, [2]string{"third.md", warrantyDoc})
	wantError(t, status, b, http.StatusTooManyRequests, "too many uploads at once")
	for i, conn := range slow {
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("slow upload %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		wantError(t, resp.StatusCode, body, http.StatusRequestTimeout, "not received within 2s")
	}
	if entries, _ := os.ReadDir(uploads); len(entries) != 0 {
		t.Errorf("stalled uploads left files: %v", entries)
	}
}

// inStep checks that every upload is one unit: each file of the upload
// directory has its document in the index, up to date, and each indexed
// upload its file.
func inStep(t *testing.T, ix *index.Index, uploads string) (files int) {
	t.Helper()
	entries, _ := os.ReadDir(uploads)
	for _, e := range entries {
		path := filepath.Join(uploads, e.Name())
		if _, ok, err := ix.Document(context.Background(), path); err != nil || !ok {
			t.Errorf("%s is in the upload directory, not in the index", e.Name())
		}
	}
	docs, _ := ix.Documents(context.Background())
	for _, d := range docs {
		if filepath.Dir(d.Path) != uploads {
			continue
		}
		if !sameHash(d.Path, d.Hash) {
			t.Errorf("%s is in the index, its file gone or changed", filepath.Base(d.Path))
		}
	}
	return len(entries)
}

// TestUploadIsOneUnitWhenTheClientLeaves: a client that disconnects
// during a multi-file upload leaves its files and their index entries in
// step (they were deleted from disk and kept in the index); the answer
// shows the uploads by name, not by absolute path.
func TestUploadIsOneUnitWhenTheClientLeaves(t *testing.T) {
	ix, _ := freshIndex(t, contractDir(t))
	uploads := t.TempDir()
	ts, s := newServerOn(t, ix, func(c *Config) { c.UploadDir = uploads })
	// files large enough that the client leaves while they are ingested
	// (the race detector slows the ingest down ten times)
	paragraphs := 3000
	if raceEnabled {
		paragraphs = 400
	}
	var files [][2]string
	for i := range 6 {
		var b strings.Builder
		fmt.Fprintf(&b, "# Report %d\n\n", i)
		for j := range paragraphs {
			fmt.Fprintf(&b, "Paragraph %d of report %d records a budget of %d dollars for the harbour works.\n\n", j, i, j*7)
		}
		files = append(files, [2]string{fmt.Sprintf("report-%d.md", i), b.String()})
	}
	req := uploadRequest(t, ts, files...)
	req.Header.Set("Accept", "text/event-stream")
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := ts.Client().Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	// leave at the first file's first event
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	cancel()
	resp.Body.Close()
	if !strings.HasPrefix(line, "event: ") {
		t.Fatalf("first line %q", line)
	}
	// the upload finishes (or is undone) under the lock
	s.uploads.Lock()
	s.uploads.Unlock()
	if n := inStep(t, ix, uploads); n != 6 {
		t.Errorf("%d of the 6 files are in the upload directory after the client left", n)
	}

	status, _, b := call(t, ts, "GET", "/api/v1/documents", "")
	if status != 200 || strings.Contains(string(b), uploads) || !strings.Contains(string(b), `"uploads/report-3.md"`) {
		t.Errorf("documents show absolute upload paths: %d %.300s", status, b)
	}
	status, _, b = call(t, ts, "POST", "/api/v1/ask", `{"question": "What budget does paragraph 17 of report 3 record?"}`)
	if status != 200 || strings.Contains(string(b), uploads) {
		i := strings.Index(string(b), uploads)
		t.Errorf("the answer shows absolute upload paths: %d %s", status, string(b)[max(0, i-300):i+100])
	}
}

// TestReconcileUploadsAfterACrash: what a kill -9 mid-upload leaves (a
// half-received hidden file, a saved file never indexed, an indexed
// upload whose file is gone, an upload replaced on disk but not in the
// index) is brought into step at start; a complete upload is kept.
func TestReconcileUploadsAfterACrash(t *testing.T) {
	ix, _ := freshIndex(t, contractDir(t))
	uploads := t.TempDir()
	ts, s := newServerOn(t, ix, func(c *Config) { c.UploadDir = uploads })
	status, b := upload(t, ts, [2]string{"kept.md", warrantyDoc}, [2]string{"gone.md", "# Gone\n\nThe gone file.\n"}, [2]string{"replaced.md", "# Old\n\nThe old text.\n"})
	if status != http.StatusCreated {
		t.Fatalf("upload: %d %s", status, b)
	}
	os.Remove(filepath.Join(uploads, "gone.md"))
	os.WriteFile(filepath.Join(uploads, "replaced.md"), []byte("# New\n\nThe new text, never indexed.\n"), 0o600)
	os.WriteFile(filepath.Join(uploads, "orphan.md"), []byte("# Orphan\n\nSaved, never indexed.\n"), 0o600)
	os.WriteFile(filepath.Join(uploads, stagingPrefix+"123"), []byte("half a bo"), 0o600)

	removed, err := s.ReconcileUploads(context.Background())
	if err != nil || removed != 3 {
		t.Errorf("ReconcileUploads: %d removed, %v; want 3", removed, err)
	}
	if n := inStep(t, ix, uploads); n != 1 {
		t.Errorf("%d files left, want kept.md alone", n)
	}
	if _, err := os.Stat(filepath.Join(uploads, "kept.md")); err != nil {
		t.Errorf("the complete upload was removed: %v", err)
	}
}
