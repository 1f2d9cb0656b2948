// Command benchtable keeps BENCHMARKS.md: a table of today's figures, each
// beside the command that produced it, the machine and the date, generated
// from the reports committed in benchmarks/reports.
//
//	go run ./scripts/benchtable wrap -name qa-contract -command "docmind eval qa ..." -seconds 12 -load "1.2 0.9 0.5" < raw.json > benchmarks/reports/qa-contract.json
//	go run ./scripts/benchtable            # rewrite BENCHMARKS.md from the reports
//	go run ./scripts/benchtable -check     # fail when BENCHMARKS.md is not what the reports make it
//
// A report is the --json output of a docmind eval command (or of a
// measurement that writes the same envelope), wrapped with what produced
// it. scripts/benchmarks.sh runs the evaluations of CI and writes the
// reports.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Report is one file of benchmarks/reports.
type Report struct {
	// Name is the report's file name without .json; Kind the command
	// that wrote Result: "eval qa", "eval evidence", "eval judge",
	// "eval relevance", "eval retrieval", "measurements" (a result of
	// worded figures: {"figures": [{"label", "value"}]}) or "test time".
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Title is what the figure measures ("contract, development set").
	Title   string  `json:"title"`
	Command string  `json:"command"`
	Date    string  `json:"date"`
	Commit  string  `json:"commit,omitempty"`
	Machine Machine `json:"machine"`
	// Seconds is the command's wall time.
	Seconds float64 `json:"seconds"`
	// Trimmed lists the per-item fields of Result left out of the
	// committed file (per-question results, curves).
	Trimmed []string        `json:"trimmed,omitempty"`
	Result  json.RawMessage `json:"result"`
}

// Machine is where a report was measured.
type Machine struct {
	NProc int    `json:"nproc"`
	CPU   string `json:"cpu,omitempty"`
	OS    string `json:"os"`
	Go    string `json:"go"`
	// Load is /proc/loadavg's 1, 5 and 15 minute loads when the command
	// started: other work on the machine slows timings, not quality.
	Load string `json:"load,omitempty"`
}

const (
	reportsDir = "benchmarks/reports"
	tablePath  = "BENCHMARKS.md"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "wrap" {
		if err := wrap(os.Args[2:], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "benchtable wrap:", err)
			os.Exit(1)
		}
		return
	}
	check := flag.Bool("check", false, "fail when "+tablePath+" is not what the reports make it")
	flag.Parse()
	table, err := render(reportsDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	if *check {
		got, err := os.ReadFile(tablePath)
		if err != nil || !bytes.Equal(got, []byte(table)) {
			fmt.Fprintf(os.Stderr, "benchtable: %s is not current: run go run ./scripts/benchtable and commit it\n", tablePath)
			os.Exit(1)
		}
		return
	}
	if err := os.WriteFile(tablePath, []byte(table), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// trimmedKeys are per-item fields of eval reports, left out of committed
// reports (they hold every question's answer).
var trimmedKeys = []string{"results", "risk_coverage", "curve"}

// wrap reads a --json report on in and writes it in a Report envelope.
func wrap(args []string, in io.Reader, out io.Writer) error {
	fs := flag.NewFlagSet("wrap", flag.ContinueOnError)
	r := Report{}
	fs.StringVar(&r.Name, "name", "", "the report's name")
	fs.StringVar(&r.Kind, "kind", "", `the command: "eval qa", "eval evidence", "eval judge", "eval relevance", "eval retrieval", "test time"`)
	fs.StringVar(&r.Title, "title", "", "what the figure measures")
	fs.StringVar(&r.Command, "command", "", "the command line that produced the report")
	fs.Float64Var(&r.Seconds, "seconds", 0, "the command's wall time")
	fs.StringVar(&r.Machine.Load, "load", "", "the load when the command started (/proc/loadavg)")
	fs.StringVar(&r.Commit, "commit", "", "the commit the command was built from (default: git's HEAD)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if r.Name == "" || r.Kind == "" || r.Command == "" {
		return fmt.Errorf("-name, -kind and -command are required")
	}
	if _, ok := figures[r.Kind]; !ok {
		return fmt.Errorf("unknown -kind %q", r.Kind)
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("the report is not a JSON object: %v", err)
	}
	for _, k := range trimmedKeys {
		if _, ok := fields[k]; ok {
			delete(fields, k)
			r.Trimmed = append(r.Trimmed, k)
		}
	}
	if r.Result, err = json.Marshal(fields); err != nil {
		return err
	}
	r.Date = time.Now().UTC().Format("2006-01-02")
	r.Machine.NProc = runtime.NumCPU()
	r.Machine.OS = runtime.GOOS + "/" + runtime.GOARCH
	r.Machine.Go = runtime.Version()
	r.Machine.CPU = cpuModel()
	if c, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil && r.Commit == "" {
		r.Commit = strings.TrimSpace(string(c))
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// cpuModel is the first "model name" of /proc/cpuinfo, or "".
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// figure is one measured quantity of a report.
type figure struct {
	label string
	// path is the keys into the result; a key "k=5" picks, from an
	// array, the object whose field k is 5 (eval evidence's first_pass)
	path  []string
	pct   bool // a ratio shown as a percentage
	count bool // a whole number of questions
	unit  string
	// of is the count the figure is a share of: none when it is 0 (no
	// citation had a page to check)
	of []string
}

// figures says which quantities of each kind of report the table shows.
var figures = map[string][]figure{
	"eval qa": {
		{label: "answerable answered correctly", path: []string{"answerable_correct"}, pct: true},
		{label: "accuracy of the answers given", path: []string{"answered_accuracy"}, pct: true},
		{label: "wrong answers (answered, not correct)", path: []string{"wrong_answers"}, count: true},
		{label: "refusals that were right (precision)", path: []string{"abstention_precision"}, pct: true},
		{label: "unanswerable questions refused (recall)", path: []string{"abstention_recall"}, pct: true},
		{label: "citation page right", path: []string{"citation_page_accuracy"}, pct: true, of: []string{"citation_checked"}},
		{label: "answers citing another document than the question's", path: []string{"other_document_answers"}, count: true, of: []string{"document_checked"}},
		{label: "answerable: evidence handed on by the first pass", path: []string{"first_pass", "evidence_handed_on"}, pct: true, of: []string{"first_pass", "located"}},
		{label: "answerable: first draft right, whatever the judge decided", path: []string{"first_pass", "draft_correct"}, pct: true},
		{label: "evidence handed on: answered correctly", path: []string{"first_pass", "with_evidence", "answerable_correct"}, pct: true, of: []string{"first_pass", "with_evidence", "questions"}},
		{label: "evidence handed on: accuracy of the answers given", path: []string{"first_pass", "with_evidence", "answered_accuracy"}, pct: true, of: []string{"first_pass", "with_evidence", "answered"}},
		{label: "refused answerable: evidence among the closest passages", path: []string{"refusals", "closest_hold_evidence"}, pct: true, of: []string{"refusals", "located"}},
		{label: "refused answerable: the answer in a closest passage's excerpt", path: []string{"refusals", "excerpts_state_answer"}, pct: true, of: []string{"refusals", "with_gold"}},
		{label: "latency p50", path: []string{"latency_p50_ms"}, unit: "ms"},
	},
	"eval evidence": {
		{label: "questions measured (answerable, evidence located)", path: []string{"measured"}, count: true},
		{label: "first-pass evidence recall at 1", path: []string{"first_pass", "k=1", "evidence"}, pct: true},
		{label: "first-pass evidence recall at 3", path: []string{"first_pass", "k=3", "evidence"}, pct: true},
		{label: "first-pass evidence recall at 5", path: []string{"first_pass", "k=5", "evidence"}, pct: true},
		{label: "first-pass evidence recall at 10 (what LLM mode hands on)", path: []string{"first_pass", "k=10", "evidence"}, pct: true},
		{label: "first-pass evidence recall at 20", path: []string{"first_pass", "k=20", "evidence"}, pct: true},
		{label: "evidence in the sections handed on", path: []string{"handed_on", "evidence"}, pct: true},
		{label: "evidence in any pass (retries too)", path: []string{"any_pass", "evidence"}, pct: true},
		{label: "right document in the first pass's 5", path: []string{"first_pass", "k=5", "document"}, pct: true},
	},
	"eval judge": {
		{label: "response-level F1 (hallucinated = positive)", path: []string{"qa", "f1"}},
		{label: "precision", path: []string{"qa", "precision"}},
		{label: "recall", path: []string{"qa", "recall"}},
	},
	"eval relevance": {
		{label: "accuracy at confidence 0.5 (gold accepted, distractor refused)", path: []string{"at_half", "accuracy"}, pct: true},
		{label: "distractors refused", path: []string{"distractors_refused"}, pct: true},
	},
	"eval retrieval": {
		{label: "nDCG@10", path: []string{"ndcg_at_10"}},
		{label: "recall@100", path: []string{"recall_at_100"}},
	},
	"test time": {
		{label: "wall time", path: []string{"seconds"}, unit: "s"},
	},
	// A measurement's result lists its own figures, already worded:
	// {"figures": [{"label": "...", "value": "..."}]}. Speed and memory
	// figures are ratios taken inside one run (the machine is shared).
	"measurements": nil,
}

// kinds is the order of the table's sections.
var kinds = []string{"eval qa", "eval evidence", "eval relevance", "eval judge", "eval retrieval", "measurements", "test time"}

// render builds BENCHMARKS.md from the reports in dir.
func render(dir string) (string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return "", err
	}
	if len(paths) == 0 {
		return "", fmt.Errorf("no reports in %s", dir)
	}
	var reports []Report
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		var r Report
		if err := json.Unmarshal(data, &r); err != nil {
			return "", fmt.Errorf("%s: %v", p, err)
		}
		if _, ok := figures[r.Kind]; !ok {
			return "", fmt.Errorf("%s: unknown kind %q", p, r.Kind)
		}
		reports = append(reports, r)
	}
	order := map[string]int{}
	for i, k := range kinds {
		order[k] = i
	}
	sort.SliceStable(reports, func(i, j int) bool {
		if order[reports[i].Kind] != order[reports[j].Kind] {
			return order[reports[i].Kind] < order[reports[j].Kind]
		}
		return reports[i].Name < reports[j].Name
	})
	var b strings.Builder
	b.WriteString("# Benchmarks\n\n")
	b.WriteString("<!-- Generated by go run ./scripts/benchtable from benchmarks/reports/*.json: do not edit. -->\n\n")
	b.WriteString("Today's figures, each beside the command that produced it, the machine and the date. ")
	b.WriteString("The reports are the commands' `--json` output in `benchmarks/reports/` (per-question results left out); ")
	b.WriteString("`scripts/benchmarks.sh` runs the evaluations again and `go run ./scripts/benchtable` rewrites this page, which CI checks against the reports. ")
	b.WriteString("Quality figures do not depend on the machine; times do, and the load when a command started is given beside them. ")
	b.WriteString("How each figure moved, change by change, is in [docs/notes/benchmarks-history.md](docs/notes/benchmarks-history.md) and the git log; what the sets are and how they are scored is in [docs/evaluation.md](docs/evaluation.md).\n")
	kind := ""
	for _, r := range reports {
		if r.Kind != kind {
			kind = r.Kind
			fmt.Fprintf(&b, "\n## %s\n\n| Set | Figure | Value |\n|---|---|---|\n", heading(kind))
		}
		var result map[string]any
		if err := json.Unmarshal(r.Result, &result); err != nil {
			return "", fmt.Errorf("%s: %v", r.Name, err)
		}
		rows, err := rowsOf(r.Kind, result)
		if err != nil {
			return "", fmt.Errorf("%s: %v", r.Name, err)
		}
		for i, row := range rows {
			set := ""
			if i == 0 {
				set = "**" + r.Title + "**"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", set, cell(row[0]), cell(row[1]))
		}
		fmt.Fprintf(&b, "| | command | `%s` |\n", strings.ReplaceAll(r.Command, "|", `\|`))
		fmt.Fprintf(&b, "| | measured | %s, %s, %d cores (%s), %s, load %s, %.0f s |\n",
			r.Date, r.Commit, r.Machine.NProc, r.Machine.CPU, r.Machine.Go, r.Machine.Load, r.Seconds)
	}
	return b.String(), nil
}

// rowsOf is the (label, value) rows a report of kind shows.
func rowsOf(kind string, result map[string]any) ([][2]string, error) {
	var rows [][2]string
	if kind != "measurements" {
		for _, f := range figures[kind] {
			rows = append(rows, [2]string{f.label, value(result, f)})
		}
		return rows, nil
	}
	list, _ := result["figures"].([]any)
	for _, e := range list {
		m, _ := e.(map[string]any)
		label, _ := m["label"].(string)
		v, _ := m["value"].(string)
		if label == "" || v == "" {
			return nil, fmt.Errorf(`a measurement's figures are {"label": "...", "value": "..."}, both strings`)
		}
		rows = append(rows, [2]string{label, v})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf(`a measurement has no "figures"`)
	}
	return rows, nil
}

// cell escapes a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// heading names a section of the table.
func heading(kind string) string {
	switch kind {
	case "eval qa":
		return "Answers (docmind eval qa, offline)"
	case "eval evidence":
		return "Evidence recall (docmind eval evidence, offline)"
	case "eval relevance":
		return "The judge alone on gold and distractor sentences (docmind eval relevance)"
	case "eval judge":
		return "Hallucination detection (docmind eval judge, offline judge)"
	case "eval retrieval":
		return "Retrieval (docmind eval retrieval, BM25)"
	case "measurements":
		return "Speed and memory (ratios inside one run)"
	default:
		return "Test time"
	}
}

// value renders figure f of result.
func value(result map[string]any, f figure) string {
	if f.of != nil {
		if n, ok := lookup(result, f.of); !ok || n == 0 {
			return "—"
		}
	}
	x, ok := lookup(result, f.path)
	if !ok {
		return "—"
	}
	switch {
	case f.pct:
		return fmt.Sprintf("%.1f%%", 100*x)
	case f.count:
		return fmt.Sprintf("%.0f", x)
	case f.unit != "":
		return fmt.Sprintf("%.0f %s", x, f.unit)
	default:
		return fmt.Sprintf("%.3f", x)
	}
}

// lookup returns the number at path in result.
func lookup(result map[string]any, path []string) (float64, bool) {
	x, ok := find(result, path).(float64)
	return x, ok
}

// find returns the value at path in result, or nil. A key "NAME=N" picks,
// from an array of objects, the first whose field NAME is the number N.
func find(result map[string]any, path []string) any {
	var v any = result
	for _, k := range path {
		switch c := v.(type) {
		case map[string]any:
			v = c[k]
		case []any:
			name, n, ok := strings.Cut(k, "=")
			want, err := strconv.ParseFloat(n, 64)
			if !ok || err != nil {
				return nil
			}
			v = nil
			for _, e := range c {
				if m, ok := e.(map[string]any); ok && m[name] == want {
					v = m
					break
				}
			}
		default:
			return nil
		}
	}
	return v
}
