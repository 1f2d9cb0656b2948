package formats

import "unicode/utf8"

// UTF8Stream checks that text written to it in pieces is valid UTF-8 as a
// whole: a character split between two writes is joined up, not counted
// as invalid. Its zero value is ready to use; it never holds more than
// one incomplete character.
type UTF8Stream struct {
	pend    [utf8.UTFMax]byte
	npend   int
	invalid bool
}

// Write implements io.Writer; it never fails.
func (u *UTF8Stream) Write(p []byte) (int, error) {
	n := len(p)
	for u.npend > 0 && len(p) > 0 && !u.invalid {
		u.pend[u.npend] = p[0]
		u.npend++
		p = p[1:]
		if utf8.FullRune(u.pend[:u.npend]) {
			r, size := utf8.DecodeRune(u.pend[:u.npend])
			u.invalid = r == utf8.RuneError && size <= 1
			// A full rune of size bytes: the pending bytes beyond it
			// (none, since bytes were added one at a time) go back.
			u.npend = 0
		}
	}
	if u.invalid || len(p) == 0 {
		return n, nil
	}
	// Keep back an incomplete character at the end.
	cut := len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				cut = i
			}
			break
		}
	}
	if !utf8.Valid(p[:cut]) {
		u.invalid = true
		return n, nil
	}
	u.npend = copy(u.pend[:], p[cut:])
	return n, nil
}

// Valid reports whether everything written is valid UTF-8.
func (u *UTF8Stream) Valid() bool { return !u.invalid && u.npend == 0 }
