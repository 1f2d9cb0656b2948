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
		// contractions and "besides", "else" name no subject
		{"What right do private schools have that public schools don't?", []string{"right", "private", "schools", "public"}},
		{"Besides flooding, why else was the river regulated?", []string{"flooding", "river", "regulated"}},
	}
	for _, c := range cases {
		if got := KeyTerms(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("KeyTerms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSplit(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"What are the late payment penalties?", []string{"What are the late payment penalties?"}},
		{"What is the notice period and how much is the termination fee?",
			[]string{"What is the notice period?", "How much is the termination fee?"}},
		{"What is the notice period, and the termination fee?",
			[]string{"What is the notice period?", "What is the termination fee?"}},
		{"What is the late fee as well as the suspension period?",
			[]string{"What is the late fee?", "What is the suspension period?"}},
		{"How much is the termination fee and when is it due?",
			[]string{"How much is the termination fee?", "When is the termination fee due?"}},
		{"What is the liability cap? When does the agreement renew?",
			[]string{"What is the liability cap?", "When does the agreement renew?"}},
		{"What is the governing law; who pays for audits?",
			[]string{"What is the governing law?", "Who pays for audits?"}},
		{"What are the terms and conditions of renewal?", []string{"What are the terms and conditions of renewal?"}},
		{"Who are Smith and Jones?", []string{"Who are Smith and Jones?"}},
		{"late payment penalties", []string{"Late payment penalties"}},
		{"  what   is the cap?  ", []string{"What is the cap?"}},
		// a closing quote after the question mark is no part of its own
		{`Who asserted Russia's right to "self-determination?"`, []string{`Who asserted Russia's right to "self-determination"?`}},
		{`What does "cure period" mean?" How long is it?`, []string{`What does "cure period" mean"?`, "How long is it?"}},
	}
	for _, c := range cases {
		if got := Split(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Split(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
