package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The examples of docs/serving.md run against "docmind serve", which
// requires a token by default (401 without one): each curl example sends
// it, and the OpenAI client example passes it as its API key.
func TestServingDocExamplesSendTheToken(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "serving.md"))
	if err != nil {
		t.Fatal(err)
	}
	curls := 0
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "curl ") {
			curls++
			if !strings.Contains(line, "Authorization: Bearer") {
				t.Errorf("docs/serving.md: %q sends no token: the server answers 401", line)
			}
		}
		if strings.Contains(line, `api_key="none"`) {
			t.Errorf("docs/serving.md: %q: the server answers 401 without its token", line)
		}
	}
	if curls == 0 {
		t.Fatal("docs/serving.md has no curl example")
	}
}
