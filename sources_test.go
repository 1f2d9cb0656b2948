package docmind

import (
	"context"
	"testing"

	"github.com/docmind/docmind/schema"
)

type echoJudge struct{ got []schema.Section }

func (e *echoJudge) Judge(_ context.Context, req schema.JudgeRequest) (*schema.Verdict, error) {
	e.got = req.Sections
	s := req.Sections[0]
	return &schema.Verdict{Claims: []schema.ClaimCheck{{Evidence: &schema.Evidence{Source: s.Source, Title: s.Title}}},
		RejectedSections: []string{s.Key()}}, nil
}

// The judge sees sources relative to the root; the verdict keeps the
// original sources and keys.
func TestPromptSourcesRelativeToRoot(t *testing.T) {
	secs := []schema.Section{
		{Title: "Fees", Source: "/home/ana/contracts/acme/msa.md"},
		{Title: "Terms", Source: "/home/ana/contracts/dpa.md"},
		{Title: "Other", Source: "/srv/elsewhere/x.md"},
	}
	if got := SourceRoot(secs[0].Source, secs[1].Source); got != "/home/ana/contracts" {
		t.Errorf("SourceRoot = %q", got)
	}
	inner := &echoJudge{}
	v, err := relJudge{inner: inner, root: "/home/ana/contracts"}.Judge(context.Background(), schema.JudgeRequest{Sections: secs})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"acme/msa.md", "dpa.md", "x.md"} {
		if inner.got[i].Source != want {
			t.Errorf("judge saw source %q, want %q", inner.got[i].Source, want)
		}
	}
	if v.Claims[0].Evidence.Source != secs[0].Source || v.RejectedSections[0] != secs[0].Key() {
		t.Errorf("verdict evidence %q, rejected %v: want the original source and key", v.Claims[0].Evidence.Source, v.RejectedSections)
	}
	if secs[0].Source != "/home/ana/contracts/acme/msa.md" {
		t.Error("the caller's sections were modified")
	}
}
