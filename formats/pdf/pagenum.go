package pdf

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Printed page numbers.
//
// Most documents print their page number in a header or footer ("29",
// "Page 29", "- 29 -", "Intel/Page 6", "Apple Inc. | 2022 Form 10-K | 29",
// "iv" in front matter), and that number rarely equals the page's index
// in the file. printedLabels reads it from the lines at the top and bottom
// of each page and keeps a number only when it progresses with the page
// index: a candidate n on page p has the offset n-p, and it is taken when
// a page nearby (within pageRunReach pages) has a candidate with the same
// offset. A stray year or amount in a footer does not keep its offset
// from page to page and is ignored.

// pageEdgeLines is how many lines at the top and at the bottom of a page
// (by position) may carry the page number.
const pageEdgeLines = 3

// pageRunReach is how far (in pages) a page looks for another page whose
// number has the same offset from its index.
const pageRunReach = 3

var (
	// pageWord: "Page 29", "page 29 of 80", "Intel/Page 6".
	pageWord = regexp.MustCompile(`(?i)\bpage\s*(\d{1,4}|[ivxlc]{1,7})\b`)
	// dashed: "- 29 -", "— 29 —".
	dashed = regexp.MustCompile(`^[-–—]\s*(\d{1,4}|[ivxlc]{1,7})\s*[-–—]$`)
	// edgeNumber: a number standing alone at the start or the end of a
	// line, set off by spaces or a bar: "29", "29 | Apple", "Form 10-K | 29".
	edgeNumber  = regexp.MustCompile(`^(\d{1,4})(?:\s*[|•·]\s*\S.*|\s{2,}.*)?$|^.*(?:[|•·]|\s)\s*(\d{1,4})$`)
	romanNumber = regexp.MustCompile(`(?i)^[ivxlc]{1,7}$`)
)

// pageCandidate is a number read at a page edge.
type pageCandidate struct {
	label string // as printed ("29", "iv")
	value int
}

// pageCandidates returns the numbers a line could be printing as a page
// number.
func pageCandidates(s string) []pageCandidate {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 120 {
		return nil
	}
	var out []pageCandidate
	add := func(tok string) {
		if tok == "" {
			return
		}
		if v, err := strconv.Atoi(tok); err == nil {
			if v > 0 && !(len(tok) > 1 && tok[0] == '0') {
				out = append(out, pageCandidate{tok, v})
			}
			return
		}
		if v := romanValue(tok); v > 0 {
			out = append(out, pageCandidate{tok, v})
		}
	}
	if romanNumber.MatchString(s) {
		add(s)
		return out
	}
	if m := dashed.FindStringSubmatch(s); m != nil {
		add(m[1])
		return out
	}
	for _, m := range pageWord.FindAllStringSubmatch(s, -1) {
		add(m[1])
	}
	if m := edgeNumber.FindStringSubmatch(s); m != nil {
		add(m[1])
		add(m[2])
	}
	return out
}

// romanValue returns the value of a well-formed lower- or upper-case
// roman numeral up to 399, or 0.
func romanValue(s string) int {
	s = strings.ToLower(s)
	if !romanNumber.MatchString(s) {
		return 0
	}
	vals := map[byte]int{'i': 1, 'v': 5, 'x': 10, 'l': 50, 'c': 100}
	total := 0
	for i := 0; i < len(s); i++ {
		v := vals[s[i]]
		if i+1 < len(s) && vals[s[i+1]] > v {
			total -= v
		} else {
			total += v
		}
	}
	if total <= 0 || total >= 400 || toRoman(total) != s {
		return 0
	}
	return total
}

func toRoman(n int) string {
	var b strings.Builder
	for _, p := range []struct {
		v int
		s string
	}{{100, "c"}, {90, "xc"}, {50, "l"}, {40, "xl"}, {10, "x"}, {9, "ix"}, {5, "v"}, {4, "iv"}, {1, "i"}} {
		for n >= p.v {
			b.WriteString(p.s)
			n -= p.v
		}
	}
	return b.String()
}

// printedLabels returns, per 1-based page, the page number printed on it,
// for the pages where one is found (see above).
func printedLabels(lines []line) map[int]string {
	byPage := map[int][]pageCandidate{}
	for _, g := range groupByPage(lines) {
		idx := append([]int(nil), g...)
		// Top of the page first, by position when known.
		sort.SliceStable(idx, func(a, b int) bool {
			la, lb := lines[idx[a]], lines[idx[b]]
			if la.fromTop == 0 || lb.fromTop == 0 {
				return false
			}
			return la.fromTop < lb.fromTop
		})
		var pick []int
		if len(idx) <= 2*pageEdgeLines {
			pick = idx
		} else {
			pick = append(append(pick, idx[:pageEdgeLines]...), idx[len(idx)-pageEdgeLines:]...)
		}
		p := lines[g[0]].page
		for _, i := range pick {
			byPage[p] = append(byPage[p], pageCandidates(lines[i].text)...)
		}
	}
	// offsets[p] holds the offsets the candidates of page p have.
	has := func(p, off int, roman bool) bool {
		for _, c := range byPage[p] {
			if c.value-p == off && (romanValue(c.label) > 0) == roman {
				return true
			}
		}
		return false
	}
	out := map[int]string{}
	for p, cs := range byPage {
		best, bestSupport := "", 0
		for _, c := range cs {
			off := c.value - p
			roman := romanValue(c.label) > 0
			support := 0
			for q := p - pageRunReach; q <= p+pageRunReach; q++ {
				if q != p && has(q, off, roman) {
					support++
				}
			}
			if support > bestSupport {
				best, bestSupport = c.label, support
			}
		}
		if bestSupport > 0 {
			out[p] = best
		}
	}
	return out
}
