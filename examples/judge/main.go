// Command judge plugs a judge of its own into the pipeline: this one runs
// the offline judge and then holds answers to a stricter bar, rejecting
// any whose confidence is under -min (the run then retries retrieval and,
// failing that, refuses). A judge sees the question, the draft answer and
// the sections it was written from, and returns a schema.Verdict.
//
//	go run ./examples/judge -min 0.9 examples/contract "What are the late payment penalties?"
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/docmind/docmind"
	_ "github.com/docmind/docmind/formats/pdf"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/schema"
)

// strictJudge accepts only what the offline judge accepts with at least
// min confidence.
type strictJudge struct {
	inner schema.Judge
	min   float64
}

func (j strictJudge) Judge(ctx context.Context, req schema.JudgeRequest) (*schema.Verdict, error) {
	v, err := j.inner.Judge(ctx, req)
	if err != nil || v == nil {
		return v, err
	}
	if v.ShouldReturn && v.ConfidenceScore < j.min {
		v.ShouldReturn, v.IsHallucinated = false, true
		v.Reasoning = fmt.Sprintf("confidence %.2f is under the bar of %.2f; %s", v.ConfidenceScore, j.min, v.Reasoning)
	}
	return v, nil
}

func main() {
	minConf := flag.Float64("min", 0.9, "the least confidence an answer needs")
	flag.Parse()
	if flag.NArg() != 2 {
		log.Fatal("usage: judge [-min 0.9] FOLDER QUESTION")
	}
	ctx := context.Background()
	secs, _, err := docmind.LoadDocuments(ctx, flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	j := strictJudge{inner: judge.NewOffline(judge.WithCorpusStats(judge.NewMemCorpus(secs))), min: *minConf}
	p, err := docmind.New(docmind.WithSections(secs), docmind.WithJudge(j))
	if err != nil {
		log.Fatal(err)
	}
	ans, err := p.Ask(ctx, flag.Arg(1))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ans.Text)
	fmt.Printf("confidence %.2f after %d retries: %s\n", ans.Confidence, ans.Retries, ans.Reason)
	if ans.Refused {
		os.Exit(3)
	}
}
