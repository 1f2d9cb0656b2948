package question

import (
	"reflect"
	"testing"
)

func TestIntent(t *testing.T) {
	cases := []struct{ in, want string }{
		{"What are the late payment penalties?", IntentPenalty},
		{"What are the penalties?", IntentPenalty},
		{"What is the warranty period?", IntentDuration},
		{"How long is the notice period?", IntentDuration},
		{"How many days does the Client have to pay?", IntentDuration},
		{"When is payment due?", IntentDeadline},
		{"What is the deadline for objections?", IntentDeadline},
		{"How much is the early termination fee?", IntentAmount},
		{"What is the liability cap?", IntentAmount},
		{"Can the Provider suspend the services?", IntentYesNo},
		{"Is there a warranty?", IntentYesNo},
		{"How do I terminate the agreement?", IntentProcedure},
		{"What steps are required to renew?", IntentProcedure},
		{"What does Confidential Information mean?", IntentDefinition},
		{"What is a service credit?", IntentDefinition},
		{"What is the difference between suspension and termination?", IntentComparison},
		{"Which obligations survive termination?", IntentList},
		{"List the Client's obligations.", IntentList},
		{"Governing law.", IntentGeneral},
	}
	for _, c := range cases {
		if got := Intent(c.in); got != c.want {
			t.Errorf("Intent(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestKeyTerms(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"What is the warranty period?", []string{"warranty"}},
		{"What are the late payment penalties?", []string{"late", "payment", "penalties"}},
		{"How much is the termination fee and what is the notice period?", []string{"termination", "fee", "notice"}},
		{"What does the contract say about fees and the fee cap?", []string{"fees", "cap"}},
	}
	for _, c := range cases {
		if got := KeyTerms(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("KeyTerms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
