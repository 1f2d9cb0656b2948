package index

import (
	"regexp"
	"strconv"
	"strings"
)

// Period selection. Several filings of one company differ only in the
// period they cover: a question's year already keeps the documents whose
// context states it (docMap.narrow); its quarter ("first quarter of 2023",
// "Q2", "third fiscal quarter") and "latest" / "most recent" are read
// here against each document's period, so that they pick the filing of
// that period rather than leave the choice to BM25.
//
// A document's period is read from its context (schema.Section.DocPeriod:
// "quarterly period ended October 31, 2022", "first quarter 2023",
// "fiscal year ended May 31, 2023") and its file name ("…_2023Q3_10Q").
// A 10-Q states the date its quarter ended, not which fiscal quarter that
// is: the quarter is counted from the end of the fiscal year that an
// annual report of the same company in the folder states, else from the
// calendar year's.

// docPeriod is what a document's context says about its period.
type docPeriod struct {
	// end is the period's last day as yyyymmdd, 0 when no date is stated.
	end int
	// annual says the period is a (fiscal) year.
	annual bool
	// quarter and fiscalYear are the fiscal quarter (1–4) and its fiscal
	// year when stated ("first quarter 2023") or read from the file name;
	// 0 when not.
	quarter, fiscalYear int
}

var (
	months = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}
	// reDate is a date as filings write it: "October 31, 2022", "Oct. 31, 2022".
	reDate = regexp.MustCompile(`(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2}),?\s+((?:19|20)\d\d)\b`)
	// reOrdinalQuarter is a quarter named by its ordinal, with its year
	// when one follows: "first quarter 2023", "third fiscal quarter of
	// fiscal 2023", "2nd quarter".
	reOrdinalQuarter = regexp.MustCompile(`(?i)\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:fiscal\s+)?quarter\b(?:\s+(?:of\s+)?(?:fiscal\s+(?:year\s+)?)?((?:19|20)\d\d)\b)?`)
	// reQNumber is a quarter written "Q2", "Q2 2023", "Q2 FY2023",
	// "2023 Q2", "2023Q2", "FY23 Q2" is not read.
	reQNumber = regexp.MustCompile(`(?i)(?:\b|_)(?:((?:19|20)\d\d)[\s_-]*)?Q([1-4])(?:[\s_-]*(?:FY\s*)?((?:19|20)\d\d))?(?:\b|_)`)
	// reLatest asks for the most recent period.
	reLatest = regexp.MustCompile(`(?i)\b(?:latest|most\s+recent(?:ly)?|newest|last\s+(?:reported\s+)?(?:fiscal\s+)?(?:quarter|period|filing|report))\b`)
	ordinals = map[string]int{"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
)

// readQuarter reads a quarter and its year (0 when not stated) from text.
func readQuarter(text string) (quarter, year int) {
	if m := reOrdinalQuarter.FindStringSubmatch(text); m != nil {
		year, _ = strconv.Atoi(m[2])
		return ordinals[strings.ToLower(m[1])], year
	}
	if m := reQNumber.FindStringSubmatch(text); m != nil {
		quarter, _ = strconv.Atoi(m[2])
		y := m[1]
		if y == "" {
			y = m[3]
		}
		year, _ = strconv.Atoi(y)
		return quarter, year
	}
	return 0, 0
}

// readDocPeriod reads the period of a document from its context's period
// and its path.
func readDocPeriod(period, path string) docPeriod {
	var p docPeriod
	lower := strings.ToLower(period)
	p.annual = strings.Contains(lower, "year") && !strings.Contains(lower, "quarter")
	if m := reDate.FindStringSubmatch(period); m != nil {
		mo := months[strings.ToLower(m[1])]
		d, _ := strconv.Atoi(m[2])
		y, _ := strconv.Atoi(m[3])
		p.end = y*10000 + mo*100 + d
	}
	if !p.annual {
		p.quarter, p.fiscalYear = readQuarter(period)
		if p.quarter == 0 {
			base := path
			if i := strings.LastIndexAny(base, "/\\"); i >= 0 {
				base = base[i+1:]
			}
			p.quarter, p.fiscalYear = readQuarter(base)
		}
	}
	return p
}

// fiscalQuarter is the fiscal quarter and year of a quarter that ended
// on end (yyyymmdd) for a company whose fiscal year ends in month fyEnd
// (12 when not known). A quarter that ends in the first week of a month
// (52- or 53-week years) is counted as ending with the month before.
func fiscalQuarter(end, fyEnd int) (quarter, year int) {
	y, m := end/10000, end/100%100
	if end%100 <= 7 {
		// a 52- or 53-week quarter that ends in a month's first days
		// ends the month before: April 1 ends the first quarter
		if m--; m == 0 {
			m, y = 12, y-1
		}
	}
	months := (m - fyEnd + 12) % 12 // months into the fiscal year
	if months == 0 {
		months = 12
	}
	quarter = (months + 2) / 3
	year = y
	if m > fyEnd {
		year++
	}
	return quarter, year
}

// approxEnd is the last day a period ends on, for ordering periods: its
// stated date, else the end of its fiscal quarter (by fyEnd), else 0.
func (p docPeriod) approxEnd(fyEnd int) int {
	if p.end > 0 {
		return p.end
	}
	if p.quarter == 0 || p.fiscalYear == 0 {
		return 0
	}
	// the quarter's last month: fyEnd is the fourth quarter's
	m := (fyEnd+3*p.quarter-1)%12 + 1
	y := p.fiscalYear
	if m > fyEnd {
		y--
	}
	return y*10000 + m*100 + 28
}

// asksForPeriod reports whether the question asks for a quarter or the
// latest period.
func asksForPeriod(question string) bool {
	q, _ := readQuarter(question)
	return q > 0 || reLatest.MatchString(question)
}

// narrowPeriod keeps, of several documents the question names, those of
// the quarter it asks for, or of the latest period when it asks for the
// latest; it returns docs unchanged when no document matches or the
// question asks for neither.
func (m *docMap) narrowPeriod(docs []int, question string) []int {
	if len(docs) < 2 {
		return docs
	}
	quarter, year := readQuarter(question)
	latest := reLatest.MatchString(question)
	if quarter == 0 && !latest {
		return docs
	}
	// the fiscal year's last month per company, from its annual reports
	fyEnd := map[string]int{}
	for _, p := range m.docs {
		if p.when.annual && p.when.end > 0 {
			fyEnd[p.entityName] = p.when.end / 100 % 100
		}
	}
	yearEnd := func(p *docProfile) int {
		if e, ok := fyEnd[p.entityName]; ok && p.entityName != "" {
			return e
		}
		return 12
	}
	var out []int
	if quarter > 0 {
		for _, d := range docs {
			p := &m.docs[d]
			q, fy := p.when.quarter, p.when.fiscalYear
			if p.when.annual {
				continue
			}
			if q == 0 && p.when.end > 0 {
				q, fy = fiscalQuarter(p.when.end, yearEnd(p))
			}
			if q == quarter && (year == 0 || fy == year || p.when.end/10000 == year) {
				out = append(out, d)
			}
		}
		if len(out) > 0 {
			return out
		}
		return docs
	}
	// the latest period of each company named
	best := map[string]int{}
	for _, d := range docs {
		p := &m.docs[d]
		best[p.entityName] = max(best[p.entityName], p.when.approxEnd(yearEnd(p)))
	}
	for _, d := range docs {
		p := &m.docs[d]
		if b := best[p.entityName]; b == 0 || p.when.approxEnd(yearEnd(p)) == b {
			out = append(out, d)
		}
	}
	return out
}
