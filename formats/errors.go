// Package formats holds what the format parsers (formats/pdf, formats/docx,
// formats/html, formats/text) share: the sentinel errors that tell ingestion
// why a file was skipped, the Error type that carries the file name and a
// human reason, and the format names (PDF, DOCX, ...). Telling a file's
// format from its content is package loader's job (loader.Detect).
//
// Every parser has the shape
//
//	Parse(ctx context.Context, source string, data []byte) (*document.Document, error)
//
// and never panics: on failure it returns an *Error that matches one of the
// sentinels below with errors.Is.
package formats

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Match them with errors.Is; the *Error returned by the
// parsers wraps exactly one of them.
var (
	// ErrEncrypted means the file needs a password to be read.
	ErrEncrypted = errors.New("encrypted")
	// ErrCorrupt means the file is damaged, truncated or not what its
	// content claims to be.
	ErrCorrupt = errors.New("corrupt")
	// ErrEmpty means the file parsed but holds no extractable text (empty
	// file, scanned PDF without a text layer, document with no paragraphs).
	ErrEmpty = errors.New("no extractable text")
	// ErrUnsupported means the content is of a kind no parser handles
	// (binary data, OpenDocument, images, ...).
	ErrUnsupported = errors.New("unsupported")
	// ErrTooLarge means the file, or a part of it once decompressed, is
	// beyond the parser's limits (for example a zip bomb).
	ErrTooLarge = errors.New("too large")
)

// Error is a parse failure on one file. Its message is one line for a person:
// "contract.pdf: encrypted PDF (password required)".
type Error struct {
	// Source is the file the error is about.
	Source string
	// Kind is one of the sentinel errors (ErrEncrypted, ErrCorrupt, ...).
	Kind error
	// Reason is the human explanation, e.g. "encrypted PDF (password required)".
	Reason string
	// Err is the underlying cause, if any (for example the parser library's
	// own error). It is kept for errors.Is/As but not repeated in Error().
	Err error
}

// Error returns "source: reason".
func (e *Error) Error() string {
	if e.Source == "" {
		return e.Reason
	}
	return e.Source + ": " + e.Reason
}

// Unwrap exposes both the sentinel kind and the underlying cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Errorf builds an *Error of the given kind on source with a formatted
// reason. A %w verb in format becomes the underlying cause.
func Errorf(source string, kind error, format string, args ...any) error {
	wrapped := fmt.Errorf(format, args...)
	e := &Error{Source: source, Kind: kind, Reason: wrapped.Error()}
	if u := errors.Unwrap(wrapped); u != nil {
		e.Err = u
	}
	return e
}

// Reason returns the human reason of err without the file name when err is
// an *Error, and err.Error() otherwise. Ingestion summaries use it as the
// "skipped because ..." text.
func Reason(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return err.Error()
}

// Recover turns a panic inside a third-party parser into an ErrCorrupt error
// on source. Use it as `defer formats.Recover(source, &err)` in a function
// with a named error result.
func Recover(source string, err *error) {
	if r := recover(); r != nil {
		*err = Errorf(source, ErrCorrupt, "parser failed on malformed input: %v", r)
	}
}

// typography maps presentation forms that break word matching to plain
// letters: the Latin ligatures U+FB00-FB06 (ﬁ, ﬂ, ﬃ, ...), soft hyphens
// (dropped), non-breaking and other fixed-width spaces, and the minus
// sign U+2212.
var typography = strings.NewReplacer(
	"\ufb00", "ff", "\ufb01", "fi", "\ufb02", "fl", "\ufb03", "ffi", "\ufb04", "ffl", "\ufb05", "st", "\ufb06", "st",
	"\u00ad", "", "\u00a0", " ", "\u2007", " ", "\u202f", " ", "\u2212", "-",
)

// CleanText folds typography that hinders search (see above), then
// collapses all runs of white space to single spaces and trims the ends.
// Every parser passes block text through it.
func CleanText(s string) string {
	return strings.Join(strings.Fields(typography.Replace(s)), " ")
}

// StripControls replaces the control characters of s that a terminal
// acts on (C0 but tab, line feed, carriage return and form feed; DEL; C1:
// escape sequences, a bell) by spaces, so that a document's text or title
// printed in an answer cannot move the cursor, clear the screen or set the
// window title. It returns s itself when there are none.
func StripControls(s string) string {
	if strings.IndexFunc(s, isTerminalControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isTerminalControl(r) {
			return ' '
		}
		return r
	}, s)
}

func isTerminalControl(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r >= 0x7f && r <= 0x9f
}
