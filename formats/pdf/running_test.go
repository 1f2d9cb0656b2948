package pdf

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// D14: a PDF whose every page holds one similar line ("Page 1 of 3", a
// repeated title) lost all of its text to the running-header filter and
// was then reported as having no text layer. The filter never removes a
// page's only text: such pages keep their lines, while pages with other
// text still lose the running header.
func TestRunningHeaderKeepsOnlyText(t *testing.T) {
	onePerPage := func(n int, text func(p int) string) [][]genText {
		var pages [][]genText
		for p := 1; p <= n; p++ {
			pages = append(pages, []genText{{72, 700, 12, false, text(p)}})
		}
		return pages
	}
	bodies := []string{"Revenue grew in every region.", "Costs fell after the merger.", "The outlook remains cautious."}
	mixed := [][]genText{}
	for _, body := range bodies {
		mixed = append(mixed, []genText{
			{72, 760, 9, false, "Confidential report 2023"},
			{72, 700, 11, false, body},
		})
	}
	// The last page has only the running header: it is the page's text.
	mixed = append(mixed, []genText{{72, 760, 9, false, "Confidential report 2023"}})

	for _, tc := range []struct {
		name  string
		pages [][]genText
		// want is the text of each page after the filter, in order.
		want []string
	}{
		{"page numbers", onePerPage(3, func(p int) string { return fmt.Sprintf("Page %d of 3", p) }),
			[]string{"Page 1 of 3", "Page 2 of 3", "Page 3 of 3"}},
		{"same title", onePerPage(4, func(int) string { return "Confidential report 2023" }),
			[]string{"Confidential report 2023", "Confidential report 2023", "Confidential report 2023", "Confidential report 2023"}},
		{"numbered title", onePerPage(5, func(p int) string { return fmt.Sprintf("Quarterly summary %d", p) }),
			[]string{"Quarterly summary 1", "Quarterly summary 2", "Quarterly summary 3", "Quarterly summary 4", "Quarterly summary 5"}},
		{"header elsewhere", mixed, append(bodies, "Confidential report 2023")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := strings.ReplaceAll(tc.name, " ", "-") + ".pdf"
			doc, err := reader(t).Parse(context.Background(), name, makePDF(genPDF{title: tc.name, pages: tc.pages}))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := make([]string, len(tc.want))
			for _, b := range doc.Blocks {
				if b.Page < 1 || b.Page > len(got) {
					t.Fatalf("block %q on page %d of %d", b.Text, b.Page, len(got))
				}
				got[b.Page-1] = strings.TrimSpace(got[b.Page-1] + " " + b.Text)
			}
			for p := range tc.want {
				if got[p] != tc.want[p] {
					t.Errorf("page %d: text %q, want %q", p+1, got[p], tc.want[p])
				}
			}
		})
	}
}
