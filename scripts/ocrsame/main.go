// Command ocrsame is the Go half of scripts/ocr-same-answers.sh (issue
// 38: scanned pages give the same answers as the original pages):
//
//	ocrsame questions SHARED EVIDENCE.tsv > questions.jsonl
//	ocrsame compare [-min-same N] ORIGINAL.json SCAN.json
//
// questions picks the answerable filings and CUAD questions whose
// evidence page is one of the scanned pages, listed in EVIDENCE.tsv (a
// line per page: the source PDF's name, its page, the name of the PDF the
// script made, the page's number there), and points them at that PDF.
//
// compare reads the docmind eval qa --json reports of the two indexes
// and prints, per question, whether a person reads the same final answer
// from both: both abstain, or both answer with the same words (case and
// punctuation aside) citing the same pages. It exits 1 when fewer than
// -min-same questions (default: all) read the same, or when a question
// answered correctly from the original is not from its scan.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: ocrsame questions SHARED EVIDENCE.tsv | ocrsame compare [-min-same N] ORIGINAL.json SCAN.json"))
	}
	var err error
	switch os.Args[1] {
	case "questions":
		if len(os.Args) != 4 {
			fail(fmt.Errorf("usage: ocrsame questions SHARED EVIDENCE.tsv"))
		}
		err = questions(os.Args[2], os.Args[3])
	case "compare":
		err = compare(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ocrsame:", err)
	os.Exit(1)
}

type page struct {
	source string
	page   int
}

type target struct {
	name string // the PDF made of the page
	page int    // its number there
}

func questions(shared, evidence string) error {
	data, err := os.ReadFile(evidence)
	if err != nil {
		return err
	}
	pages := map[page]target{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return fmt.Errorf("%s: bad line %q", evidence, line)
		}
		p, err1 := strconv.Atoi(f[1])
		n, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%s: bad line %q", evidence, line)
		}
		pages[page{f[0], p}] = target{f[2], n}
	}
	w := bufio.NewWriter(os.Stdout)
	n := 0
	for _, qa := range []string{"data/filings/qa.jsonl", "data/cuad/qa.jsonl"} {
		data, err := os.ReadFile(filepath.Join(shared, qa))
		if err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var row map[string]any
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				return fmt.Errorf("%s: %w", qa, err)
			}
			src, _ := row["source"].(string)
			p, _ := row["page"].(float64)
			t, ok := pages[page{src, int(p)}]
			if row["kind"] != "answerable" || !ok {
				continue
			}
			row["source"], row["page"] = t.name, t.page
			delete(row, "other_pages")
			delete(row, "printed_page")
			b, err := json.Marshal(row)
			if err != nil {
				return err
			}
			w.Write(append(b, '\n'))
			n++
		}
	}
	fmt.Fprintf(os.Stderr, "%d questions over %d pages\n", n, len(pages))
	return w.Flush()
}

type result struct {
	ID       string `json:"id"`
	Answered bool   `json:"answered"`
	Correct  bool   `json:"correct"`
	Answer   string `json:"answer"`
}

func readReport(path string) (map[string]result, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var rep struct{ Results []result }
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]result{}
	var ids []string
	for _, r := range rep.Results {
		out[r.ID] = r
		ids = append(ids, r.ID)
	}
	return out, ids, nil
}

var (
	citation  = regexp.MustCompile(`\(See [^()]*(?:\([^()]*\)[^()]*)*\)`)
	pageRef   = regexp.MustCompile(`pages? ([0-9][0-9–, -]*)\)$`)
	wordChars = regexp.MustCompile(`[\pL\pN]+`)
)

// reading is what a person reads of a result: "abstained", or the
// answer's words and the pages it cites.
func reading(r result) string {
	if !r.Answered {
		return "abstained"
	}
	var pages []string
	for _, c := range citation.FindAllString(r.Answer, -1) {
		if m := pageRef.FindStringSubmatch(c); m != nil {
			pages = append(pages, strings.TrimSpace(m[1]))
		}
	}
	slices.Sort(pages)
	words := wordChars.FindAllString(strings.ToLower(citation.ReplaceAllString(r.Answer, " ")), -1)
	return strings.Join(words, " ") + " | pages " + strings.Join(slices.Compact(pages), "; ")
}

func compare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ExitOnError)
	minSame := fs.Int("min-same", -1, "the fewest questions that must read the same (default: all)")
	fs.Parse(args)
	if fs.NArg() != 2 {
		return fmt.Errorf("usage: ocrsame compare [-min-same N] ORIGINAL.json SCAN.json")
	}
	orig, ids, err := readReport(fs.Arg(0))
	if err != nil {
		return err
	}
	scan, _, err := readReport(fs.Arg(1))
	if err != nil {
		return err
	}
	verdict := func(r result) string {
		switch {
		case !r.Answered:
			return "abstained"
		case r.Correct:
			return "right"
		}
		return "wrong"
	}
	same, lost, rightO, rightS := 0, 0, 0, 0
	for _, id := range ids {
		a, b := orig[id], scan[id]
		eq := reading(a) == reading(b)
		if eq {
			same++
		}
		if a.Correct {
			rightO++
			if !b.Correct {
				lost++
			}
		}
		if b.Correct {
			rightS++
		}
		word := "same"
		if !eq {
			word = "DIFFERENT"
		}
		fmt.Printf("%s: original %s, scan %s: %s\n", id, verdict(a), verdict(b), word)
		if !eq {
			fmt.Printf("  original: %q\n  scan:     %q\n", a.Answer, b.Answer)
		}
	}
	n := len(ids)
	fmt.Printf("%d questions: the same final answer and cited pages %d/%d; correct from the originals %d, from the scans %d; right from an original but not its scan: %d\n", n, same, n, rightO, rightS, lost)
	want := *minSame
	if want < 0 {
		want = n
	}
	switch {
	case n == 0 || len(scan) != n:
		return fmt.Errorf("the reports have %d and %d results", n, len(scan))
	case same < want:
		return fmt.Errorf("%d questions read the same from the scans, fewer than %d", same, want)
	case lost > 0:
		return fmt.Errorf("%d questions answered correctly from the originals are not from the scans", lost)
	}
	return nil
}
