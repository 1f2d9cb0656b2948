package pdf

import (
	"context"
	"testing"
)

// A Reader that compiles PDFium into an empty cache says so through
// Notice (the first PDF a machine reads waited 12 s in silence); one that
// loads the cached copy says nothing.
func TestNoticeWhenCompiling(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("compiles PDFium from scratch (seconds; minutes under -race)")
	}
	var got []string
	Notice = func(msg string) { got = append(got, msg) }
	defer func() { Notice = nil }()
	dir := t.TempDir()
	for i := range 2 {
		r, err := NewReader(context.Background(), Options{Workers: 1, CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		if want := 1; len(got) != want {
			t.Fatalf("after reader %d: notices %q, want %d", i+1, got, want)
		}
	}
}
