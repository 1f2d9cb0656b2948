package schema

import "testing"

// A refusal states each finding once: the same detail for several claims
// is said once for all of them.
func TestVerdictSummaryStatesFindingsOnce(t *testing.T) {
	v := &Verdict{Reasoning: `Not grounded: claim 1 "Revenue was 5": the cited section is about another period; ` +
		`claim 2 "Income was 3": the cited section is about another period; claim 3 "Margin was 2": the cited section is about another period. ` +
		`Note: retried twice. Note: retried twice.`}
	want := `Not grounded: claims 1, 2 and 3: the cited section is about another period. Note: retried twice.`
	if got := v.Summary(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	one := &Verdict{Reasoning: "Grounded: the 1 claim is supported by the retrieved sections (lowest support 0.90); numbers agree."}
	if got := one.Summary(); got != one.Reasoning {
		t.Errorf("a reasoning without repeats changed: %q", got)
	}
}

// Source lists show the printed page with the PDF index beside it only
// where the two differ.
func TestSourceRef(t *testing.T) {
	for _, tt := range []struct {
		s    Section
		want string
	}{
		{Section{Page: 45, PageLabel: "43"}, "page 43 (PDF page 45)"},
		{Section{Page: 8}, "page 8"},
		{Section{Page: 5, PageEnd: 6, PageLabel: "5–6"}, "pages 5–6"},
		{Section{Page: 32, PageEnd: 33, PageLabel: "29–30"}, "pages 29–30 (PDF pages 32–33)"},
	} {
		if got := tt.s.SourceRef(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.s, got, tt.want)
		}
	}
}
