package judge

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/schema"
)

// FuzzParseVerdict feeds model replies through the JSON extraction and the
// verdict decoder, as GenerateStructured does. A reply either fails with
// an error or yields a verdict that holds what parseVerdict checks (a
// hallucination flag, non-empty claims, a confidence in [0, 1]), that
// encodes to JSON which decodes to the same verdict, and that assemble
// turns into a consistent schema.Verdict.
func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{
		`{"claims":[{"claim":"The late fee is 1.5% per month.","section_id":"S1","quote":"1.5% per month","supported":true,"contradiction":"","reason":"stated","addresses_question":true,"about":{"entity":"Acme","period":"2023"}}],"is_hallucinated":false,"answers_question":true,"relevance_reason":"","confidence_score":0.92,"reasoning":"All supported.","irrelevant_sections":["S2"]}`,
		"```json\n{\"claims\":[{\"claim\":\"x\",\"section_id\":\"[s2]\",\"supported\":false,\"about\":\"Oracle, fiscal 2022\"}],\"is_hallucinated\":true,\"confidence_score\":85}\n```",
		`Sure: {"claims":[{"claim":"y","about":["Oracle",2022,null]}],"is_hallucinated":true,"confidence_score":-0}`,
		`{"claims":[{"claim":"z","about":7}],"is_hallucinated":false,"confidence_score":1e400}`,
		`{"claims":[],"is_hallucinated":false}`,
		`{"claims":[{"claim":"  "}],"is_hallucinated":false}`,
		`{"is_hallucinated":null}`,
		`[1,2]`,
	} {
		f.Add(s)
	}
	sections := []schema.Section{
		{ID: "a", Title: "Late Payment Penalties", Content: "A late fee of 1.5% per month applies.", Source: "contract.pdf", Page: 8},
		{ID: "b", Title: "Suspension", Content: "Services may be suspended after 60 days.", Source: "contract.pdf", Page: 9},
	}
	keys := map[string]bool{}
	for _, s := range sections {
		keys[s.Key()] = true
	}
	f.Fuzz(func(t *testing.T, reply string) {
		js, err := llm.ExtractJSON(reply)
		if err != nil {
			return
		}
		v, err := parseVerdict(js)
		if err != nil {
			if v != nil {
				t.Fatalf("parseVerdict returned both a verdict and %v", err)
			}
			return
		}
		if v.IsHallucinated == nil || len(v.Claims) == 0 {
			t.Fatalf("accepted a verdict without a flag or claims: %+v", v)
		}
		for _, c := range v.Claims {
			if strings.TrimSpace(c.Claim) == "" {
				t.Fatalf("accepted an empty claim in %q", js)
			}
		}
		if math.IsNaN(v.ConfidenceScore) || v.ConfidenceScore < 0 || v.ConfidenceScore > 1 {
			t.Fatalf("accepted confidence %v", v.ConfidenceScore)
		}
		enc, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("verdict from %q does not encode: %v", js, err)
		}
		again, err := parseVerdict(string(enc))
		if err != nil {
			t.Fatalf("re-encoded verdict %s does not parse: %v", enc, err)
		}
		if enc2, _ := json.Marshal(again); string(enc2) != string(enc) {
			t.Fatalf("verdict changed on re-encoding:\n%s\n%s", enc, enc2)
		}

		out := assemble(v, guardResult{}, sections)
		if out.ShouldReturn == out.IsHallucinated {
			t.Fatalf("assembled verdict returns a hallucinated answer or holds back a clean one: %+v", out)
		}
		if math.IsNaN(out.ConfidenceScore) || out.ConfidenceScore < 0 || out.ConfidenceScore > 1 {
			t.Fatalf("assembled confidence %v", out.ConfidenceScore)
		}
		for _, k := range out.RejectedSections {
			if !keys[k] {
				t.Fatalf("rejected section %q was not retrieved", k)
			}
		}
	})
}
