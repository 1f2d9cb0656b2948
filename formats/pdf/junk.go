package pdf

import (
	"regexp"
	"strings"
	"unicode"
)

var (
	// zipOrAddress: "Washington, D.C. 20549", "Austin, Texas 78741",
	// "Santa Clara, CA 95054-1549", "(Zip Code)", "780 Montague
	// Expressway Suite 406".
	zipOrAddress = regexp.MustCompile(`(?i)\b\d{5}(?:-\d{4})?\s*$|^washington,?\s+d\.?\s?c\.?|\(zip code\)|\(address of|^\d+\s.*\bsuite\s+\d+\s*$`)
	// coverBoilerplate is what every filing's cover says ("Form 10-K",
	// "Form N-CSR"; not the "FORM OF" above a form of agreement).
	coverBoilerplate = regexp.MustCompile(`(?i)^(?:united states\s+)?securities and exchange commission$|^united states$|^form\s+(?:[0-9a-z-]*\d[0-9a-z-]*|[a-z-]{3,})(?:/a)?$|^\(?mark one\)?|^[☒☐☑■□]|annual report pursuant|quarterly report pursuant|transition report pursuant|commission file number|exact name of (?:the )?registrant|^documents incorporated by reference$|\(state or other jurisdiction|employer identification|^(?:news|press)\s+release$|indicate by check mark`)
	// idLike: accession and file numbers, tickers with numbers.
	idLike = regexp.MustCompile(`^[\d\s./:#()-]+$|\b\d{10}-\d{2}-\d{6}\b|\b\d{2}-\d{7}\b|^\d{1,2}/\d{1,2}/\d{2,4}$`)
)

// letterSpaced reports whether a line is set letter by letter
// ("N E W S R E L E A S E"): mostly single-character words.
func letterSpaced(s string) bool {
	words := strings.Fields(s)
	if len(words) < 4 {
		return false
	}
	single := 0
	for _, w := range words {
		if len([]rune(w)) == 1 {
			single++
		}
	}
	return single*4 >= len(words)*3
}

// junkHeading reports whether a line must not title a section: an
// address or zip code, a number or identifier, letter-spaced text, cover
// boilerplate or a date.
func junkHeading(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || zipOrAddress.MatchString(s) || idLike.MatchString(s) || coverBoilerplate.MatchString(s) || letterSpaced(s) {
		return true
	}
	letters, digits := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		}
	}
	return letters < 3 || digits > letters
}
