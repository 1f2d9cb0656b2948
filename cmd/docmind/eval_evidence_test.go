package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/docmind/docmind/llm/openaitest"
)

// eval evidence over the fixture whose ranks are known
// (internal/eval/testdata/evidence): the table, a progress line per
// question when stderr is not a terminal, and the thresholds.
func TestEvalEvidence(t *testing.T) {
	dir := filepath.Join("internal", "eval", "testdata", "evidence")
	docs, qa := filepath.Join(dir, "docs"), filepath.Join(dir, "qa.jsonl")
	r := runCLI(t, nil, "eval", "evidence", "--docs", docs, qa)
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"2 with evidence to find, 2 skipped", "first pass @5     0.500", "first pass @20     1.000", "repairs  What happened to the keeper's lantern glass? — evidence at rank 13 of the first pass, not handed on"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, want := range []string{"evidence 1/2 clock: evidence rank 1", "evidence 2/2 repairs: evidence rank 13"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks the progress line %q:\n%s", want, r.stderr)
		}
	}

	// Thresholds: recall@20 is met, recall@5 is not; one line names it.
	r = runCLI(t, nil, "eval", "evidence", "--docs", docs, qa, "--json", "--min-recall-at-20", "1", "--min-recall-at-5", "0.6")
	last := strings.TrimSpace(r.stderr)
	last = last[strings.LastIndex(last, "\n")+1:]
	if r.code != exitError || !strings.Contains(last, "evidence recall@5 0.500 < --min-recall-at-5 0.600") || strings.Contains(last, "recall@20") {
		t.Errorf("thresholds: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "evidence 1/2") {
		t.Errorf("--json in a pipe printed progress lines:\n%s", r.stderr)
	}
}

// eval qa --match takes lead or jaccard; anything else is a usage error
// naming the rules.
func TestEvalQAMatchFlag(t *testing.T) {
	r := runCLI(t, nil, "eval", "qa", "--docs", "examples/contract", "--match", "f1", filepath.Join("internal", "eval", "testdata", "qa", "contract_heldout.jsonl"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "lead or jaccard") {
		t.Errorf("--match f1: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// --split test runs the held-out contract questions only; the dev set has
// none, which is an error.
func TestEvalSplitFlag(t *testing.T) {
	qa := filepath.Join("internal", "eval", "testdata", "qa")
	r := runCLI(t, nil, "eval", "evidence", "--docs", "examples/contract", "--split", "test", "--json", filepath.Join(qa, "contract_heldout.jsonl"))
	if r.code != exitOK || !strings.Contains(r.stdout, `"questions": 20`) {
		t.Errorf("--split test: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, nil, "eval", "qa", "--docs", "examples/contract", "--split", "test", filepath.Join(qa, "contract.jsonl"))
	if r.code != exitError || !strings.Contains(r.stderr, "none of the 55 questions is in the test split") {
		t.Errorf("--split test of the dev set: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, nil, "eval", "qa", "--docs", "examples/contract", "--split", "train", filepath.Join(qa, "contract.jsonl"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "dev, test or all") {
		t.Errorf("--split train: exit %d\n%s", r.code, r.stderr)
	}
}

// In LLM mode eval evidence runs the model's pipeline: the first pass
// stops after retrieval (one decomposition, no generation), then the real
// run decomposes once more and answers as ask does, here over two passes
// (the 5% answer rejected, then 1.5%), all through the real client to
// the scripted server.
func TestEvalEvidenceLLMMode(t *testing.T) {
	srv := openaitest.New(t)
	generations := contractModel(t, srv, "5%", "1.5%")
	qa := filepath.Join(t.TempDir(), "qa.jsonl")
	row := `{"id":"late","question":"What are the penalties?","answers":["1.5% per month"],"source":"master-services-agreement.md","page":8}` + "\n"
	if err := os.WriteFile(qa, []byte(row), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, llmEnv(srv), "eval", "evidence", "--docs", "examples/contract", qa, "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	var rep struct {
		Measured int `json:"measured"`
		Results  []struct {
			EvidenceRank int  `json:"evidence_rank"`
			HandedOn     bool `json:"handed_on"`
			Passes       int  `json:"passes"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if rep.Measured != 1 || len(rep.Results) != 1 {
		t.Fatalf("report %+v, want one result", rep)
	}
	if rep.Results[0].EvidenceRank < 1 || !rep.Results[0].HandedOn || rep.Results[0].Passes != 2 {
		t.Errorf("report %+v, want the evidence found, handed on, over 2 passes", rep)
	}
	if got := srv.Calls(openaitest.RouteDecomposition); got != 2 {
		t.Errorf("decompositions = %d, want 2 (the first pass, the real run)", got)
	}
	if got := generations.Load(); got != 2 {
		t.Errorf("generations = %d, want 2 (the real run's two answers; the first pass generates nothing)", got)
	}
}

// A model's search terms find a paraphrased question's passage: "buyback
// capacity" is written "authorized for repurchase" in the report, among
// sections that repeat the question's other words. Without search terms
// the first pass of LLM mode does not hand the passage on; with the
// decomposition's "repurchase" and "authorized" it is (their ranking is
// fused with the question's).
func TestEvalEvidenceLLMSearchTerms(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.Mkdir(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	report.WriteString("# Northwind Traders Annual Report\n\n")
	for _, s := range [][2]string{
		{"Stock Program Overview", "The stock program lets employees buy stock at a discount. The stock program capacity is set by the board each year, and the program remained open to all staff during the year."},
		{"Employee Stock Purchase Plan", "Under the employee stock program, employees may contribute up to 10% of pay. Capacity under the plan remained unchanged, and the stock program had 4,000 participants."},
		{"Stock Options", "Options granted under the stock program vest over four years. The capacity of the option pool remained at 12 million options under the program."},
		{"Restricted Stock Units", "Restricted stock units under the stock program vest annually. Program capacity for units remained sufficient for the year."},
		{"Warehouse Capacity", "Warehouse capacity remained at 2.3 million square feet. The distribution program added two sites, and stock levels remained high."},
		{"Inventory", "Stock on hand remained at 45 days of sales. The inventory program reduced stock capacity needs."},
		{"Share Repurchases", "In March the Board authorized the repurchase of up to $5.0 billion of the Company's common shares. As of December 31, $2.1 billion remained authorized for repurchase."},
		{"Dividends", "The Company paid quarterly dividends of $0.25 per share."},
	} {
		fmt.Fprintf(&report, "## %s\n\n%s\n\n", s[0], s[1])
	}
	if err := os.WriteFile(filepath.Join(docs, "annual-report.md"), []byte(report.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const q = "How much buyback capacity remained under the stock program at year end?"
	qa := filepath.Join(dir, "qa.jsonl")
	row := `{"id":"buyback","question":"` + q + `","answers":["$2.1 billion remained authorized for repurchase"],"source":"annual-report.md"}` + "\n"
	if err := os.WriteFile(qa, []byte(row), 0o644); err != nil {
		t.Fatal(err)
	}
	handedOn := func(terms []string) bool {
		t.Helper()
		srv := openaitest.New(t)
		dec, err := json.Marshal(map[string]any{
			"intent": "amount", "sub_queries": []string{q}, "entities": []string{}, "constraints": []string{},
			"temporals": []string{"year end"}, "key_terms": []string{"buyback", "capacity", "stock", "program"}, "search_terms": terms,
		})
		if err != nil {
			t.Fatal(err)
		}
		srv.Always(openaitest.RouteDecomposition, openaitest.Reply{Content: string(dec)})
		srv.Always(openaitest.RouteGenerate, openaitest.Reply{Content: "The provided documents do not address this question."})
		srv.Always(openaitest.RouteVerdict, openaitest.Reply{Content: `{"claims":[],"is_hallucinated":false,"confidence_score":0.9,"reasoning":"the answer abstains","irrelevant_sections":[]}`})
		r := runCLI(t, llmEnv(srv), "eval", "evidence", "--docs", docs, qa, "--json")
		if r.code != exitOK {
			t.Fatalf("search terms %q: exit %d; stderr:\n%s", terms, r.code, r.stderr)
		}
		var rep struct {
			Results []struct {
				HandedOn bool   `json:"handed_on"`
				Err      string `json:"error"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Results) != 1 || rep.Results[0].Err != "" {
			t.Fatalf("search terms %q: %v\n%s", terms, err, r.stdout)
		}
		return rep.Results[0].HandedOn
	}
	if handedOn([]string{}) {
		t.Fatal("without search terms the first pass hands the evidence on: the case tests nothing")
	}
	if !handedOn([]string{"repurchase", "authorized", "share repurchase program"}) {
		t.Error("with search terms the first pass does not hand the evidence on")
	}
}

// --rerank has the model put the passage that answers first: the policy
// the question names says "disclose … to other parties" for "share my
// information with other companies", among segments that repeat the
// question's words about other things. By words its segment ranks below
// the third (every segment of the named policy is a candidate); the
// scripted model,
// which lists the segments that say "disclose", puts it first, on the
// first pass and in what the run hands on.
func TestEvalEvidenceLLMRerank(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.Mkdir(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	var policy strings.Builder
	policy.WriteString("# Example News Privacy Policy\n\n")
	for i, text := range []string{
		"Share buttons on our pages let you share articles with other readers. Information about share counts is public.",
		"Information you give us when you sign up includes your name and email address. You can share your profile with other members.",
		"Other companies' websites linked from our pages have their own privacy policies; we do not control what information other companies collect.",
		"Share prices and company information shown on our finance pages come from other providers.",
		"Our newsletter shares information about other events and offers from our companies.",
		"We may disclose personal information about you to other parties: our affiliates and the advertisers who help us run the service.",
		"Cookies store information on your device so that you stay signed in.",
	} {
		fmt.Fprintf(&policy, "## Segment %d\n\n%s\n\n", i+1, text)
	}
	if err := os.WriteFile(filepath.Join(docs, "policy.md"), []byte(policy.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	other := "# Acme Shop Privacy Policy\n\n## Orders\n\nWe share your address with the carrier that delivers your order.\n\n## Payments\n\nCard payments are handled by our payment provider.\n"
	if err := os.WriteFile(filepath.Join(docs, "acme.md"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	const q = "According to the Example News privacy policy, do you share my information with other companies?"
	qa := filepath.Join(dir, "qa.jsonl")
	row := `{"id":"share","question":"` + q + `","answers":["We may disclose personal information about you to other parties"],"source":"policy.md"}` + "\n"
	if err := os.WriteFile(qa, []byte(row), 0o644); err != nil {
		t.Fatal(err)
	}
	docRE := regexp.MustCompile(`<document id="(S\d+)"[^>]*>\n([^<]*)\n</document>`)
	run := func(args ...string) (rank int, handedFirst bool, rankings int) {
		t.Helper()
		srv := openaitest.New(t)
		srv.Always(openaitest.RouteDecomposition, openaitest.Reply{Content: `{"intent":"yes_no","sub_queries":["` + q + `"],"entities":[],"constraints":[],"temporals":[],"key_terms":["share","information","companies"],"search_terms":[]}`})
		srv.Always(openaitest.RouteGenerate, openaitest.Reply{Content: "The provided documents do not address this question."})
		srv.Always(openaitest.RouteVerdict, openaitest.Reply{Content: `{"claims":[],"is_hallucinated":false,"confidence_score":0.9,"reasoning":"the answer abstains","irrelevant_sections":[]}`})
		var first []string
		srv.Respond(func(req openaitest.Request) openaitest.Reply {
			var ids []string
			for _, m := range docRE.FindAllStringSubmatch(req.Text(), -1) {
				if strings.Contains(m[2], "disclose") {
					ids = append(ids, m[1])
				}
			}
			b, _ := json.Marshal(map[string]any{"relevant": ids})
			return openaitest.Reply{Content: string(b)}
		})
		srv.Check(func(req openaitest.Request) error {
			if req.Route == openaitest.RouteGenerate && first == nil {
				first = docRE.FindStringSubmatch(req.Text())
			}
			return nil
		})
		r := runCLI(t, llmEnv(srv), append([]string{"eval", "evidence", "--docs", docs, qa, "--json"}, args...)...)
		if r.code != exitOK {
			t.Fatalf("%v: exit %d; stderr:\n%s", args, r.code, r.stderr)
		}
		var rep struct {
			Results []struct {
				EvidenceRank int    `json:"evidence_rank"`
				Err          string `json:"error"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Results) != 1 || rep.Results[0].Err != "" {
			t.Fatalf("%v: %v\n%s", args, err, r.stdout)
		}
		return rep.Results[0].EvidenceRank, len(first) == 3 && strings.Contains(first[2], "disclose"), srv.Calls(openaitest.RouteRanking)
	}
	if rank, first, calls := run(); rank <= 3 || first || calls != 0 {
		t.Fatalf("without --rerank: evidence at rank %d, first handed on %v, %d rankings; the case needs it under the third and no ranking", rank, first, calls)
	}
	if rank, first, calls := run("--rerank", "20"); rank != 1 || !first || calls < 2 {
		t.Errorf("with --rerank 20: evidence at rank %d, first handed on %v, %d rankings; want rank 1, first in the answer's prompt, a ranking per pass", rank, first, calls)
	}
}

// --rerank needs a model: offline it is one clear error line.
func TestRerankNeedsAModel(t *testing.T) {
	r := runCLI(t, nil, "ask", "--docs", "examples/contract", "--rerank", "20", "What is the late fee?")
	if r.code != exitUsage || strings.Count(r.stderr, "docmind: --rerank needs a model") != 1 {
		t.Errorf("exit %d, stderr %q; want a usage error naming --rerank", r.code, r.stderr)
	}
	r = runCLI(t, nil, "ask", "--docs", "examples/contract", "--rerank", "-1", "What is the late fee?")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--rerank must be 0") {
		t.Errorf("exit %d, stderr %q; want a usage error for a negative --rerank", r.code, r.stderr)
	}
	r = runCLI(t, nil, "ask", "--docs", "examples/contract", "--rerank", "101", "What is the late fee?")
	if r.code != exitUsage || !strings.Contains(r.stderr, "up to 100, got 101") {
		t.Errorf("exit %d, stderr %q; want a usage error for a --rerank over the bound", r.code, r.stderr)
	}
}
