package server

import (
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
)

// The API's JSON says which rules refused an answer: the verdict's
// findings name them, and the candidates the generator passed over are in
// the notes with theirs.
func TestAskRefusalNamesItsRules(t *testing.T) {
	ts, _ := newServer(t, nil)
	out := ask(t, ts, `{"question": "What was the late fee in 2019?"}`)
	if out.Answered() {
		t.Fatalf("answered %q; want a refusal", out.Answer())
	}
	v := out.State.JudgeVerdict
	if v == nil || len(v.Findings) == 0 || v.Findings[0].Rule == "" {
		t.Fatalf("verdict %+v: no findings with rules", v)
	}
	if note := out.State.Notes[schema.NodeGenerate+schema.PassedOverSuffix]; !strings.Contains(note, "period.unstated") {
		t.Errorf("passed-over note %q; want the late fee's sentences passed over by period.unstated", note)
	}
}
