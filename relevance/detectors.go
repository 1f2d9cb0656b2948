package relevance

import (
	"slices"
	"strings"
)

// The detectors of Frame.Check, in the order they run. Their cases are in
// testdata/detectors.jsonl (see TestDetectorCases).

// isRow reports whether the claim is a row of a table that is mostly
// values (a sentence with a figure is read as a row at times).
func (p *Pass) isRow() bool { return p.Context.Row && valueShare(p.Context.Claim) >= minValueShare }

var (
	EntityUnnamed = Register(&Detector{
		Name: "entity.unnamed",
		Doc:  "a name the question uses is in neither the answer's passage (before it), its heading nor its document",
		Run: func(p *Pass) {
			f, c := p.Frame, p.Context
			for i, e := range f.Entities {
				toks := f.entityTokens[i]
				if len(toks) == 0 || i == f.opener && writtenInLowerCase(e, *c) {
					continue // a word, not a name ("Compared to …", "Outside of …")
				}
				if !f.namedIn(i, p.before) && !f.namedIn(i, p.doc) {
					p.Reportf("the question is about %q, which the answer's passage and its document never name", withoutPossessive(e))
				}
			}
		},
	})
	// a row of a table is about what its label says: a name the question
	// uses that the document is not about (a segment, a product, a
	// region) must be in the row's label or its group's, not only in the
	// rows around it
	EntityRowLabel = Register(&Detector{
		Name: "entity.row-label",
		Doc:  "a table row's label and group do not name what the question names (a segment, product or region)",
		Run: func(p *Pass) {
			if !p.isRow() {
				return
			}
			c := p.Context
			label := NewText(c.Scope + "\n" + rowLabel(c.Claim) + "\n" + c.Heading)
			for i, e := range p.Frame.Entities {
				toks := p.Frame.entityTokens[i]
				if len(toks) > 0 && !p.doc.hasPhrase(toks) && !label.hasPhrase(toks) {
					p.Reportf("the answer's row is not about %q, which the question asks about", withoutPossessive(e))
				}
			}
		},
	})
	PeriodUnstated = Register(&Detector{
		Name: "period.unstated",
		Doc:  "a year, quarter or month the question names is in neither the answer's passage nor its document",
		Run: func(p *Pass) {
			for _, per := range p.Frame.Periods {
				if !p.around.hasPeriod(per) && !p.doc.hasPeriod(per) {
					p.Reportf("the question asks about %s, which the answer's passage and its document never state", periodName(per))
				}
			}
		},
	})
	// a row of a table is for the years its table's header names, not
	// for every year its document is about
	PeriodTableHeader = Register(&Detector{
		Name: "period.table-header",
		Doc:  "the header of the answer's table names other years than the question",
		Run: func(p *Pass) {
			f, c := p.Frame, p.Context
			if !c.Row || c.Header == "" {
				return
			}
			if stated, ok := f.otherYears(c.Header); !ok {
				p.Reportf("the answer's table is for %s, not %s, which the question asks about", strings.Join(stated, ", "), strings.Join(f.years(), ", "))
			}
		},
	})
	// a section headed by a year is about that year ("Fiscal 2021
	// Activity"): the years its rows and sentences name beside it
	// (a plan's name, an opening balance) are not what it reports
	PeriodOtherHeading = Register(&Detector{
		Name: "period.other-heading",
		Doc:  "the answer's section heading names other years than the question and the answer names none it asks",
		Run: func(p *Pass) {
			f, c := p.Frame, p.Context
			title, _, _ := strings.Cut(c.Heading, "\n")
			if stated, ok := f.otherYears(title); !ok {
				claim := NewText(c.Claim)
				if !slices.ContainsFunc(f.years(), claim.hasPeriod) {
					p.Reportf("the answer's section is headed for %s, not %s, which the question asks about", strings.Join(stated, ", "), strings.Join(f.years(), ", "))
				}
			}
		},
	})
	// a question that asks for a whole year is not answered by a
	// quarter's figure: a row of a table whose columns cover three
	// months (or, with no header before it, under a heading of interim
	// or quarterly figures), or a statement of a quarter that names no
	// year-long period
	PeriodPartYear = Register(&Detector{
		Name: "period.part-year",
		Doc:  "the question asks for a full year and the answer states a quarter's or part year's figure",
		Run: func(p *Pass) {
			c := p.Context
			if !p.Frame.asksFullYear() {
				return
			}
			span := c.Span
			switch {
			case !c.Row:
				span = statedSpan(c.Claim)
			case span == "":
				span = headingSpan(c.Heading)
			}
			if span == SpanQuarter || span == SpanPartYear {
				p.Report("the question asks for a full year, and the answer states a figure for " + spanName[span])
			}
		},
	})
	PeriodOtherMonth = Register(&Detector{
		Name: "period.other-month",
		Doc:  "the answer is dated by other months than the question names",
		Run: func(p *Pass) {
			if stated, ok := p.Frame.otherMonths(p.Context.Claim); !ok {
				p.Reportf("the answer states %s, not %s, which the question asks about", strings.Join(stated, ", "), strings.Join(p.Frame.monthNames(), " or "))
			}
		},
	})
	TypeMissing = Register(&Detector{
		Name: "type.missing",
		Doc:  "the answer states no value of the kind the question asks for (a count, an amount, a date, a name …)",
		Run: func(p *Pass) {
			f := p.Frame
			// a note's or an item's number ("(1) Products net sales
			// include …", a table's footnote) is not a value it states
			claim := reNoteNumber.ReplaceAllString(p.Context.Claim, "")
			if f.Type != TypeAny && f.Type != TypeYesNo && !states(*f, claim) {
				p.Reportf("the question asks for %s %s, which the answer does not state", article(f.Type.String()), f.Type)
			}
		},
	})
	// a row is named by its label (rows of a table run together into one
	// claim name many measures), and its group's label before it
	FocusCompound = Register(&Detector{
		Name: "focus.compound",
		Doc:  "a figure's answer does not name the measure the question names in two words (\"net income\")",
		Run: func(p *Pass) {
			f, c := p.Frame, p.Context
			if !figureType(f.Type) {
				return
			}
			parts := []string{c.Claim, c.Heading}
			row := p.isRow()
			if row {
				own := ownLabel(c.Claim)
				parts = []string{own, c.Heading, c.Scope + " " + own, inherited(own, c.Scope)}
			}
			if m := f.missingCompound(parts...); m != "" && (row || !Tabular(c.Claim)) {
				p.Reportf("the answer does not state the %s the question asks for", m)
			}
		},
	})
	QuantityMissing = Register(&Detector{
		Name: "quantity.missing",
		Doc:  "a number the question states is not in the answer's passage",
		Run: func(p *Pass) {
			c := p.Context
			if p.Frame.Type == TypeYesNo {
				return
			}
			if q := p.Frame.missingQuantities(c.Claim + "\n" + c.Passage + "\n" + c.Heading); len(q) > 0 {
				p.Reportf("the question states %s, which the answer's passage does not", QuoteList(q))
			}
		},
	})
	FocusShare = Register(&Detector{
		Name: "focus.share",
		Doc:  "the answer's passage addresses less than the least weighted share of the question's focus terms (the words that chose its document count as addressed)",
		Run: func(p *Pass) {
			if p.addressed < p.MinFocus {
				p.Reportf("the answer does not address %s", QuoteList(p.Frame.words(p.missing)))
			}
		},
	})
	ScopeOtherBasis = Register(&Detector{
		Name: "scope.other-basis",
		Doc:  "the answer states a figure on another basis (pro forma, non-GAAP …) than the question asks for",
		Run: func(p *Pass) {
			if b := p.Frame.otherBasis(p.Context.Claim + "\n" + p.Context.Heading); b != "" {
				p.Reportf("the answer states a %s figure, which the question does not ask for", b)
			}
		},
	})
	ScopeOtherHead = Register(&Detector{
		Name: "scope.other-head",
		Doc:  "a table row's label is headed by another measure than the question asks for",
		Run: func(p *Pass) {
			if !figureType(p.Frame.Type) || !p.isRow() {
				return
			}
			if h := p.Frame.otherHead(ownLabel(p.Context.Claim)); h != "" {
				p.Reportf("the answer's row states %q, not what the question asks about", h)
			}
		},
	})
	ScopePartHeading = Register(&Detector{
		Name: "scope.part-heading",
		Doc:  "the answer's section is headed by a part (a segment, a subsidiary) the question does not ask about",
		Run: func(p *Pass) {
			if part := p.Frame.partHeading(p.Context.Heading); part != "" {
				p.Reportf("the answer's section is about the %s, a part the question does not ask about", part)
			}
		},
	})
	// a statement of a part of the measure asked for ("Hotel Revenue of
	// $46,046" for total revenue) does not answer for the whole
	ScopePartOfTotal = Register(&Detector{
		Name: "scope.part-of-total",
		Doc:  "the answer states a part of the measure the question asks for (one line of revenue for the total)",
		Run: func(p *Pass) {
			if p.Context.Row || !figureType(p.Frame.Type) {
				return
			}
			if part := p.Frame.narrowedMeasure(p.Context.Claim); part != "" {
				p.Reportf("the answer states the %s, a part of what the question asks about", part)
			} else if n := p.Frame.subsetCount(p.Context.Claim); n != "" {
				p.Reportf("the answer counts %s that have something, a part of what the question counts", n)
			}
		},
	})
	ScopeRowGroup = Register(&Detector{
		Name: "scope.row-group",
		Doc:  "a table row is under a group label that narrows it to a part the question does not ask about",
		Run: func(p *Pass) {
			f, c := p.Frame, p.Context
			if c.Row && (len(f.narrowedBy(c.Scope)) > 0 && !f.completes(ownLabel(c.Claim), c.Scope) || f.partOf(c.Scope)) {
				p.Reportf("the answer's row is under %q, a part the question does not ask about", c.Scope)
			}
		},
	})
	PolarityOpposite = Register(&Detector{
		Name: "polarity.opposite",
		Doc:  "the answer states the opposite (an antonym) of a word of the question, or another number of what the question counts or orders",
		Run: func(p *Pass) {
			x := NewText(p.Context.Claim)
			if w := p.Frame.opposite(x); w != "" {
				p.Reportf("the answer states %q, the opposite of what the question asks", w)
			} else if other, asked := p.Frame.otherNumber(x); other != "" {
				p.Reportf("the answer states %q where the question asks %q", other, asked)
			}
		},
	})
	PolarityNegation = Register(&Detector{
		Name: "polarity.negation",
		Doc:  "the answer negates what a positive question asks, or is positive where the question is negative",
		Run: func(p *Pass) {
			f := p.Frame
			if f.Type == TypeYesNo || f.negatedAbout(p.Context.Claim) == f.Negated {
				return
			}
			what := "negates what the question asks"
			if f.Negated {
				what = "is positive where the question is negative"
			}
			p.Report("the answer " + what)
		},
	})
)

// withoutPossessive returns w without the possessive it was written
// with: "FedEx Express" for "FedEx Express's", as a finding quotes a name.
func withoutPossessive(w string) string {
	return strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
}

// contracted maps the contractions whose first part is not what is left
// when the ending is cut off.
var contracted = map[string]string{"can't": "can", "won't": "will", "shan't": "shall", "ain't": "is"}

// uncontracted returns the word a lower-case contraction contracts
// ("what" of "what're", "is" of "isn't", "will" of "won't"), or w.
func uncontracted(w string) string {
	w = strings.ReplaceAll(w, "’", "'")
	if u, ok := contracted[w]; ok {
		return u
	}
	for _, suf := range []string{"n't", "'re", "'ve", "'ll", "'d", "'m"} {
		if u, ok := strings.CutSuffix(w, suf); ok && u != "" {
			return u
		}
	}
	return w
}
