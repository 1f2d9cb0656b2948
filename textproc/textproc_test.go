package textproc

import (
	"reflect"
	"regexp"
	"slices"
	"testing"
)

func TestTokens(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"A late fee of 1.5% per month.", []string{"a", "late", "fee", "of", "1.5", "per", "month"}},
		{"USD 10,000.00 is due; Client's fee", []string{"usd", "10,000.00", "is", "due", "client", "fee"}},
		{"thirty (30) days", []string{"thirty", "30", "days"}},
		{"end. Next", []string{"end", "next"}},
		{"Hervé and MÖNGKE’s", []string{"herve", "and", "mongke"}},
	}
	for _, c := range cases {
		if got := Tokens(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Tokens(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTerms(t *testing.T) {
	got := Terms("What are the late payment penalties?")
	want := []string{"late", "payment", "penalti"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

func TestSentences(t *testing.T) {
	in := "7.1 If payment is not received within thirty (30) days, a fee applies. See e.g. Section 9. Fees are 1.5% per month!\n\n- first item\n- second item"
	want := []string{
		"7.1 If payment is not received within thirty (30) days, a fee applies.",
		"See e.g. Section 9.",
		"Fees are 1.5% per month!",
		"- first item",
		"- second item",
	}
	if got := Sentences(in); !reflect.DeepEqual(got, want) {
		t.Errorf("Sentences =\n%q\nwant\n%q", got, want)
	}
}

// List items joined into one line (a PDF's lines become a paragraph) are
// sentences of their own, as they are at the start of a line.
func TestSentencesSplitInlineBullets(t *testing.T) {
	in := "In 2023, partners will ship more than 170 notebooks ▪ NEX launched its processors with extensive support ▪ Mobileye achieved record first quarter revenue.\n▪ A line item\n• Another"
	want := []string{
		"In 2023, partners will ship more than 170 notebooks",
		"▪ NEX launched its processors with extensive support",
		"▪ Mobileye achieved record first quarter revenue.",
		"▪ A line item",
		"• Another",
	}
	if got := Sentences(in); !reflect.DeepEqual(got, want) {
		t.Errorf("Sentences =\n%q\nwant\n%q", got, want)
	}
}

// An answer's sentence keeps the list items its writer put inside it.
func TestAnswerSentencesKeepInlineItems(t *testing.T) {
	in := "Benefits include ▪ health cover ▪ a pension. Leave is 25 days.\n▪ A line item"
	want := []string{"Benefits include ▪ health cover ▪ a pension.", "Leave is 25 days.", "▪ A line item"}
	if got := AnswerSentences(in); !reflect.DeepEqual(got, want) {
		t.Errorf("AnswerSentences =\n%q\nwant\n%q", got, want)
	}
}

// Offsets are into s itself, which lower-casing could lengthen.
func TestIndexFold(t *testing.T) {
	for _, tt := range []struct {
		s, sub string
		i, j   int
	}{
		{"Late FEE", "fee", 5, 8},
		{"\x93 00", "00", 2, 4},
		{"ÉTAT x", "état", 0, 5},
		{"abc", "d", -1, -1},
	} {
		if i, j := IndexFold(tt.s, tt.sub); i != tt.i || j != tt.j {
			t.Errorf("IndexFold(%q, %q) = %d, %d, want %d, %d", tt.s, tt.sub, i, j, tt.i, tt.j)
		}
	}
}

// Accents fold on Latin and Greek letters only: in other
// scripts a combining sign makes another word.
func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"Möngke":             "mongke",
		"CAFÉ":               "cafe",
		"Ἀθῆναι":             "αθηναι",
		"Йогурт":             "йогурт", // Cyrillic: "й" is a letter of its own
		"plain":              "plain",
		"\u0915\u0941\u091b": "\u0915\u0941\u091b", // Devanagari: the vowel sign U+0941 stays
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStemSet(t *testing.T) {
	got := StemSet([]string{"calculated", "calculation", "maximum"})
	if want := map[string]bool{"calcul": true, "maximum": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("StemSet = %v, want %v", got, want)
	}
}

// A record (a row written with its column headers) is a sentence of its
// own; prose with colons and semicolons is not a record.
func TestRecordLines(t *testing.T) {
	text := "Region: EMEA; Q3 2024: 1,204; Owner: Ines Duarte\nRegion: APAC; Q3 2024: 912; Owner: Kenji Mori\nThe totals follow\nbelow."
	got := Sentences(text)
	want := []string{"Region: EMEA; Q3 2024: 1,204; Owner: Ines Duarte", "Region: APAC; Q3 2024: 912; Owner: Kenji Mori", "The totals follow below."}
	if !slices.Equal(got, want) {
		t.Errorf("Sentences = %q, want %q", got, want)
	}
	for line, want := range map[string]bool{
		"SKU: X-200; Item: Dock; Unit price: 129.00":                                   true,
		"Note: see below; the fee is due":                                              false,
		"Payment terms: the customer shall pay within thirty days of the invoice date": false,
		"Term: 12 months; Notice: 30 days":                                             true,
	} {
		if IsRecord(line) != want {
			t.Errorf("IsRecord(%q) = %v, want %v", line, !want, want)
		}
	}
}

// A list item is the text after its bullet or number, without the
// conjunction that joins it to the next; it is led by the sentence ending
// in a colon right before its list, and only while items follow.
func TestListItemsAndLeadIns(t *testing.T) {
	text := "Employees are reimbursed when they:\n\n1. obtain prior approval;\n2. submit receipts within 30 days; and\n3. use the corporate card.\n\nMeals are reimbursed up to $60 per day.\n\n- a bullet with no lead-in"
	sents := Sentences(text)
	var items []string
	for _, s := range sents {
		if it, ok := ListItem(s); ok {
			items = append(items, it)
		}
	}
	want := []string{"obtain prior approval", "submit receipts within 30 days", "use the corporate card.", "a bullet with no lead-in"}
	if !slices.Equal(items, want) {
		t.Errorf("items %q, want %q", items, want)
	}
	if got, wantAt := LeadIns(sents), []int{-1, 0, 0, 0, -1, -1}; !slices.Equal(got, wantAt) {
		t.Errorf("lead-ins %v of %q, want %v", got, sents, wantAt)
	}
	if _, ok := ListItem("Meals are reimbursed up to $60 per day."); ok {
		t.Error("a sentence read as a list item")
	}
}

// A word's British and American spellings, in every inflection, have one
// stem, so that "licence" finds "license" as itself, not as a synonym.
func TestStemSpellings(t *testing.T) {
	for _, p := range [][2]string{
		{"licence", "license"}, {"organised", "organized"}, {"organisation", "organization"},
		{"colours", "colors"}, {"centre", "center"}, {"labour", "labor"}, {"programme", "program"},
		{"analysed", "analyzed"}, {"defence", "defense"}, {"behaviour", "behavior"},
		{"judgement", "judgment"}, {"instalments", "installments"}, {"ageing", "aging"},
	} {
		if a, b := Stem(p[0]), Stem(p[1]); a != b {
			t.Errorf("Stem(%q) = %q, Stem(%q) = %q: want one stem", p[0], a, p[1], b)
		}
	}
	// other words keep their own stems
	for _, p := range [][2]string{{"council", "counsel"}, {"metre", "metro"}, {"honour", "hour"}} {
		if a, b := Stem(p[0]), Stem(p[1]); a == b {
			t.Errorf("Stem(%q) = Stem(%q) = %q", p[0], p[1], a)
		}
	}
	// no variant's stem is another variant's: one lookup reaches the
	// canonical stem
	for from, to := range spellingStems() {
		if next, ok := spellingStems()[to]; ok {
			t.Errorf("%q stems to %q, which stems on to %q", from, to, next)
		}
	}
}

// ContainsFoldASCII finds what a (?i) expression of the same letters finds.
func TestContainsFoldASCII(t *testing.T) {
	for _, s := range []string{"", "Certification", "CERTIFY", "cErTiF", "certi", "xx certif yy", "çertif", "CERT IF", "ab\x80certif"} {
		want := regexp.MustCompile(`(?i)certif`).MatchString(s)
		if got := ContainsFoldASCII(s, "certif"); got != want {
			t.Errorf("ContainsFoldASCII(%q) = %v, want %v", s, got, want)
		}
	}
}
