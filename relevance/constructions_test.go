package relevance

import "testing"

func TestConstructionsAddressTheFocus(t *testing.T) {
	none := func(string, Text) bool { return false }
	tests := []struct {
		q, claim string
		want     float64
	}{
		{"What is the maximum service credit for one month?", "Service credits for any one month shall not exceed 20% of the Monthly Service Fee.", 1},
		{"What is the ceiling on the fee increase?", "No fee increase shall exceed four percent (4%).", 1},
		{"What is the maximum fee increase?", "The fee increase is up to four percent (4%).", 1},
		{"What is the minimum notice period?", "The notice period is not less than thirty (30) days.", 1},
		{"What is the minimum notice period?", "The notice period is at least thirty (30) days.", 1},
		// a bound of the other direction, or none, does not address it
		{"What is the minimum notice period?", "The notice period shall not exceed thirty (30) days.", 0},
		{"What is the maximum notice period?", "The notice period is at least thirty (30) days.", 0},
		{"What is the maximum notice period?", "The notice period is thirty (30) days.", 0},
		// an obligation is stated with a modal, a calculation as a formula
		{"Does the Standard tier promise 99.9% availability?", "The platform shall be available 99.5% of the time under the Standard tier.", 1},
		{"Does the Standard tier promise 99.9% availability?", "The platform was available 99.5% of the time under the Standard tier.", 0},
		// what is needed or required of an amount is its least
		{"How much deposit is needed for the booking?", "The booking takes a deposit of at least 10% of the price.", 1},
		{"How much deposit is needed for the booking?", "The booking takes a deposit of no less than 10% of the price.", 1},
		{"How much deposit is needed for the booking?", "The booking takes a deposit of 10% of the price.", 0},
		{"How much deposit is needed for the booking?", "The booking takes a deposit of at most 10% of the price.", 0},
		{"How is the early termination fee calculated?", "Client shall pay an early termination fee equal to 25% of the remaining fees.", 1},
		{"How is the early termination fee calculated?", "Client shall pay an early termination fee within thirty (30) days.", 0},
		// a rate is stated as an amount per unit or a percentage
		{"What is the hourly overtime rate?", "Overtime hours are charged at one hundred eighty-five US dollars (US$185) per hour.", 1},
		{"What is the hourly overtime rate?", "Overtime hours are charged at 4.5 percent of the monthly fee.", 1},
		{"What is the hourly overtime rate?", "Overtime hours are charged at the end of each hour worked.", 0},
		{"What is the hourly overtime rate?", "Overtime hours are charged to 3 cost centres.", 0},
	}
	for _, tt := range tests {
		f := Analyze(tt.q)
		res := f.Check(Context{Claim: tt.claim, Passage: tt.claim}, float64(0), none, nil)
		// the bound (obligation, calculation) word is one focus term; the
		// others are stated
		bound := 1.0 / float64(len(f.Focus))
		got := res.ClaimFocus - (1 - bound)
		if d := got - tt.want*bound; d > 1e-9 || d < -1e-9 {
			t.Errorf("%q / %q: claim focus %.3f over focus %v, want it addressed = %v", tt.q, tt.claim, res.ClaimFocus, f.Focus, tt.want == 1)
		}
	}
}

func TestContrasts(t *testing.T) {
	for _, tt := range []struct {
		w, t string
		want bool
	}{
		{"eight", "seven", true},
		{"fourth", "third", true},
		{"million", "billion", true},
		{"formal", "informal", true},
		{"directly", "indirectly", true},
		{"higher", "lower", true},
		{"increased", "decreases", true},
		{"men", "women", true},
		{"northern", "southern", true},
		// near words that may stand for each other
		{"percentage", "percent", false},
		{"leave", "vacation", false},
		{"eight", "eight", false},
		{"higher", "highest", false},
		// a prefix that makes another word, not a negative
		{"cover", "discover", false},
		{"come", "income", false},
		{"side", "inside", false},
		{"able", "unable", true},
		{"dependent", "independent", true},
		// WordNet's antonyms (antonyms.txt), not in opposites.txt
		{"horizontal", "vertical", true},
		{"attractive", "repulsive", true},
		{"juvenile", "adult", true},
		// an inflection of a word on both lists: WordNet's "increased |
		// decreased" and opposites.txt's "increase | decrease"
		{"increased", "decreases", true},
	} {
		if got := Contrasts(tt.w, tt.t); got != tt.want {
			t.Errorf("Contrasts(%q, %q) = %v, want %v", tt.w, tt.t, got, tt.want)
		}
	}
}

func TestOppositeOfTheQuestion(t *testing.T) {
	checks := float64(0.5)
	for _, tt := range []struct {
		q, claim string
		fail     bool
	}{
		{"What drained the southern flanks of the Alps?", "The Rhine drained the northern flanks of the Alps.", true},
		{"What would be higher if there were fewer people?", "Wages would be lower if there were fewer people.", true},
		{"What can be viewed as an informal language?", "A decision problem can be viewed as a formal language.", true},
		{"What is usually taken as the best case complexity?", "The complexity is usually taken to be its worst-case complexity.", true},
		{"What crossed the northern border?", "An army crossed the southern border.", true},
		{"What force is due to attractive forces of interaction?", "The repulsive force is due to the interaction of charges.", true},
		// the word itself, or a word of its pole, stated beside its
		// opposite answers
		{"What may prevent women from working?", "Customs may prevent a woman from working as a man does.", false},
		// words are matched as written, not by stem: Porter2 stems
		// "internal" and "international" alike
		{"What district lies outside the downtown?", "The international district lies east of the downtown.", false},
		{"What drained the southern flanks of the Alps?", "The Rhine drained the northern and southern flanks of the Alps.", false},
		{"What drained the southern flanks of the Alps?", "The Rhine drained the southern flanks of the Alps.", false},
		// a relation stated by a stop word: an order in time or a
		// comparison
		{"After the introduction of X.25 in 1973, how many network technologies had been developed?", "Before the introduction of X.25 in 1973, about twenty different network technologies had been developed.", true},
		{"What becomes more adept at producing vitamin D as a person ages?", "As a person ages the skin becomes less adept at producing vitamin D.", true},
		{"Barro found there is much relation between income inequality and rates of what?", "Barro found that there is little overall relation between income inequality and rates of growth.", true},
		{"After the introduction of X.25 in 1973, how many network technologies had been developed?", "After the introduction of X.25 in 1973, about twenty network technologies had been developed, against two before it.", false},
		{"What follows the same set of rules as scalar quantities?", "Forces follow a different set of rules than scalar quantities.", true},
		{"What follows the same set of rules as scalar quantities?", "Forces follow the same set of rules, though a different notation.", false},
		{"How many subscribers were lost within two months of launch?", "Within two months of the launch, BSkyB gained 400,000 new subscribers.", true},
		// a word the question negates with "non", stated without it
		{"In cases of non shared physical medium how are packets delivered?", "In case of a shared physical medium, the packets may be delivered according to a multiple access scheme.", true},
		{"How were non-local area networks established?", "Its features allowed local area networks to be established ad hoc.", true},
		{"The adaptive immune system recognizes non-self antigens during a process called what?", "The adaptive immune response requires the recognition of specific non-self antigens during a process called antigen presentation.", false},
		{"What was the percentage of Non-Hispanic Whites in 2010?", "Non-Hispanic Whites were 30.0% of the population in 2010.", false},
		// a word that negates without "not" (implicit_negatives.txt)
		{"What is the least used type of reduction?", "The most used type of reduction is the polynomial-time reduction.", true},
		{"What do toxins that fail to enter an organism encounter?", "Toxins that fail to enter an organism are expelled.", false},
		{"Which areas were least vulnerable to disease?", "The most isolated areas were less vulnerable to contagion.", false},
		{"What did the attack fail to do?", "The attack did not reach the city.", false},
		{"What did the attack fail to do?", "The army was unable to reach the city.", false},
		// a noun made from one names a topic
		{"What caused the failure of the bank?", "The bank collapsed after a run on its deposits.", false},
		{"What led to the refusal of the permit?", "The council turned the permit down because of the noise.", false},
		{"Who found a culture of Commissioners who lacked responsibility?", "The experts found a culture where few Commissioners had any sense of responsibility.", false},
		{"What must an invoice include at least?", "An invoice includes the order number.", false},
		// "how much" asks for an amount; "at least" is a bound
		{"How much retail activity does the neighborhood have?", "The neighborhood has 12 shops and very little retail activity.", false},
		{"Which club has more members than the chess club?", "The chess club has at least 40 members and the bridge club 60.", false},
	} {
		if got, findings := findsCheck(checks, tt.q, tt.claim, "polarity"); got != tt.fail {
			t.Errorf("%q / %q: polarity finding %v, want %v (%v)", tt.q, tt.claim, got, tt.fail, findings)
		}
	}
}

// A negation a few words before the word states what "non" does.
func TestWithoutNon(t *testing.T) {
	f := Analyze("How long does the non-solicitation restriction last after the Term ends?")
	for claim, want := range map[string]string{
		"For twelve (12) months after the Term ends, neither Party shall directly solicit any employee of the other Party.": "",
		"The non-solicitation restriction lasts twelve (12) months.":                                                        "",
		"Either Party may solicit the other Party's employees after the Term ends.":                                         "solicitation",
	} {
		if got := f.withoutNon(NewText(claim)); got != want {
			t.Errorf("%q: withoutNon %q, want %q", claim, got, want)
		}
	}
}

// findsCheck runs the checks on claim, read as its own passage, and
// reports whether one finding is of check, with the findings.
func findsCheck(checks float64, q, claim, check string) (bool, []Finding) {
	res := Analyze(q).Check(Context{Claim: claim, Passage: claim}, checks, nil, nil)
	for _, f := range res.Findings {
		if f.Check == check {
			return true, res.Findings
		}
	}
	return false, res.Findings
}

// A negation denies what the question asks unless a "without" after it,
// or another negation close after it, cancels it, or it opens a
// construction that states something:
// a time ("not … until"), an addition ("not just … but also"), a
// correction whose "but" part holds what the question is about, or a
// hedge ("not known whether").
func TestNegationConstructions(t *testing.T) {
	checks := float64(0)
	for _, tt := range []struct {
		q, claim string
		fail     bool
	}{
		// two negations in separate clauses do not cancel
		{"What type of number did the early Greeks consider 1 to be?", "Most early Greeks did not even consider 1 to be a number, so they could not consider it to be a prime.", true},
		// a negation and a "without" after it state a condition, however
		// far apart
		{"How much notice must the Provider give before replacing Key Personnel?", "Provider shall not remove or replace Key Personnel without giving Client at least fifteen (15) days' prior written notice.", false},
		{"Who first fully explained the origins of magnetic and electric fields?", "The origin of electric and magnetic fields would not be fully explained until 1864 when James Clerk Maxwell unified earlier theories.", false},
		{"What do high levels of inequality prevent beyond economic prosperity?", "High levels of inequality prevent not just economic prosperity, but also the quality of a country's institutions.", false},
		// what the question is about stands before "but": denied
		{"What is viewed as a force in general relativity?", "In general relativity, gravitation is not viewed as a force, but rather objects move freely in curved space-time.", true},
		{"Which complexity classes lie between L and P?", "It is not known if L is strictly contained in P, and many complexity classes lie between the two.", false},
	} {
		if got, findings := findsCheck(checks, tt.q, tt.claim, "polarity"); got != tt.fail {
			t.Errorf("%q / %q: polarity finding %v, want %v (%v)", tt.q, tt.claim, got, tt.fail, findings)
		}
	}
}
