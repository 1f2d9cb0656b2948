package relevance

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
)

// detectorCase is one case of testdata/detectors.jsonl, in the manner of
// go/analysis's analysistest: a question, a candidate answer in its
// context, the checks switched off, and the rule IDs the detectors must
// report (exactly; none for a near miss).
type detectorCase struct {
	Name                      string
	Question, Claim, Passage  string
	Before, Heading, Document string
	Named                     string
	Row                       bool
	Scope, Span, Header       string
	Kind                      schema.SectionKind
	Sections                  []string
	MinFocus                  float64 `json:"min_focus"`
	Off                       []string
	Want                      []string
}

func readDetectorCases(t *testing.T) []detectorCase {
	t.Helper()
	f, err := os.Open("testdata/detectors.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []detectorCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c detectorCase
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("testdata/detectors.jsonl: %v", err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (tc detectorCase) run() []string {
	// a case may switch off whole families of detectors
	var off []string
	for _, d := range Detectors() {
		if d.Run != nil && slices.Contains(tc.Off, d.Family()) {
			off = append(off, d.Name)
		}
	}
	if m := disabled.Load(); m != nil {
		for name := range *m {
			off = append(off, name) // those the caller switched off stay off
		}
	}
	if len(off) > 0 {
		restore, err := Disable(off...)
		if err != nil {
			panic(err)
		}
		defer restore()
	}
	c := Context{Claim: tc.Claim, Passage: tc.Passage, Before: tc.Before, Heading: tc.Heading, Document: tc.Document, Named: tc.Named,
		Row: tc.Row, Scope: tc.Scope, Span: tc.Span, Header: tc.Header, Kind: tc.Kind, Sections: tc.Sections}
	var got []string
	for _, f := range Analyze(tc.Question).Check(c, tc.MinFocus, nil, nil).Findings {
		if f.Claim != tc.Claim || f.Check != strings.Split(f.Rule, ".")[0] {
			panic("finding " + f.Rule + " names another claim or family")
		}
		got = append(got, f.Rule)
	}
	slices.Sort(got)
	return slices.Compact(got)
}

// Every case reports exactly its rule IDs.
func TestDetectorCases(t *testing.T) {
	for _, tc := range readDetectorCases(t) {
		if got := tc.run(); !slices.Equal(got, tc.Want) && !(len(got) == 0 && len(tc.Want) == 0) {
			t.Errorf("%s: %q / %q: rules %v, want %v", tc.Name, tc.Question, tc.Claim, got, tc.Want)
		}
	}
}

// Every detector Check runs has a case in which it fires, and a detector
// switched off (Disable) reports nothing there.
func TestEveryDetectorHasACase(t *testing.T) {
	cases := readDetectorCases(t)
	for _, d := range Detectors() {
		if d.Run == nil {
			continue
		}
		i := slices.IndexFunc(cases, func(c detectorCase) bool { return slices.Contains(c.Want, d.Name) })
		if i < 0 {
			t.Errorf("%s: no case in testdata/detectors.jsonl fires it", d.Name)
			continue
		}
		restore, err := Disable(d.Name)
		if err != nil {
			t.Fatal(err)
		}
		if got := cases[i].run(); slices.Contains(got, d.Name) {
			t.Errorf("%s switched off still fires: %v", d.Name, got)
		}
		restore()
	}
	if _, err := Disable("no.such-rule"); err == nil {
		t.Error("Disable accepted an unknown rule")
	}
}

// A detector reads only the outcome of the detectors it requires, which
// run before it.
func TestRequiresRunFirst(t *testing.T) {
	pos := map[*Detector]int{}
	for i, d := range registry {
		pos[d] = i
	}
	for _, d := range registry {
		for _, r := range d.Requires {
			if pos[r] >= pos[d] {
				t.Errorf("%s requires %s, registered after it", d.Name, r.Name)
			}
		}
		if d.Doc == "" || strings.Contains(d.Doc, "\n") {
			t.Errorf("%s: the doc must be one line", d.Name)
		}
	}
}
