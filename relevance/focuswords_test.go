package relevance

import (
	"strings"
	"testing"
)

// detailOf returns the detail of the finding of rule in res ("" when it
// did not fire).
func detailOf(res Result, rule string) string {
	for _, fd := range res.Findings {
		if fd.Rule == rule {
			return fd.Detail
		}
	}
	return ""
}

// A finding names the question's words as the user wrote them, not
// their stems: "convenience", not "conveni".
func TestFocusShareNamesTheQuestionsWords(t *testing.T) {
	f := Analyze("How much notice is needed to terminate for convenience?")
	res := f.Check(Context{Claim: "Either Party may terminate this Agreement for material breach."}, 0.9, nil, nil)
	if detail := detailOf(res, FocusShare.Name); !strings.Contains(detail, `"convenience"`) || strings.Contains(detail, `"conveni"`) {
		t.Errorf("focus.share finding %q: want the question's word \"convenience\"", detail)
	}
}

// A name is quoted as a name, without the possessive the question wrote
// it with.
func TestEntityFindingQuotesTheName(t *testing.T) {
	f := Analyze("What was FedEx Express's total jet fuel cost in fiscal 2023?")
	res := f.Check(Context{Claim: "During 2023, the company purchased jet fuel from various suppliers."}, 0, nil, nil)
	if detail := detailOf(res, EntityUnnamed.Name); !strings.Contains(detail, `"FedEx Express"`) {
		t.Errorf("entity.unnamed finding %q: want the name \"FedEx Express\", without \"'s\"", detail)
	}
}
