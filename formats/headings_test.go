package formats

import "testing"

func TestHeadingLevel(t *testing.T) {
	for name, want := range map[string]int{
		"heading 1": 1, "Heading2": 2, "HEADING 9": 9, "Überschrift 3": 3, "berschrift1": 1,
		"Titre 2": 2, "Kop 4": 4, "заголовок 1": 1, "Title": 1, "Titel": 1,
		"Heading 10": 0, "heading": 0, "Body Text": 0, "Subtitle": 0, "": 0, "Heading 1 Char": 0,
	} {
		if got := HeadingLevel(name); got != want {
			t.Errorf("HeadingLevel(%q) = %d, want %d", name, got, want)
		}
	}
}
