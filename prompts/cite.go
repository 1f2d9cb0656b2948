package prompts

import (
	"regexp"
	"strings"

	"github.com/docmind/docmind/schema"
)

// Reference renders the citation of sections as it appears in answers:
// "(See Late Payment Penalties, page 8)" or, for several,
// "(See Fees, page 2; Late Payment Penalties, page 8)".
func Reference(sections ...schema.Section) string {
	parts := make([]string, len(sections))
	for i, s := range sections {
		parts[i] = s.Citation()
	}
	return "(See " + strings.Join(parts, "; ") + ")"
}

// UnknownMarker is what a citation of an id outside the retrieved set is
// rendered as; the judge's citation guard rejects answers containing it.
func UnknownMarker(id string) string { return "[unknown source " + id + "]" }

// RenderCitations replaces the model's [Sk] markers with references to the
// sections (Reference), in code rather than by the model. Ids outside the
// set are returned in unknown and rendered with UnknownMarker, so they stay
// visible and the judge rejects the answer.
func RenderCitations(text string, sections []schema.Section) (out string, unknown []string) {
	var b strings.Builder
	last := 0
	for _, c := range Citations(text) {
		b.WriteString(text[last:c.Start])
		last = c.End
		var known []schema.Section
		seen := map[int]bool{}
		var bad []string
		for _, id := range c.IDs {
			i, ok := SectionIndex(id, len(sections))
			switch {
			case !ok:
				bad = append(bad, id)
			case !seen[i]:
				seen[i] = true
				known = append(known, sections[i])
			}
		}
		if len(known) > 0 {
			b.WriteString(Reference(known...))
		}
		for _, id := range bad {
			if len(known) > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(UnknownMarker(id))
		}
		unknown = append(unknown, bad...)
	}
	b.WriteString(text[last:])
	return b.String(), unknown
}

var (
	seeRE     = regexp.MustCompile(`\(See ([^()]*(?:\([^()]*\)[^()]*)*)\)`)
	unknownRE = regexp.MustCompile(`\[unknown source ([^\]]*)\]`)
)

// CitedSections reads the references in an answer back: the indices of the
// sections cited (in order of first citation) and the references that match
// no section (unknown markers, leftover [Sk] markers, "(See …)" parts naming
// a title and page that was not retrieved).
func CitedSections(text string, sections []schema.Section) (cited []int, unknown []string) {
	seen := map[int]bool{}
	add := func(i int) {
		if !seen[i] {
			seen[i] = true
			cited = append(cited, i)
		}
	}
	byRef := map[string]int{}
	for i, s := range sections {
		if _, dup := byRef[norm(s.Citation())]; !dup {
			byRef[norm(s.Citation())] = i
		}
	}
	for _, m := range seeRE.FindAllStringSubmatch(text, -1) {
		for _, part := range strings.Split(m[1], ";") {
			if i, ok := byRef[norm(part)]; ok {
				add(i)
			} else if p := strings.TrimSpace(part); p != "" {
				unknown = append(unknown, p)
			}
		}
	}
	for _, m := range unknownRE.FindAllStringSubmatch(text, -1) {
		unknown = append(unknown, m[1])
	}
	for _, c := range Citations(text) {
		for _, id := range c.IDs {
			if i, ok := SectionIndex(id, len(sections)); ok {
				add(i)
			} else {
				unknown = append(unknown, id)
			}
		}
	}
	return cited, unknown
}

func norm(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(s, "-", "–")), " "))
}
