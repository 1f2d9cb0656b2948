package weaviate_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/store/weaviate"
)

// answer is what a question gave: the answer and the keys of the cited
// sections.
type answer struct {
	text  string
	cited []string
}

func askAll(t *testing.T, s *weaviate.Store, root string, qs []string) []answer {
	t.Helper()
	p, err := docmind.New(docmind.WithRetriever(s.Retriever()), docmind.WithCorpus(s.Corpus()), docmind.WithSourceRoot(root))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]answer, len(qs))
	for i, q := range qs {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		st, err := p.Run(ctx, q)
		cancel()
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		var keys []string
		for _, sec := range st.CitedSections() {
			keys = append(keys, sec.Key())
		}
		out[i] = answer{text: st.Answer(), cited: keys}
	}
	return out
}

// weaviateScript runs scripts/weaviate.sh with args.
func weaviateScript(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("../../scripts/weaviate.sh", args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/weaviate.sh %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// TestClusterNodeFailure, on the 3-node cluster of scripts/weaviate.sh
// start --nodes 3 ($DOCMIND_WEAVIATE_CLUSTER, replication factor 3):
// ingest the sample contract, kill node 3 with SIGKILL, every question of
// the contract development set is still answered with the same answer and
// citations, a document written while it is down is accepted (quorum),
// and once node 3 is restarted it catches up: it holds that document.
func TestClusterNodeFailure(t *testing.T) {
	u := serverURL(t, "DOCMIND_WEAVIATE_CLUSTER")
	s := openTemp(t, u, "Cluster")
	if s.Config().Replication < 3 {
		t.Fatalf("%s: the cluster test needs ?replication=3", u)
	}
	ingestContract(t, s)
	root, _ := filepath.Abs("../../examples/contract")
	qs := contractQuestions(t)
	before := askAll(t, s, root, qs)
	answered := 0
	for _, a := range before {
		if len(a.cited) > 0 {
			answered++
		}
	}
	if answered < len(qs)/2 {
		t.Fatalf("only %d of %d questions answered with citations before the failure", answered, len(qs))
	}

	weaviateScript(t, "node", "3", "kill")
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			weaviateScript(t, "node", "3", "start")
		}
	})
	start := time.Now()
	after := askAll(t, s, root, qs)
	t.Logf("%d questions asked with node 3 down in %v", len(qs), time.Since(start).Round(time.Millisecond))
	for i := range qs {
		if after[i].text != before[i].text || !slices.Equal(after[i].cited, before[i].cited) {
			t.Errorf("%q with node 3 down:\n  before %q %v\n  after  %q %v", qs[i], before[i].text, before[i].cited, after[i].text, after[i].cited)
		}
	}

	ctx := context.Background()
	late := "/docs/late/addendum.md"
	if err := s.PutDocument(ctx, index.Document{Path: late, Hash: "h-late", Title: "Addendum"},
		[]schema.Section{{Title: "Addendum", Content: "The parties agree a quarterly zeppelin inspection."}}); err != nil {
		t.Fatalf("write with node 3 down (quorum of 2 of 3): %v", err)
	}

	node3 := weaviateScript(t, "node", "3", "start")
	restarted = true
	node3 = node3[strings.LastIndex(node3, "\n")+1:]
	class, id := s.DocumentObject(late)
	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := http.Get(fmt.Sprintf("%s/v1/objects/%s/%s?node_name=node3", node3, class, id))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("node 3 has not caught up after 90 s: the document written while it was down is not on it (last: %v %v)", err, resp)
		}
		time.Sleep(time.Second)
	}
	t.Logf("node 3 caught up %v after its restart", time.Since(deadline.Add(-90*time.Second)).Round(time.Second))
	hits, err := s.HybridSearch(ctx, "zeppelin inspection", 5, index.SearchOptions{})
	if err != nil || len(hits) != 1 || hits[0].Section.Source != late {
		t.Errorf("the document written while node 3 was down: %d hits, %v", len(hits), err)
	}
}
