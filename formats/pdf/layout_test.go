package pdf

import (
	"testing"
)

func TestRunningKey(t *testing.T) {
	for in, want := range map[string]string{
		"Page 3 of 12":        "page # of #",
		"  PAGE 10  of 12 ":   "page # of #",
		"xiv":                 "#",
		"Chapter 4: Function": "chapter #: function",
	} {
		if got := runningKey(in); got != want {
			t.Errorf("runningKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStripRunning(t *testing.T) {
	var lines []line
	for p := 1; p <= 5; p++ {
		lines = append(lines,
			line{page: p, text: "ACME Confidential"},
			line{page: p, text: "Body text that differs on page " + string(rune('A'+p))},
			line{page: p, text: "Shared sentence that is not at an edge"},
			line{page: p, text: "More body " + string(rune('a'+p))},
			line{page: p, text: "Ends here " + string(rune('k'+p))},
			line{page: p, text: "- " + string(rune('0'+p)) + " -"},
		)
	}
	// Two pages only with a bare page number: still a page number.
	out := stripRunning(lines)
	for _, l := range out {
		if l.text == "ACME Confidential" || l.text[0] == '-' {
			t.Errorf("kept running line %q on page %d", l.text, l.page)
		}
	}
	if len(out) != 5*4 {
		t.Errorf("kept %d lines, want 20", len(out))
	}
}

func TestNumberDepth(t *testing.T) {
	for in, want := range map[string]int{
		"7. Late Payment": 1, "7.1 Interest": 2, "7.1.2 Detail": 3, "A.1 GNU": 2,
		"12 Governing": 1, "Late Payment": 0, "7.": 0, "1.5% per month": 0,
	} {
		if got := numberDepth(in); got != want {
			t.Errorf("numberDepth(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestCleanTextHyphens(t *testing.T) {
	for in, want := range map[string]string{
		"manip\ufffeulation":       "manipulation",
		"LEFTCOL-or\ufffeRIGHTCOL": "LEFTCOL-or-RIGHTCOL",
		"Copyright \rc 2001":       "Copyright c 2001",
		"e\ufb03cient  \u00a0x":    "efficient x",
	} {
		if got := cleanText(in); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJoinLines(t *testing.T) {
	if got := joinLines([]string{"self-", "employed and", "well"}); got != "self-employed and well" {
		t.Errorf("joinLines = %q", got)
	}
}

func TestPlaceBookmarksFallback(t *testing.T) {
	lines := []line{
		{page: 1, text: "Intro text"},
		{page: 2, text: "3.2 Wrapped heading that"},
		{page: 2, text: "continues here"},
		{page: 2, text: "Body"},
	}
	bms := []bookmark{
		{title: "Wrapped heading that continues here", level: 2, page: 2},
		{title: "Not printed anywhere", level: 1, page: 1},
		{title: "Blank page", level: 1, page: 3},
	}
	got := placeBookmarks(lines, bms, 3)
	want := []hline{
		{line: line{page: 1, text: "Not printed anywhere"}, level: 1},
		{line: line{page: 1, text: "Intro text"}},
		{line: line{page: 2, text: "3.2 Wrapped heading that continues here"}, level: 2},
		{line: line{page: 2, text: "Body"}},
		{line: line{page: 3, text: "Blank page"}, level: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
