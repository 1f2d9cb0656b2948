package judge

import (
	"context"
	"reflect"
	"testing"

	"github.com/docmind/docmind/schema"
)

func TestCheckCitationsSameTitleInTwoDocuments(t *testing.T) {
	secs := []schema.Section{
		{Title: "Late Payment Penalties", Page: 8, Source: "msa.md", Content: "A late fee of 1.5% per month applies."},
		{Title: "Late Payment Penalties", Page: 8, Source: "other.pdf", Content: "VAT is charged at 19%."},
		{Title: "Fees", Page: 3, Source: "other.pdf", Content: "Fees are fixed."},
	}
	claims := SplitClaims("VAT is charged at 19%. (See Late Payment Penalties, page 8)")
	if len(claims) != 1 {
		t.Fatalf("claims = %+v", claims)
	}
	cited, problems := CheckCitations(claims[0], secs)
	if len(problems) > 0 || !reflect.DeepEqual(cited, []int{0, 1}) {
		t.Fatalf("cited %v problems %v, want both sections titled Late Payment Penalties on page 8", cited, problems)
	}
	v, err := NewOffline().Judge(context.Background(), schema.JudgeRequest{
		Query: "What VAT is charged?", Response: "VAT is charged at 19%. (See Late Payment Penalties, page 8)", Sections: secs,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Claims {
		if c.Contradiction != "" {
			t.Errorf("claim checked against the wrong document: %s", c.Contradiction)
		}
	}
}
