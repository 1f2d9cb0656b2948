package checkpoint

import (
	"encoding/json"
	"testing"

	"github.com/docmind/docmind/schema"
)

// FuzzDecodeState decodes stored state blobs, as a checkpoint file
// holds them: blob is decoded as stored, plain is deflated first so that
// the JSON decoder sees arbitrary text too. Decoding either fails with an
// error or yields a state that splitSections stores again as a blob which
// decodes to the same state.
func FuzzDecodeState(f *testing.F) {
	s := &SQLite{}
	answer := "The late fee is 1.5% per month [S1]."
	st := schema.NewState("What is the late fee?")
	st.Decomposition = &schema.Decomposition{Intent: "amount", SubQueries: []string{"What is the late fee?"}, Entities: []string{}, Constraints: []string{}, Temporals: []string{}}
	st.GeneratedResponse, st.FinalOutput = &answer, &answer
	st.JudgeVerdict = &schema.Verdict{ShouldReturn: true, ConfidenceScore: 0.9, Claims: []schema.ClaimCheck{{Claim: answer, Supported: true, Score: 1}},
		Signals: map[string]float64{"coverage": 1}}
	st.NodeHistory = []string{"decompose", "retrieve", "generate", "judge", "output"}
	st.PromptVersions = map[string]string{"generate": "generate-v3"}
	plain, err := json.Marshal(st)
	if err != nil {
		f.Fatal(err)
	}
	blob, err := s.deflate(plain)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(blob, plain)
	f.Add([]byte{}, []byte(`{}`))
	f.Add([]byte{0x01, 0x00, 0x00, 0xff, 0xff}, []byte(`{"query":1}`))
	f.Add(blob[:len(blob)/2], []byte(`{"judge_verdict":{"signals":{"x":1e400}},"retrieved_sections":[{"id":"a"}]}`))
	f.Add([]byte("not deflate"), []byte(`null`))
	f.Fuzz(func(t *testing.T, blob, plain []byte) {
		packed, err := s.deflate(plain)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range [][]byte{blob, packed} {
			st, err := decodeState(b)
			if err != nil {
				if st != nil {
					t.Fatalf("decodeState returned both a state and %v", err)
				}
				continue
			}
			st.RetrievedSections = nil // stored apart; queryCheckpoints fills them in
			stored, _, _, err := s.splitSections(st)
			if err != nil {
				t.Fatalf("decoded state does not store again: %v", err)
			}
			again, err := decodeState(stored)
			if err != nil {
				t.Fatalf("stored state does not decode: %v", err)
			}
			want, _ := json.Marshal(st)
			got, _ := json.Marshal(again)
			if string(got) != string(want) {
				t.Fatalf("state changed on storing again:\n%s\n%s", want, got)
			}
		}
	})
}
