package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/decomposer"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/schema"
)

func main() {
	secs, _, err := docmind.LoadDocuments(context.Background(), "examples/contract")
	if err != nil {
		panic(err)
	}
	c := judge.NewCorpusStats(secs)
	lex := lexicon.Default()
	dec := decomposer.NewRules()
	pl, err := docmind.New(docmind.WithSections(secs))
	if err != nil {
		panic(err)
	}
	jd := judge.NewDeterministic(judge.WithCorpus(secs))
	for _, f := range os.Args[1:] {
		fh, _ := os.Open(f)
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			var row struct {
				ID, Question string
				Answerable *bool
			}
			json.Unmarshal(sc.Bytes(), &row)
			d, _ := dec.Decompose(context.Background(), row.Question)
			var absent []string
			for _, k := range judge.QuestionKeyTerms(row.Question, d) {
				if c.GroupDocFreq(k, lex) == 0 {
					absent = append(absent, k)
				}
			}
			ans := row.Answerable == nil || *row.Answerable
			st, _ := pl.Ask(context.Background(), row.Question)
			resp := ""
			if st.GeneratedResponse != nil {
				resp = *st.GeneratedResponse
			}
			a, _ := jd.Score(context.Background(), schema.JudgeRequest{Query: row.Question, Decomposition: st.Decomposition, Response: resp, Sections: st.RetrievedSections})
			out := "answered"
			if st.FinalOutput != nil && *st.FinalOutput == schema.FallbackMessage {
				out = "FALLBACK"
			}
			fmt.Printf("%s ans=%v %s cov=%.2f missing=%v syn=%v absent=%v  %s\n", row.ID, ans, out, a.KeyTermCoverage, a.MissingKeyTerms, a.SynonymKeyTerms, absent, row.Question)
		}
	}
}
