package docmind_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/ingest"
)

// Ask's Answer: the text, its citation with the judge's quote, the
// verdict and confidence, and a run id of its own; a refusal has no
// citations. The state stays reachable.
func TestAnswer(t *testing.T) {
	ctx := context.Background()
	p, err := docmind.FromDocuments(ctx, "examples/contract")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ans, err := p.Ask(ctx, "What are the late payment penalties?")
	if err != nil {
		t.Fatal(err)
	}
	if ans.Refused || !ans.Grounded || ans.Confidence <= 0 || ans.Reason == "" || ans.Retries != 0 {
		t.Errorf("answer %+v: want grounded, not refused, with a confidence and a reason", ans)
	}
	if !strings.Contains(ans.Text, "1.5% per month") || ans.Text != ans.State.Answer() {
		t.Errorf("text %q, state's answer %q", ans.Text, ans.State.Answer())
	}
	if len(ans.Citations) != 1 {
		t.Fatalf("citations %v, want the one late-payment section", ans.Citations)
	}
	c := ans.Citations[0]
	if c.Title != "Late Payment Penalties" || c.Page != 8 || filepath.Base(c.Source) != "master-services-agreement.md" ||
		!strings.Contains(ans.Text, c.Quote) || c.Quote == "" {
		t.Errorf("citation %+v: want the late-payment section, page 8, with a quote from the answer", c)
	}
	again, err := p.Ask(ctx, "What is the warranty period?")
	if err != nil {
		t.Fatal(err)
	}
	if !again.Refused || again.Text != docmind.FallbackMessage || len(again.Citations) != 0 || again.Grounded || again.Retries != 2 {
		t.Errorf("refusal %+v: want refused, no citations, 2 retries", again)
	}
	if ans.RunID == "" || ans.RunID == again.RunID {
		t.Errorf("run ids %q and %q: want two distinct ids", ans.RunID, again.RunID)
	}
}

// Stream yields the nodes in order, the streamed drafts of an LLM run
// (the rejected 5% one and the accepted 1.5% one), the retry between
// them, and the Answer last.
func TestStreamLLM(t *testing.T) {
	ctx := context.Background()
	model, _ := scenario2Model(t)
	p, err := docmind.New(docmind.WithSections(contract(t)), docmind.WithLLM(model), docmind.WithModelNames("gpt-4o-mini", ""))
	if err != nil {
		t.Fatal(err)
	}
	var ends []string
	var tokens strings.Builder
	retries := 0
	var last docmind.Event
	for ev, err := range p.Stream(ctx, "What are the penalties?") {
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Type {
		case docmind.EventNodeEnd:
			ends = append(ends, ev.Node)
		case docmind.EventToken:
			tokens.WriteString(ev.Token)
		case docmind.EventRetry:
			retries++
		}
		last = ev
	}
	if got := strings.Join(ends, " "); got != strings.Join(twoPasses, " ") {
		t.Errorf("nodes ended: %s, want %s", got, strings.Join(twoPasses, " "))
	}
	if !strings.Contains(tokens.String(), "5% per month") || !strings.Contains(tokens.String(), "1.5% per month") || retries != 1 {
		t.Errorf("tokens %q, %d retries: want both drafts and one retry", tokens.String(), retries)
	}
	if last.Type != docmind.EventAnswer || last.Answer == nil || last.Answer.Refused || !strings.Contains(last.Answer.Text, "1.5% per month") {
		t.Errorf("last event %+v: want the accepted answer", last)
	}
	// Ask on the same pipeline streams nothing to the last Stream's loop
	// and answers the same.
	ans, err := p.Ask(ctx, "What are the penalties?")
	if err != nil || !strings.Contains(ans.Text, "1.5% per month") {
		t.Errorf("Ask after Stream: %v, %v", ans, err)
	}
}

// Breaking out of a Stream loop cancels the run and returns at once; an
// empty question and a cancelled context end the stream with their error.
func TestStreamStops(t *testing.T) {
	p, err := docmind.New(docmind.WithSections(contract(t)))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	start := time.Now()
	for range p.Stream(context.Background(), "What is the warranty period?") {
		n++
		break
	}
	if n != 1 || time.Since(start) > 10*time.Second {
		t.Errorf("%d events, %s after a break", n, time.Since(start))
	}
	for _, err := range p.Stream(context.Background(), "  ") {
		if !errors.Is(err, docmind.ErrEmptyQuery) {
			t.Errorf("empty question: %v, want ErrEmptyQuery", err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var last error
	for _, err := range p.Stream(ctx, "What are the late payment penalties?") {
		last = err
	}
	if !errors.Is(last, context.Canceled) {
		t.Errorf("cancelled run ended with %v, want context.Canceled", last)
	}
}

// Open answers from an index built by ingest, and says how to build one
// when the folder holds none.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := docmind.Open(ctx, dir); err == nil || !strings.Contains(err.Error(), "docmind ingest") {
		t.Errorf("empty folder: %v, want an error naming docmind ingest", err)
	}
	if _, err := os.Stat(index.PathInDir(dir)); !os.IsNotExist(err) {
		t.Errorf("Open of an empty folder created %s", index.PathInDir(dir))
	}
	ix, err := index.Open(ctx, index.PathInDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	l, closeLoader := docmind.NewLoader()
	_, err = ingest.Run(ctx, ix, []string{"examples/contract"}, ingest.Options{Parser: ingest.LoaderParser(l)})
	closeLoader()
	ix.Close()
	if err != nil {
		t.Fatal(err)
	}
	p, err := docmind.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := p.Ask(ctx, "What are the late payment penalties?")
	if err != nil || ans.Refused || len(ans.Citations) == 0 || ans.Citations[0].Page != 8 {
		t.Errorf("answer from the index: %+v, %v", ans, err)
	}
	if err := p.Close(); err != nil {
		t.Error(err)
	}
}
