package prompts_test

import (
	"reflect"
	"testing"

	"github.com/docmind/docmind/prompts"
	"github.com/docmind/docmind/schema"
)

var contract = []schema.Section{
	{Title: "Late Payment Penalties", Page: 8, Content: "A late fee of 1.5% per month applies."},
	{Title: "Fees", Page: 2, PageEnd: 3, Content: "Fees are due in thirty (30) days."},
}

func TestRenderCitations(t *testing.T) {
	tests := []struct {
		in, want string
		unknown  []string
	}{
		{"A fee of 1.5% applies [S1].", "A fee of 1.5% applies (See Late Payment Penalties, page 8).", nil},
		{"Due in 30 days [S2][S1].", "Due in 30 days (See Fees, pages 2–3)(See Late Payment Penalties, page 8).", nil},
		{"Both [S1, S2, S1].", "Both (See Late Payment Penalties, page 8; Fees, pages 2–3).", nil},
		{"Made up [S7].", "Made up [unknown source S7].", []string{"S7"}},
		{"Mixed [S1, S9].", "Mixed (See Late Payment Penalties, page 8) [unknown source S9].", []string{"S9"}},
		{"No citation.", "No citation.", nil},
	}
	for _, tc := range tests {
		got, unknown := prompts.RenderCitations(tc.in, contract)
		if got != tc.want || !reflect.DeepEqual(unknown, tc.unknown) {
			t.Errorf("RenderCitations(%q) = %q, %v; want %q, %v", tc.in, got, unknown, tc.want, tc.unknown)
		}
	}
}

func TestCitedSectionsReadsRenderedText(t *testing.T) {
	text, _ := prompts.RenderCitations("Due [S2]. Fee [S1, S2]. Bad [S5].", contract)
	cited, unknown := prompts.CitedSections(text, contract)
	if !reflect.DeepEqual(cited, []int{1, 0}) || !reflect.DeepEqual(unknown, []string{"S5"}) {
		t.Errorf("cited %v unknown %v in %q", cited, unknown, text)
	}
	_, unknown = prompts.CitedSections("Fee (See Warranty, page 4).", contract)
	if !reflect.DeepEqual(unknown, []string{"Warranty, page 4"}) {
		t.Errorf("unknown = %v", unknown)
	}
}
