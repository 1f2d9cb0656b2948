package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/schema"
)

// The answer comes first: for a question asking for an amount, the picked
// sentence stating one leads, not the best-scored sentence that only
// shares the question's words; a lead with a continuation keeps its place.
func TestAnswerComesFirst(t *testing.T) {
	lead := candidate{text: "Additionally, the group had an all-time record revenue quarter in Q1.", score: 3}
	other := candidate{text: "The group launched a new product line.", score: 2}
	figure := candidate{text: "Net revenue $11,715 $18,353", score: 1}
	kinds := intentKinds(question.IntentAmount)
	got := answerFirst([]candidate{lead, other, figure}, kinds)
	if got[0] != figure || got[1] != lead || got[2] != other {
		t.Errorf("order %q, want the figure first, then the others in their order", []string{got[0].text, got[1].text, got[2].text})
	}
	if got := answerFirst([]candidate{figure, lead}, kinds); got[0] != figure {
		t.Errorf("a lead stating the figure moved")
	}
	goesOn := candidate{text: "It grew.", follows: true}
	if got := answerFirst([]candidate{lead, goesOn, figure}, kinds); got[0] != lead {
		t.Errorf("a lead with its continuation was moved")
	}
}

// In Intel's segment table (Q1 2023 earnings release, page 9, as read from the PDF)
// "Total net revenue" leads, unless the question names the segment.
func TestWholeRowFirst(t *testing.T) {
	secs := []schema.Section{{ID: "segments", Title: "Business Highlights", Page: 9, Source: "INTEL_2023Q1_EARNINGS.pdf", DocEntity: "Intel Corporation",
		Content: "Three Months Ended (In Millions) Apr 1, 2023 Apr 2, 2022 Net revenue: Client Computing Desktop $ 1,879 $ 2,641 Notebook 3,407 5,959 Other 481 722 5,767 9,322\n\n" +
			"Data Center and AI 3,718 6,074 Network and Edge 1,489 2,139 Mobileye 458 394 Intel Foundry Services 118 156 All other 165 268 Total net revenue $ 11,715 $ 18,353"}}
	if a := generate(t, "What was Intel's revenue in Q1?", secs); !strings.HasPrefix(a, "Total net revenue") {
		t.Errorf("a segment's row leads:\n%s", a)
	}
	if a := generate(t, "What was Intel's Client Computing Desktop revenue in Q1?", secs); strings.HasPrefix(a, "Total") {
		t.Errorf("the total leads although the question names the segment:\n%s", a)
	}
}

// A sentence added to a two-part question's answers answers a part by the rules rank
// reads (examples/contract, "###" sections): one negating the suspension is not added.
func TestAddedSentencesAnswerAPart(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "contract", "master-services-agreement.md"))
	if err != nil {
		t.Fatal(err)
	}
	var secs []schema.Section
	for i, part := range strings.Split(string(data), "\n### ")[1:] {
		title, body, _ := strings.Cut(part, "\n")
		secs = append(secs, schema.Section{ID: fmt.Sprint(i), Title: title, Content: body, Page: 1, Source: "master-services-agreement.md"})
	}
	a := generate(t, "When may the Provider suspend the Services, and how much notice must it give before suspending?", secs)
	if !strings.HasPrefix(a, "If any undisputed amount is more than sixty") || strings.Contains(a, "shall not suspend") {
		t.Errorf("answer:\n%s", a)
	}
}

// A sheet's row is read alone, not with the rows beside it (written as the sheet and CSV readers write them).
func TestSheetRowAlone(t *testing.T) {
	rows := "Region: EMEA; Owner: Maria Lopez; Headcount: 42\nRegion: APAC; Owner: Kenji Sato; Headcount: 35\nRegion: Americas; Owner: Dana Whitfield; Headcount: 58"
	if a := generate(t, "Who is the owner of the APAC region?", []schema.Section{{ID: "r", Title: "regions", Content: rows}}); !strings.HasPrefix(a, "Region: APAC; Owner: Kenji Sato") || strings.Count(a, "Region:") != 1 {
		t.Errorf("answer:\n%s", a)
	}
}
