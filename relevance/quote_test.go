package relevance

import (
	"strings"
	"testing"
)

// A finding quotes at most ten terms, each cut to 40 characters.
func TestQuoteListBounds(t *testing.T) {
	if got := QuoteList([]string{"fee", "late"}); got != `"fee", "late"` {
		t.Errorf("QuoteList = %s", got)
	}
	long := strings.Repeat("a", 60000)
	if got := QuoteList([]string{long}); got != `"`+strings.Repeat("a", 39)+`…"` {
		t.Errorf("a long term: %d bytes: %.80s", len(got), got)
	}
	var many []string
	for i := range 25 {
		many = append(many, strings.Repeat("b", i+1))
	}
	got := QuoteList(many)
	if strings.Count(got, `"`) != 20 || !strings.HasSuffix(got, `, 15 more`) {
		t.Errorf("25 terms: %s", got)
	}
}
