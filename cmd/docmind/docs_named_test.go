package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/docmind/docmind/index"
)

// Over part of a folder, a resolution is trusted only when it names the
// documents by their own names and no unread file's name could be meant.
func TestNamedForSure(t *testing.T) {
	ctx := context.Background()
	ix, err := index.Open(ctx, filepath.Join(t.TempDir(), "docmind.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	read := "/d/ACME_2022_annual.pdf"
	for _, c := range []struct {
		naming, unread []string
		want           bool
	}{
		{[]string{"acm", "2022"}, nil, true},
		{[]string{"acm", "2022"}, []string{"/d/ACME_2021_annual.pdf", "/d/ZETA_2022_annual.pdf"}, true},
		{[]string{"acm"}, []string{"/d/ACME_2021_annual.pdf"}, false},           // the 2021 one may be meant
		{[]string{"compani"}, []string{"/d/ZETA_2022_annual.pdf"}, false},       // named by a word of its text
		{[]string{"compani", "acm"}, []string{"/d/ZETA_2022_annual.pdf"}, true}, // and by its name
	} {
		res := index.Resolution{Documents: []string{read}, Naming: c.naming}
		if got := namedForSure(ctx, ix, res, c.unread); got != c.want {
			t.Errorf("naming %v, unread %v: %v, want %v", c.naming, c.unread, got, c.want)
		}
	}
}
