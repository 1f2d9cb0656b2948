package loader

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The sample corpus is part of the product: these checks keep it true to
// the seed scenarios in SPEC.md.
func TestSampleContract(t *testing.T) {
	dir := filepath.Join("..", "examples", "contract")
	secs, rep, err := New().LoadDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Skipped) != 0 || len(rep.Files) != 2 {
		t.Errorf("report %+v", rep)
	}
	byTitle := map[string][]int{}
	for i, s := range secs {
		byTitle[s.Title] = append(byTitle[s.Title], i)
		if strings.Contains(strings.ToLower(s.Title+s.Content), "warrant") {
			t.Errorf("%s (%s) mentions a warranty", s.Title, s.PageRef())
		}
	}
	lpp := byTitle["Late Payment Penalties"]
	if len(lpp) != 1 {
		t.Fatalf("want one Late Payment Penalties section, got %d", len(lpp))
	}
	s := secs[lpp[0]]
	if s.Page != 8 || s.PageEnd != 0 || !strings.HasSuffix(s.Source, "master-services-agreement.md") {
		t.Errorf("Late Payment Penalties at %s in %s", s.PageRef(), s.Source)
	}
	const sentence = "If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month"
	if !strings.Contains(s.Content, sentence) {
		t.Errorf("Late Payment Penalties lacks the seed sentence: %q", s.Content)
	}
	susp := byTitle["Suspension of Services"]
	if len(susp) != 1 || secs[susp[0]].Page != 8 || !strings.Contains(secs[susp[0]].Content, "more than sixty (60) days overdue") {
		t.Errorf("Suspension of Services: %+v", susp)
	}
	for _, title := range []string{"Early Termination Fee", "Liability Cap", "Enterprise Clients", "Service Credits",
		"Duration of Confidentiality", "Governing Law", "Dispute Resolution", "Notices", "Renewal", "Personal Data Breaches"} {
		if len(byTitle[title]) == 0 {
			t.Errorf("missing section %q", title)
		}
	}
	pages := map[int]bool{}
	for _, s := range secs {
		if strings.HasSuffix(s.Source, "master-services-agreement.md") {
			pages[s.Page] = true
		}
	}
	for p := 1; p <= 12; p++ {
		if !pages[p] {
			t.Errorf("no section starts on page %d", p)
		}
	}
}

// Every "word (N)" pair in the corpus must agree: "thirty (30)".
func TestSampleContractNumbersAgree(t *testing.T) {
	words := map[string]string{
		"two": "2", "three": "3", "four": "4", "five": "5", "eight": "8", "ten": "10",
		"twelve": "12", "fourteen": "14", "fifteen": "15", "twenty-four": "24",
		"thirty": "30", "thirty-five": "35", "forty": "40", "forty-five": "45",
		"forty-eight": "48", "sixty": "60", "ninety": "90", "one": "1",
		"one hundred twenty": "120", "two hundred": "200", "fifty percent": "50%",
		"twenty-five percent": "25%", "four percent": "4%",
	}
	re := regexp.MustCompile(`([a-z][a-z -]*?) \(([0-9%]+)\)`)
	files, _ := filepath.Glob(filepath.Join("..", "examples", "contract", "*.md"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			phrase := strings.TrimSpace(m[1])
			for w, n := range words {
				if strings.HasSuffix(phrase, w) && (len(phrase) == len(w) || phrase[len(phrase)-len(w)-1] == ' ') {
					if longer := longestSuffix(phrase, words); longer == w && n != m[2] {
						t.Errorf("%s: %q (%s) disagrees", filepath.Base(f), w, m[2])
					}
				}
			}
		}
	}
}

func longestSuffix(phrase string, words map[string]string) string {
	best := ""
	for w := range words {
		if strings.HasSuffix(phrase, w) && len(w) > len(best) {
			best = w
		}
	}
	return best
}
