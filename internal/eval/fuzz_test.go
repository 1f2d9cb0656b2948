package eval

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func fuzzSeedFile(f *testing.F, path string) string {
	f.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return string(b)
}

// FuzzReadQA reads arbitrary QA sets and gold files. A QA set either fails
// with an error or holds rows that pass ReadQA's checks (ids unique and
// non-empty, a question, facts or answers exactly when answerable) and
// that written back as JSONL read the same; likewise gold files; MergeGold
// then either fails or leaves every answerable row with gold answers.
func FuzzReadQA(f *testing.F) {
	qa := fuzzSeedFile(f, filepath.Join("testdata", "qa", "contract.jsonl"))
	f.Add(qa[:strings.Index(qa, "\n")+1]+`{"id":"u1","question":"Is there a cat?","answerable":false,"why":"no cat"}`+"\n# comment\n\n",
		`{"id":"q01","is_impossible":false,"answers":["1.5% per month"]}`+"\n"+`{"id":"u1","is_impossible":true,"answers":[]}`)
	f.Add(`{"id":"a","question":"q","facts":["x"]} {"id":"b"}`, `{"id":"a","answers":[" ","x","x"]}`)
	f.Add(`{"id":"a","question":"q","answers":["x"],"typo":1}`, `{"id":"","answers":[]}`)
	f.Add(`{"id":"a","question":"q","facts":["x"]}`+"\n"+`{"id":"a","question":"q","facts":["y"]}`, "")
	f.Add(`{"id":"a","question":" ","facts":[]}`, `{"id":"a","is_impossible":true}`)
	f.Fuzz(func(t *testing.T, qaText, goldText string) {
		rows, err := ReadQA(strings.NewReader(qaText), "qa.jsonl")
		if err == nil {
			checkQARows(t, rows)
			var buf bytes.Buffer
			for _, r := range rows {
				b, err := json.Marshal(r)
				if err != nil {
					t.Fatalf("row %q does not encode: %v", r.ID, err)
				}
				buf.Write(append(b, '\n'))
			}
			again, err := ReadQA(&buf, "again.jsonl")
			if err != nil {
				t.Fatalf("rows written back do not read: %v", err)
			}
			a, _ := json.Marshal(rows)
			b, _ := json.Marshal(again)
			if !bytes.Equal(a, b) {
				t.Fatalf("rows changed on writing back:\n%s\n%s", a, b)
			}
		}
		gold, gerr := ReadGold(strings.NewReader(goldText), "gold.jsonl")
		if gerr == nil {
			if len(gold) == 0 {
				t.Fatal("ReadGold returned no rows and no error")
			}
			for id, g := range gold {
				if id == "" || g.ID != id {
					t.Fatalf("gold row %+v under id %q", g, id)
				}
			}
		}
		if err != nil || gerr != nil {
			return
		}
		if MergeGold(rows, gold) != nil {
			return
		}
		for _, r := range rows {
			if r.IsAnswerable() && (!r.AnswersOnly || len(r.Answers) == 0) {
				t.Fatalf("answerable row %q merged without gold answers: %+v", r.ID, r)
			}
		}
	})
}

func checkQARows(t *testing.T, rows []QARow) {
	t.Helper()
	if len(rows) == 0 {
		t.Fatal("ReadQA returned no rows and no error")
	}
	ids := map[string]bool{}
	for _, r := range rows {
		switch {
		case r.ID == "" || ids[r.ID]:
			t.Fatalf("row id %q empty or repeated", r.ID)
		case strings.TrimSpace(r.Question) == "":
			t.Fatalf("row %q has no question", r.ID)
		case r.IsAnswerable() != (len(r.Facts)+len(r.Answers) > 0):
			t.Fatalf("row %q: answerable %v with %d facts and %d answers", r.ID, r.IsAnswerable(), len(r.Facts), len(r.Answers))
		}
		ids[r.ID] = true
	}
}

// FuzzReadRAGTruth reads arbitrary RAGTruth-format files: reading either
// fails with an error or yields sources of a known task whose labels lie
// inside their responses and whose sections come from the source.
func FuzzReadRAGTruth(f *testing.F) {
	tiny := fuzzSeedFile(f, filepath.Join("testdata", "ragtruth_tiny.jsonl"))
	f.Add(tiny)
	for _, l := range strings.Split(strings.TrimSpace(tiny), "\n") {
		f.Add(l)
	}
	f.Add(`{"source_id":null,"source":{"question":"q","passages":"passage 1:\npassage 2: b"},"responses":[{"response":"é","labels":[{"start":0,"end":1}]}]}`)
	f.Add(`{"source":{"hours":{"Monday":"17:0-21:30","Tue":"9:5"},"reviews":[{"a":1},2],"x":[[],{}],"n":1e999},"responses":null}`)
	f.Add(`{"source":[1],"responses":[]}`)
	f.Add(`{"source":"a","responses":[{"response":"ab","labels":[{"start":1,"end":3}]}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		srcs, err := ReadRAGTruth(strings.NewReader(text), "ragtruth.jsonl")
		if err != nil {
			return
		}
		if len(srcs) == 0 {
			t.Fatal("ReadRAGTruth returned no sources and no error")
		}
		for _, s := range srcs {
			switch s.Task {
			case TaskQA, TaskSummary, TaskData2Txt:
			default:
				t.Fatalf("source %q has task %q", s.SourceID, s.Task)
			}
			if s.Task != TaskQA && len(s.Sections) == 0 {
				t.Fatalf("%s source %q has no sections", s.Task, s.SourceID)
			}
			for _, sec := range s.Sections {
				if sec.Source != s.SourceID {
					t.Fatalf("section %q of source %q names source %q", sec.ID, s.SourceID, sec.Source)
				}
			}
			for _, r := range s.Responses {
				n := utf8.RuneCountInString(r.Response)
				for _, sp := range r.GoldSpans() {
					if sp.Start < 0 || sp.End < sp.Start || sp.End > n {
						t.Fatalf("span %+v outside a response of %d characters", sp, n)
					}
				}
			}
		}
	})
}

// FuzzLoadBEIR reads arbitrary BEIR data sets (corpus.jsonl,
// queries.jsonl, qrels/test.tsv): loading either fails with an error or
// yields documents with ids that, written back, load the same, and qrels
// of three columns with integer scores.
func FuzzLoadBEIR(f *testing.F) {
	dir := filepath.Join("testdata", "tinybeir")
	f.Add(fuzzSeedFile(f, filepath.Join(dir, "corpus.jsonl")), fuzzSeedFile(f, filepath.Join(dir, "queries.jsonl")),
		fuzzSeedFile(f, filepath.Join(dir, "qrels", "test.tsv")))
	f.Add(`{"_id":"d1","text":"x"}`+"\n\n"+`{"_id":""}`, `{"_id":1}`, "q1 d1 x")
	f.Add(`{"_id":"d1","title":null,"text":"a\u2028b","extra":[1]}`, `{"text":"no id"}`, "a\tb\nq1\td1\t2\tx\n")
	f.Add("\xff", "", "query-id\tcorpus-id\tscore\n")
	tmp := f.TempDir()
	f.Fuzz(func(t *testing.T, corpus, queries, qrels string) {
		if err := os.MkdirAll(filepath.Join(tmp, "qrels"), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries, filepath.Join("qrels", "test.tsv"): qrels} {
			if err := os.WriteFile(filepath.Join(tmp, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		b, err := LoadBEIR(tmp)
		if err == nil {
			for _, d := range b.Corpus {
				if d.ID == "" {
					t.Fatalf("document without id: %+v", d)
				}
			}
			var buf bytes.Buffer
			for _, d := range b.Corpus {
				line, err := json.Marshal(d)
				if err != nil {
					t.Fatal(err)
				}
				buf.Write(append(line, '\n'))
			}
			again := filepath.Join(t.TempDir())
			for name, text := range map[string][]byte{"corpus.jsonl": buf.Bytes(), "queries.jsonl": nil} {
				if err := os.WriteFile(filepath.Join(again, name), text, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b2, err := LoadBEIR(again)
			if err != nil {
				t.Fatalf("corpus written back does not load: %v", err)
			}
			x, _ := json.Marshal(b.Corpus)
			y, _ := json.Marshal(b2.Corpus)
			if !bytes.Equal(x, y) {
				t.Fatalf("corpus changed on writing back:\n%s\n%s", x, y)
			}
		}
		q, err := (&BEIR{Dir: tmp}).LoadQrels("test")
		if err != nil {
			return
		}
		for qid, docs := range q {
			if qid == "" || len(docs) == 0 {
				t.Fatalf("qrels query %q with %d documents", qid, len(docs))
			}
			for did := range docs {
				if did == "" || strings.ContainsAny(qid+did, " \t\n") {
					t.Fatalf("qrels ids %q %q", qid, did)
				}
			}
		}
	})
}
