package relevance

import (
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
)

// FuzzCheck reads any question against any text as a table, a row and a
// claim: the relevance check parses both from outside (users' questions,
// documents' text) and must neither panic nor hang on them.
func FuzzCheck(f *testing.F) {
	for _, s := range [][2]string{
		{"What were Oracle's total revenues in fiscal 2023?", wholeTable},
		{"What were the general and administrative expenses in the first quarter of 2023?", statementTable},
		{"What were Oracle's sales and marketing expenses in fiscal 2023?", segmentNote},
		{"How many active buyers, in millions, did eBay report for the quarter ended March 31, 2023?", "Active Buyers (1) 133 134 135 138 142"},
		{"What was Apple's balance of cash and cash equivalents as of September 26, 2020?", "September 26, 2020 Cash, cash equivalents and restricted cash, beginning balances $ 35,929 $ 39,789 $ 50,224"},
		{"How much", ": : $ ( ) ,"},
		{"", ""},
		{"how many ,", "Apr 1, 2023 Dec 31, 2022 Assets: Cash 1 2"},
		{"Who left Messina in the 11th and twenty-first centuries, not the 1100s?", "In 1191 and the 11–13th century BC, 1,100s% of 2000s."},
		{"What horizontal spring scale has three fundamental forces?", "A vertical spring scale has four fundamental forces"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, q, content string) {
		fr := Analyze(q)
		_ = fr.TableRow(content)
		_ = fr.SectionRow(schema.Section{Title: q, Content: content})
		row := content
		if i := strings.IndexByte(content, '\n'); i >= 0 {
			row = content[:i]
		}
		_ = fr.NamesRow(content, row)
		c := Context{Claim: row, Passage: content, Heading: q, Document: content}
		c.Scope, c.Row = RowScope(content, row)
		c.Span, c.Header = TableSpan(content, row), TableHeader(content, row)
		if len(c.Header) > maxHeaderBytes {
			t.Fatalf("TableHeader returned %d bytes", len(c.Header))
		}
		_ = fr.Check(c, float64(0.5), nil, nil)
		_ = StatesMonth(q, content)
		_ = Tabular(content)
	})
}
