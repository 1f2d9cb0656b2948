package judge

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
)

func TestNovelTerms(t *testing.T) {
	known := KnownTerms("how do I grill a steak", []schema.Section{{Title: "Grilling", Content: "Grill the steak for five minutes on each side."}})
	for text, want := range map[string][]string{
		"3. Grill the steak on each side (Passage 2).":            nil, // list marker and source words ignored
		"Season the steak generously with salt and pepper.":       {"generous", "pepper", "salt", "season"},
		"Based on the provided passages, grill the steak. Grill!": nil,
		"Rest the steak, rest it well.":                           {"rest", "well"},
	} {
		if got := NovelTerms(text, known); !reflect.DeepEqual(got, want) {
			t.Errorf("NovelTerms(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestMaxNovelTerms(t *testing.T) {
	req := schema.JudgeRequest{
		Query:    "how do I grill a steak",
		Sections: []schema.Section{{Title: "Grilling", Content: "Grill the steak for five minutes on each side."}},
		Response: "Grill the steak for five minutes on each side. Season it generously with salt and pepper first.",
	}
	ctx := context.Background()
	a, err := NewOffline().Score(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"first", "generous", "pepper", "salt", "season"}; !reflect.DeepEqual(a.NovelTerms, want) {
		t.Fatalf("NovelTerms = %v, want %v", a.NovelTerms, want)
	}
	base := []Option{WithThresholds(Thresholds{Window: 2}), WithRejectAbstentions(false)}
	for _, tt := range []struct {
		max          int
		hallucinated bool
	}{{-1, false}, {5, false}, {4, true}, {0, true}} {
		v, err := NewOffline(append(base, WithMaxNovelTerms(tt.max))...).Judge(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if v.IsHallucinated != tt.hallucinated {
			t.Errorf("max %d: hallucinated = %v (%s)", tt.max, v.IsHallucinated, v.Reasoning)
		}
		if tt.hallucinated {
			// Only the second claim introduces new terms.
			if v.Claims[0].Supported == false || v.Claims[1].Supported || !strings.Contains(v.Claims[1].Reason, "found in no section") {
				t.Errorf("max %d: claims = %+v", tt.max, v.Claims)
			}
			if v.ConfidenceScore > 0.5 || !strings.Contains(v.Reasoning, "more than") {
				t.Errorf("max %d: confidence %v, reasoning %q", tt.max, v.ConfidenceScore, v.Reasoning)
			}
		}
	}
	// The default judge does not use the check: same verdict with and
	// without the terms counted.
	def, _ := NewOffline().Judge(ctx, req)
	off, _ := NewOffline(WithMaxNovelTerms(-1)).Judge(ctx, req)
	if def.IsHallucinated != off.IsHallucinated || def.ConfidenceScore != off.ConfidenceScore {
		t.Error("the novelty check changed the default judge")
	}
}
