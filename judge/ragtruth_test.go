package judge

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"

	"github.com/docmind/docmind/internal/testenv"
)

type ragRow struct {
	Source struct {
		Question string `json:"question"`
		Passages string `json:"passages"`
	} `json:"source"`
	Responses []struct {
		Response string `json:"response"`
		Labels   []struct {
			ImplicitTrue bool `json:"implicit_true"`
		} `json:"labels"`
	} `json:"responses"`
}

var rePassage = regexp.MustCompile(`(?m)^passage \d+:`)

func passages(s string) []schema.Section {
	var out []schema.Section
	idx := rePassage.FindAllStringIndex(s, -1)
	if len(idx) == 0 {
		return []schema.Section{{Title: "passage 1", Content: s}}
	}
	for i, m := range idx {
		end := len(s)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		out = append(out, schema.Section{Title: strings.TrimSuffix(s[m[0]:m[1]], ":"), Content: strings.TrimSpace(s[m[1]:end])})
	}
	return out
}

// TestRAGTruthQA measures the judge on the RAGTruth QA subset (response
// level, hallucinated = positive) with its default thresholds, which were
// not tuned on this data. The floor guards against regressions; the
// figure itself is logged (go test -run RAGTruth -v ./judge).
func TestRAGTruthQA(t *testing.T) {
	testenv.Long(t, "judges the RAGTruth QA set")
	if testing.Short() {
		t.Skip("RAGTruth run skipped in -short mode")
	}
	f, err := os.Open(testenv.SharedPath(t, "data", "ragtruth", "ragtruth_qa.jsonl"))
	if err != nil {
		t.Skip("RAGTruth QA subset not found:", err)
	}
	defer f.Close()
	j := NewOffline(WithRejectAbstentions(false))
	var tp, fp, fn, n int
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var row ragRow
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("reading RAGTruth: %v", err)
		}
		secs := passages(row.Source.Passages)
		for _, r := range row.Responses {
			gold := false
			for _, l := range r.Labels {
				if !l.ImplicitTrue {
					gold = true
				}
			}
			v, err := j.Judge(context.Background(), schema.JudgeRequest{Query: row.Source.Question, Response: r.Response, Sections: secs})
			if err != nil {
				t.Fatal(err)
			}
			n++
			switch {
			case v.IsHallucinated && gold:
				tp++
			case v.IsHallucinated:
				fp++
			case gold:
				fn++
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	p := float64(tp) / float64(max(tp+fp, 1))
	r := float64(tp) / float64(max(tp+fn, 1))
	f1 := 2 * p * r / max(p+r, 1e-9)
	t.Logf("RAGTruth QA, %d responses: precision %.3f recall %.3f F1 %.3f (tp %d fp %d fn %d)", n, p, r, f1, tp, fp, fn)
	// 0.461 with the penalised guard confidence; 0.426 with the one
	// decision model (2026-11-28), fitted on extractive answers, which
	// refuses most free-prose answers (recall 0.98, precision 0.27). The
	// cross-validated figure CI holds (eval judge --min-f1 0.60) is 0.616.
	if f1 < 0.42 {
		t.Errorf("F1 %.3f below the 0.42 floor", f1)
	}
}
