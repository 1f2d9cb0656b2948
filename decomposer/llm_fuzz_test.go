package decomposer

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/question"
)

// FuzzParseDecomposition feeds model replies through the JSON extraction
// and the decomposition decoder, as the LLM decomposer does. A reply
// either fails with an error or yields a decomposition with a known
// intent, at least one sub-query, lists without blank or repeated entries,
// and JSON that decodes to the same decomposition.
func FuzzParseDecomposition(f *testing.F) {
	for _, s := range []string{
		`{"intent":"amount","sub_queries":["What are the late payment penalties?"],"entities":[],"constraints":[],"temporals":["per month"],"key_terms":["late","payment","penalties"]}`,
		"```json\n{\"intent\":\"Penalty\",\"sub_queries\":\"late fees?\",\"entities\":null,\"constraints\":[],\"temporals\":[],\"key_terms\":[]}\n```",
		`Here: {"intent":"","sub_queries":[" a ","A",null,3,true,{"x":1}],"key_terms":"fee"}`,
		`{"intent":"comparison","entities":{"a":1}}`,
		`{"key_terms":["x"]}`,
		`{}`,
		`[]`,
	} {
		f.Add(s, "What is the fee?")
	}
	f.Fuzz(func(t *testing.T, reply, query string) {
		// The question comes from the user, as text.
		query = strings.TrimSpace(strings.ToValidUTF8(query, "\uFFFD"))
		if query == "" {
			return // Decompose refuses an empty question before asking
		}
		js, err := llm.ExtractJSON(reply)
		if err != nil {
			return
		}
		d, err := parseDecomposition(js, query)
		if err != nil {
			if d != nil {
				t.Fatalf("parseDecomposition returned both a decomposition and %v", err)
			}
			return
		}
		if !question.IsIntent(d.Intent) {
			t.Fatalf("unknown intent %q", d.Intent)
		}
		if len(d.SubQueries) == 0 {
			t.Fatal("no sub-queries")
		}
		for name, list := range map[string][]string{"sub_queries": d.SubQueries, "entities": d.Entities,
			"constraints": d.Constraints, "temporals": d.Temporals, "key_terms": d.KeyTerms} {
			if list == nil && name != "key_terms" {
				t.Fatalf("%s is nil (encodes as null)", name)
			}
			seen := map[string]bool{}
			for _, s := range list {
				if name != "sub_queries" || s != query {
					if strings.TrimSpace(s) == "" || s != strings.TrimSpace(s) {
						t.Fatalf("%s holds %q", name, s)
					}
				}
				if seen[strings.ToLower(s)] {
					t.Fatalf("%s repeats %q", name, s)
				}
				seen[strings.ToLower(s)] = true
			}
		}
		enc, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("decomposition does not encode: %v", err)
		}
		again, err := parseDecomposition(string(enc), query)
		if err != nil {
			t.Fatalf("re-encoded decomposition %s does not parse: %v", enc, err)
		}
		if !reflect.DeepEqual(again, d) {
			t.Fatalf("decomposition changed on re-encoding:\n%+v\n%+v", d, again)
		}
	})
}
