package relevance

import "testing"

func TestAnswerTypeOfTheQuestionProper(t *testing.T) {
	for q, want := range map[string]AnswerType{
		// an opening clause of time or condition is not what is asked
		"When B cells and T cells begin to replicate, what do some of their offspring cells become?":                   TypeAny,
		"When rich countries trade with poor countries, whose wages increase?":                                         TypeAgent,
		"When rock folds deep in the Earth it can fold one of two ways, when it buckles upwards it creates what?":      TypeAny,
		"If two thirds of the Rhine flows through the Waal, where does the other third flow through?":                  TypePlace,
		"If the Client terminates for convenience, how many days' notice must it give?":                                TypeDuration,
		"When did the Normans conquer England?":                                                                        TypeTime,
		"When was the Duchy of Normandy founded, and by whom?":                                                         TypeTime,
		"When do cash flow problems exist?":                                                                            TypeTime,
		"When may the Client terminate the Agreement?":                                                                 TypeTime,
		"When rock formations are found on top of a fault that have not been cut, then they must be older or younger?": TypeTime,
		"What was the catalyst that created greater interest in renewable resources?":                                  TypeAny,
		"What is the general term used to describe the output to any given input in a problem instance?":               TypeAny,
		"What is the eighth most populous city in the nation?":                                                         TypeAny,
		"What were high court proceedings being held about?":                                                           TypeAny,
		"What is the area called where two plates move apart?":                                                         TypeAny,
		"What is an object's mass proportional to at the surface of the Earth?":                                        TypeAmount,
		"What is income inequality attributed to?":                                                                     TypeAny,
		"What were Oracle's total revenues in fiscal 2023?":                                                            TypeAmount,
		"What was McDonald's provision for income taxes in 2022?":                                                      TypeAmount,
		"What were FedEx's diluted earnings per share for fiscal 2023?":                                                TypeAmount,
		"What were Intel's research and development expenses in the first quarter of 2023?":                            TypeAmount,
		"What is the approximate turbine entry temperature of a gas turbine?":                                          TypeAmount,
		"What was Intel's headcount, in thousands, at the end of the first quarter of 2023?":                           TypeAmount,
	} {
		if got := Analyze(q).Type; got != want {
			t.Errorf("%q: type %v, want %v", q, got, want)
		}
	}
}

func TestAnswerForms(t *testing.T) {
	tests := []struct {
		q, claim string
		want     bool
	}{
		// a year before 1500, where a year stands
		{"What year did Roger de Tosny fail to accomplish what he set out to do?", "In 1018, Roger de Tosny travelled to the Iberian Peninsula to carve out a state for himself, but failed.", true},
		{"What year did the storm hit Richard's fleet?", "In April 1191 Richard the Lion-hearted left Messina with a large fleet.", true},
		{"What year did the flood take place?", "Before the St. Elizabeth's flood (1421), the Meuse flowed just south of today's line.", true},
		{"What year did the flood take place?", "The flood destroyed 1,200 homes and 150 farms.", false},
		{"What year did the flood take place?", "The flood covered 120 square kilometres.", false},
		// so does a question for years, or for a month and a year
		{"In what years did the infection spread to the people of Asia Minor?", "The residents fled north, most of them dying during the journey, but the infection had been spread to the people of Asia Minor.", false},
		{"In what years did the infection spread to the people of Asia Minor?", "In 1348–49 the infection spread to the people of Asia Minor.", true},
		{"In what month and year did the Black Death spread into France?", "The authors concluded that the research ends the debate about the etiology of the Black Death in the south of France.", false},
		// a clause of time answers when
		{"When are inequalities in wealth justified, according to John Rawls?", "John Rawls argued that inequalities in the distribution of wealth are only justified when they improve the position of the worst off.", true},
		{"When are inequalities in wealth justified, according to John Rawls?", "John Rawls argued that inequalities in the distribution of wealth are never justified.", false},
		// a doer in common words answers who
		{"Who normally manages a construction job?", "An architect normally manages the job, and a construction manager supervises it.", true},
		{"Who is required to verify and have existing utility lines marked?", "Before the foundation can be dug, contractors are typically required to verify and have existing utility lines marked.", true},
		{"Who commissioned the tapestry?", "The tapestry was commissioned by the bishop.", true},
		{"Who normally manages a construction job?", "The job is normally managed well.", false},
		{"Who commissioned the tapestry?", "The tapestry was commissioned in 1070.", false},
		// a place in common words
		{"Where are the gonads located?", "The gonads are located in the parts of the internal canal network under the comb rows.", true},
		{"Where do cicadas spend the majority of their lives?", "These insects spend most of their lives as grubs underground.", true},
		{"Where are the gonads located?", "The gonads are large and produce eggs and sperm.", false},
		{"Where are the gonads located?", "The gonads are located in the gonads.", false},
		// a length answers how long a thing is
		{"How long is the section of the Rhine near Chur?", "This section is nearly 86 km long, and descends from a height of 599 m to 396 m.", true},
		{"How long did the Huguenots keep their names?", "This section is nearly 86 km long.", false},
		// a percentage or a fraction answers how much of a thing
		{"How much imported oil came from the Middle East?", "71% of its imported oil came from the Middle East in 1970.", true},
		{"How much of Helsinki's population spoke French as of 1700?", "By 1700, one-fifth of the population of Helsinki spoke French.", true},
		{"How much less steam did the Corliss engine use compared to the Watt engine?", "In addition to using 30% less steam, it provided more uniform speed.", true},
		// but not what a measure was, nor how many there are
		{"How much revenue did Oracle report in fiscal 2023?", "Cloud revenues were 37% of total revenues in fiscal 2023.", false},
		{"What were Oracle's total revenues in fiscal 2023?", "Half of our total revenues came from the Americas in fiscal 2023.", false},
		{"How many employees did McDonald's have?", "One-fifth of our employees work in restaurants.", false},
		// a spelled number in a compound states a count
		{"How many valves did the Corliss engine use?", "The Corliss steam engine was a four-valve counter flow engine.", true},
		{"How many valves did the Corliss engine use?", "The Corliss steam engine was a one-cylinder engine.", false},
	}
	for _, tt := range tests {
		if got := states(Analyze(tt.q), tt.claim); got != tt.want {
			t.Errorf("%q / %q: states an answer = %v, want %v", tt.q, tt.claim, got, tt.want)
		}
	}
}

func TestOpeningWordIsANameOnlyWhenWrittenSo(t *testing.T) {
	c := Context{
		Claim:    "In one of the richest agricultural regions in the U.S., cattle and citrus were major industries.",
		Sections: []string{"Cattle were raised outside of the cities, and citrus grew in the valleys."},
	}
	if res := Analyze("Outside of livestock, what else was a major industry in the agricultural regions?").Check(c, float64(0), nil, nil); hasCheck(res, "entity") {
		t.Errorf("a question's opening word, which the sections write in lower case, is read as a name: %v", res.Findings)
	}
	// a name keeps its capital wherever it stands
	c = Context{Claim: "Tension with Paris led to a siege by the royal army in 1622.", Sections: []string{"The royal army marched south."}}
	if res := Analyze("France laid siege to Montpellier in what year?").Check(c, float64(0), nil, nil); !hasCheck(res, "entity") {
		t.Errorf("a name the passage never states passes: %v", res.Findings)
	}
	// an acronym is a name, however the sections write the word
	c = Context{Claim: "Deaths rose 8% in 2022.", Sections: []string{"The aids to navigation were removed."}}
	if res := Analyze("AIDS deaths rose by how much in 2022?").Check(c, float64(0), nil, nil); !hasCheck(res, "entity") {
		t.Errorf("an acronym opening the question is read as a word: %v", res.Findings)
	}
	// and a name that is not the opening word is checked however the
	// sections write the word
	c = Context{Claim: "Many turtles eat ctenophores.", Sections: []string{"The beroe eats other ctenophores."}}
	if res := Analyze("What does the Beroe eat?").Check(c, float64(0), nil, nil); !hasCheck(res, "entity") {
		t.Errorf("a name inside the question passes on a lower-case mention: %v", res.Findings)
	}
}
