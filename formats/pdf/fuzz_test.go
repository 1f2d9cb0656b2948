package pdf

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

// fuzzLines turns fuzz input into extracted lines: pages separated by
// '\f', lines by '\n' (blank lines dropped, as extraction drops them). The
// attribute bytes give each line in turn a font size (8 to 23 points, or
// unknown) and boldness; baselines descend down the page.
func fuzzLines(text string, attrs []byte) (lines []line, pages int) {
	k := 0
	for p, page := range strings.Split(text, "\f") {
		pages = p + 1
		y := 0
		for _, s := range strings.Split(page, "\n") {
			if strings.TrimSpace(s) == "" {
				continue
			}
			l := line{page: p + 1, text: s, size: 10, y: float64(800 - 14*y), fromTop: float64(42 + 14*y)}
			if len(attrs) > 0 {
				a := attrs[k%len(attrs)]
				l.size = 8 + float64(a&0x0f)
				l.bold = a&0x10 != 0
				if a&0xe0 == 0xe0 {
					l.size = 0
				}
			}
			lines = append(lines, l)
			y++
			k++
		}
	}
	return lines, pages
}

// FuzzLayout runs the layout heuristics (running headers and footers,
// heading detection, bookmarks, paragraphs, printed page numbers) on
// arbitrary lines and checks what they promise: stripping only removes
// lines at page edges and keeps the order, headings have levels 1 to 6 and
// start with a line of the page, page labels come from the page's own
// lines, and build either returns blocks or formats.ErrEmpty.
func FuzzLayout(f *testing.F) {
	report := func(p int) string {
		return "ACME Corp — Annual Report 2023\n1. Introduction\nThe company had a good year " + strconv.Itoa(p) +
			".\nRevenue grew by 12% to $4.2 billion.\nPage " + strconv.Itoa(p) + " of 5"
	}
	var pages []string
	for p := 1; p <= 5; p++ {
		pages = append(pages, report(p))
	}
	f.Add(strings.Join(pages, "\f"), []byte{0x0a, 0x12, 0x02, 0x02, 0x01}, "Introduction\nResults")
	f.Add("Contents\nItem 1. Business 3\f- ii -\nPART I\nItem 1. Business\nWe sell things.\f- iii -\nItem 1A. Risk Factors\nRisks.\f- iv -\nMore risks.",
		[]byte{0x02, 0x12, 0x06, 0x02}, "PART I\nItem 1. Business")
	f.Add("Header\nOnly\f Header\nOnly\fHeader\nOnly\fHeader\nOnly", []byte{0x02}, "")
	f.Add("7\n7.1 Interest\nInterest accrues daily.\f8\nAPPENDIX A\nSchedule of fees\nThe fee is 5%,", []byte{0x1f, 0x12, 0x02, 0x08, 0xe0}, "Appendix A")
	f.Add("", []byte{}, "x")
	f.Fuzz(func(t *testing.T, text string, attrs []byte, marks string) {
		lines, npages := fuzzLines(text, attrs)

		// Running headers and footers.
		kept := stripRunning(lines)
		j := 0
		var dropped []int
		for _, l := range kept {
			for j < len(lines) && lines[j] != l {
				dropped = append(dropped, j)
				j++
			}
			if j == len(lines) {
				t.Fatalf("stripRunning returned a line that is not in its input, or out of order: %q", l.text)
			}
			j++
		}
		for ; j < len(lines); j++ {
			dropped = append(dropped, j)
		}
		byPage := groupByPage(lines)
		if len(byPage) < 2 && len(dropped) > 0 {
			t.Fatalf("stripRunning dropped %d lines of a single page", len(dropped))
		}
		edge := map[int]bool{}
		for _, g := range byPage {
			for _, i := range edges(g) {
				edge[i] = true
			}
		}
		for _, i := range dropped {
			if !edge[i] {
				t.Fatalf("stripRunning dropped line %d %q, which is not among the first or last %d of page %d", i, lines[i].text, edgeLines, lines[i].page)
			}
		}

		// Headings.
		texts := map[string]bool{}
		for _, l := range kept {
			texts[l.text] = true
		}
		marked := detectHeadings(kept)
		if len(marked) > len(kept) {
			t.Fatalf("detectHeadings returned %d lines for %d", len(marked), len(kept))
		}
		for _, h := range marked {
			if h.level < 0 || h.level > 6 {
				t.Fatalf("heading %q has level %d", h.text, h.level)
			}
			if !texts[h.text] && !anyPrefix(texts, h.text) {
				t.Fatalf("detectHeadings produced %q, which starts with no input line", h.text)
			}
		}
		for _, b := range paragraphs(marked) {
			if b.Page < 1 || b.Page > npages {
				t.Fatalf("block %q on page %d of %d", b.Text, b.Page, npages)
			}
			if b.Kind == document.Heading && (b.Level < 1 || b.Level > 6) {
				t.Fatalf("heading block %q has level %d", b.Text, b.Level)
			}
		}

		// Printed page numbers.
		onPage := map[int]map[string]bool{}
		for _, l := range lines {
			if onPage[l.page] == nil {
				onPage[l.page] = map[string]bool{}
			}
			for _, c := range pageCandidates(l.text) {
				onPage[l.page][c.label] = true
			}
		}
		for p, label := range printedLabels(lines) {
			if !onPage[p][label] {
				t.Fatalf("page %d labelled %q, which none of its lines prints", p, label)
			}
		}

		// The whole build, with bookmarks when marks has any.
		var bms []bookmark
		for i, title := range strings.Split(marks, "\n") {
			if title != "" {
				bms = append(bms, bookmark{title: title, level: 1 + i%3, page: i % (npages + 1)})
			}
		}
		raw := &rawDoc{title: "Fuzz", pages: npages, bookmarks: bms, lines: append([]line(nil), lines...)}
		doc, err := build("fuzz.pdf", raw, false)
		switch {
		case err != nil && !errors.Is(err, formats.ErrEmpty):
			t.Fatalf("build: unexpected error %v", err)
		case err == nil && len(doc.Blocks) == 0:
			t.Fatal("build returned a document without blocks")
		}

		// D14: a page with text never loses all of its lines to the
		// running-header filter.
		left := map[int]bool{}
		for _, l := range kept {
			left[l.page] = true
		}
		for _, l := range lines {
			if !left[l.page] && strings.ContainsFunc(l.text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
				t.Fatalf("D14: stripRunning removed every line of page %d: %q", l.page, l.text)
			}
		}
	})
}

func anyPrefix(texts map[string]bool, s string) bool {
	for t := range texts {
		if strings.HasPrefix(s, t+" ") {
			return true
		}
	}
	return false
}

// FuzzPageCandidates checks the printed-page-number reader on one line:
// every candidate is printed in the line and is a positive number or a
// well-formed roman numeral, and romanValue agrees with toRoman.
func FuzzPageCandidates(f *testing.F) {
	for _, s := range []string{"29", "Page 29", "page 29 of 80", "- 29 -", "— iv —", "Intel/Page 6",
		"Apple Inc. | 2022 Form 10-K | 29", "29 | Apple", "xiv", "IIII", "Form 10-K  12", "007", "Page 0", "cd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range pageCandidates(s) {
			if c.value <= 0 {
				t.Fatalf("pageCandidates(%q): value %d", s, c.value)
			}
			if !strings.Contains(s, c.label) {
				t.Fatalf("pageCandidates(%q): label %q is not in the line", s, c.label)
			}
			if n, err := strconv.Atoi(c.label); err == nil {
				if n != c.value {
					t.Fatalf("pageCandidates(%q): label %q has value %d", s, c.label, c.value)
				}
			} else if romanValue(c.label) != c.value {
				t.Fatalf("pageCandidates(%q): roman label %q has value %d, romanValue says %d", s, c.label, c.value, romanValue(c.label))
			}
		}
		if v := romanValue(s); v != 0 {
			if v < 1 || v >= 400 || toRoman(v) != strings.ToLower(s) {
				t.Fatalf("romanValue(%q) = %d, toRoman gives %q", s, v, toRoman(v))
			}
		}
	})
}
