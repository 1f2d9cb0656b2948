package formats_test

import (
	"errors"
	"testing"

	"github.com/docmind/docmind/formats"
)

func TestError(t *testing.T) {
	cause := errors.New("xref broken")
	err := formats.Errorf("dir/contract.pdf", formats.ErrCorrupt, "damaged PDF: %w", cause)
	if err.Error() != "dir/contract.pdf: damaged PDF: xref broken" {
		t.Errorf("message = %q", err)
	}
	if !errors.Is(err, formats.ErrCorrupt) || !errors.Is(err, cause) || errors.Is(err, formats.ErrEmpty) {
		t.Errorf("errors.Is does not see the kind and the cause")
	}
	if formats.Reason(err) != "damaged PDF: xref broken" || formats.Reason(cause) != "xref broken" {
		t.Errorf("Reason = %q", formats.Reason(err))
	}
}

func TestRecover(t *testing.T) {
	f := func() (err error) {
		defer formats.Recover("bad.bin", &err)
		var m map[string]int
		m["boom"]++ // panics
		return nil
	}
	err := f()
	if !errors.Is(err, formats.ErrCorrupt) {
		t.Fatalf("err = %v", err)
	}
}

func TestCleanText(t *testing.T) {
	if got := formats.CleanText("  e\ufb03cient\u00a0 \ufb01nal  \u2212l  co\u00adop \n"); got != "efficient final -l coop" {
		t.Errorf("CleanText = %q", got)
	}
}

// The control characters a terminal acts on become spaces; tab, line
// breaks and form feed stay, and text without any is returned as it is.
func TestStripControls(t *testing.T) {
	for in, want := range map[string]string{
		"fee \x1b]0;pwned\x07per month\x1b[2J": "fee  ]0;pwned per month [2J",
		"a\tb\nc\r\nd\fe":                      "a\tb\nc\r\nd\fe",
		"del\x7fc1\u009bx":                     "del c1 x",
		"plain – “text” ü":                     "plain – “text” ü",
	} {
		if got := formats.StripControls(in); got != want {
			t.Errorf("StripControls(%q) = %q, want %q", in, got, want)
		}
	}
}
