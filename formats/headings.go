package formats

import "regexp"

var (
	// localHeading matches the names of the heading styles, and the ids
	// Word derives from them, in common UI languages: "Heading 2",
	// "Überschrift 1", "Titre 3", "Kop 1", "berschrift1" (an id drops
	// the non-ASCII letters: "Überschrift1" has the id "berschrift1").
	localHeading = regexp.MustCompile(`(?i)^(heading|berschrift|überschrift|titre|titolo|título|titulo|encabezado|kop|rubrik|overskrift|otsikko|nagłówek|nag³ówek|nadpis|címsor|başlık|заголовок|標題|見出し|제목)\s*([1-9])$`)
	// titleName matches the names of the document-title style.
	titleName = regexp.MustCompile(`(?i)^(title|titel|titre|titolo|título|titulo|tytuł|название)$`)
)

// HeadingLevel reads a heading level from a paragraph style's name (or
// id): 1-9 for "heading N" and its translations, 1 for "Title" and its
// translations, 0 for any other name. The Word, legacy Word, RTF and
// OpenDocument readers share it, so that a style name means the same in
// each.
func HeadingLevel(name string) int {
	if m := localHeading.FindStringSubmatch(name); m != nil {
		return int(m[2][0] - '0')
	}
	if titleName.MatchString(name) {
		return 1
	}
	return 0
}
