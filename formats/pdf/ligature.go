package pdf

import (
	"strings"
	"unicode"

	pdfium "github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// Ligatures whose Unicode PDFium cannot recover.
//
// PDFium maps the ligature code points U+FB00–FB06 like any character, and
// formats.CleanText folds them to letters. Two broken encodings remain,
// both common in filings typeset by the same tools:
//
//   - The font's ToUnicode map has no entry for the ligature glyph:
//     FPDFText_GetUnicode returns U+0000 for a character that has a glyph
//     box ("\x00nancial", "cash \x00ow"). PDFium has no way to say which
//     glyph it is: the font's glyph width for a Unicode value needs a
//     reverse ToUnicode lookup, which the glyph lacks. FPDFText_GetText
//     writes such a character as U+FFFE, PDFium's soft-hyphen marker,
//     and it used to vanish ("signi cant").
//   - The map gives the ligature glyph only its first letter, "f", and
//     PDFium, placing the next character a ligature's width further on,
//     generates a space after it ("af ect" for "affect").
//
// markLigatures marks both in the page text (ligGlyph, ligGap) and
// repairLigatures, once the whole document is read, chooses the letters:
// the candidate spelling (ff, fi, fl, ffi, ffl) that the document itself
// spells out elsewhere with ordinary characters, counted over all its
// words. An unknown glyph with no such evidence becomes "fi", the most
// frequent ligature; a generated gap without evidence stays a space.
const (
	ligGlyph = '\ue000' // a glyph without Unicode, inside a word
	ligGap   = '\ue001' // a space PDFium generated after an "f"
)

// markLigatures marks, in runes (one per character index of the text
// page), glyphs without Unicode and spaces PDFium generated between an
// "f" and a lower-case letter inside a word.
func markLigatures(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, runes []rune) {
	for j, r := range runes {
		switch {
		case r == 0:
			if j+1 < len(runes) && unicode.IsLetter(runes[j+1]) {
				runes[j] = ligGlyph
			}
		case r == '\ufffe' && j+1 < len(runes) && unicode.IsLetter(runes[j+1]):
			// FPDFText_GetText writes U+FFFE both for a hyphen it
			// considers soft and for a glyph without Unicode; the latter
			// has U+0000 as its character code point.
			u, err := inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp, Index: j})
			if err == nil && u.Unicode == 0 {
				runes[j] = ligGlyph
			}
		case r == ' ' && j > 1 && runes[j-1] == 'f' && unicode.IsLetter(runes[j-2]) &&
			j+1 < len(runes) && unicode.IsLower(runes[j+1]):
			g, err := inst.FPDFText_IsGenerated(&requests.FPDFText_IsGenerated{TextPage: tp, Index: j})
			if err == nil && g.IsGenerated {
				runes[j] = ligGap
			}
		}
	}
}

// ligatureSpellings are the letters a ligature glyph may stand for, most
// frequent first.
var ligatureSpellings = []string{"fi", "fl", "ff", "ffi", "ffl"}

// repairLigatures replaces the marks markLigatures left in the lines'
// text by letters, using the document's own vocabulary.
func repairLigatures(lines []line) {
	marked := false
	for _, l := range lines {
		if strings.ContainsAny(l.text, string([]rune{ligGlyph, ligGap})) {
			marked = true
			break
		}
	}
	if !marked {
		return
	}
	vocab := map[string]int{}
	for _, l := range lines {
		for _, w := range strings.FieldsFunc(l.text, func(r rune) bool { return !unicode.IsLetter(r) }) {
			vocab[strings.ToLower(w)]++
		}
	}
	for i := range lines {
		if strings.ContainsAny(lines[i].text, string([]rune{ligGlyph, ligGap})) {
			lines[i].text = repairLine(lines[i].text, vocab)
		}
	}
}

// repairLine resolves the marks in one line.
func repairLine(s string, vocab map[string]int) string {
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r != ligGlyph && r != ligGap {
			b.WriteRune(r)
			continue
		}
		// The word around the mark: letters before (already written) and
		// after it.
		start := i
		for start > 0 && unicode.IsLetter(rs[start-1]) {
			start--
		}
		end := i + 1
		for end < len(rs) && unicode.IsLetter(rs[end]) {
			end++
		}
		before, after := string(rs[start:i]), string(rs[i+1:end])
		best, bestN := "", 0
		for _, sp := range ligatureSpellings {
			if r == ligGap {
				// The "f" before the gap is the ligature's first letter.
				sp = sp[1:]
			}
			if n := vocab[strings.ToLower(before+sp+after)]; n > bestN {
				best, bestN = sp, n
			}
		}
		switch {
		case bestN > 0:
			b.WriteString(best)
		case r == ligGap:
			b.WriteByte(' ')
		default:
			b.WriteString(ligatureSpellings[0])
		}
	}
	return b.String()
}
