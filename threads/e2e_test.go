package threads

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/chains"
	"github.com/docmind/docmind/checkpoint"
	dmdecomposer "github.com/docmind/docmind/decomposer"
	dmgenerator "github.com/docmind/docmind/generator"
	dmjudge "github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/loader"
	dmretriever "github.com/docmind/docmind/retriever"
)

// offlinePipeline builds DocMind's offline pipeline over examples/contract,
// with the judge reading term rarity over the whole contract as
// docmind.New builds it.
func offlinePipeline(t *testing.T) chains.Config {
	t.Helper()
	dir := filepath.Join("..", "examples", "contract")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("examples/contract not found: %v", err)
	}
	secs, _, err := loader.New().LoadDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return chains.Config{
		Decomposer: dmdecomposer.NewOffline(),
		Retriever:  dmretriever.NewBM25(secs),
		Generator:  dmgenerator.NewOffline(),
		Judge:      dmjudge.NewOffline(dmjudge.WithCorpus(secs)), // as docmind.New builds it
		MaxRetries: chains.DefaultMaxRetries,
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// TestOfflineContractFollowUp is the acceptance scenario with the
// real offline stages: a follow-up in a thread is rewritten into a
// standalone question whose retrieval finds the contract's suspension
// clause.
func TestOfflineContractFollowUp(t *testing.T) {
	ctx := context.Background()
	store, err := checkpoint.OpenSQLite(ctx, filepath.Join(t.TempDir(), checkpoint.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	m := newManager(t, store, offlinePipeline(t))
	first, err := m.Ask(ctx, "t1", "What are the late payment penalties?")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first: %s\n%s", first.State.Path(), first.Answer())
	second, err := m.Ask(ctx, "t1", "And what if it is still unpaid after 60 days?")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("second query %q: %s\n%s", second.Run.Query, second.State.Path(), second.Answer())
	for _, s := range second.State.RetrievedSections {
		t.Logf("  %s %.2f", s.Citation(), s.RelevanceScore)
	}
	if second.Run.Query != "What happens if payment is still unpaid after 60 days?" {
		t.Errorf("second query %q", second.Run.Query)
	}
	if !strings.Contains(first.Answer(), "1.5% per month") || !strings.Contains(first.Answer(), "Late Payment Penalties, page") {
		t.Errorf("first answer %q", first.Answer())
	}
	// A retrieval pass for the rewritten question finds the suspension
	// clause first, and the answer quotes it: the clause says "overdue",
	// the question "unpaid", which the lexicon's thesaurus relates.
	_, cps, err := m.History(ctx, second.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, cp := range cps {
		if top := cp.State.RetrievedSections; cp.Node == "retrieve" && len(top) > 0 && top[0].Title == "Suspension of Services" {
			found = true
		}
	}
	if !found {
		t.Errorf("no retrieval for the follow-up ranks Suspension of Services first")
	}
	if !second.State.Answered() {
		t.Fatalf("follow-up not answered: %s", second.Answer())
	}
	if ans := second.Answer(); !strings.Contains(ans, "more than sixty (60) days overdue") ||
		!strings.Contains(ans, "(See Suspension of Services, page 8)") {
		t.Errorf("second answer %q does not quote the suspension clause with its citation", ans)
	}
}
