package generator

import (
	"slices"
	"testing"
)

// Every table layout of the filings reads as rows stated with their column
// headers: footnote references are not values, a percent sign set apart
// belongs to its value, and a header with change columns between the
// years labels every value (no stray "$394,328 8" or "%" fragments).
func TestTableLayoutsOfTheFilings(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"footnote references",
			"Net sales (in millions): 2022 2021 2020 iPhone (1) $ 205,489 $ 191,973 $ 137,781 Mac (1) 40,177 35,190 28,622 " +
				"Wearables, Home and Accessories (1)(2) 41,241 38,367 30,620 Total net sales (4) $ 394,328 $ 365,817 $ 274,515",
			[]string{
				"iPhone: 2022 $205,489; 2021 $191,973; 2020 $137,781",
				"Mac: 2022 40,177; 2021 35,190; 2020 28,622",
				"Wearables, Home and Accessories: 2022 41,241; 2021 38,367; 2020 30,620",
				"Total net sales: 2022 $394,328; 2021 $365,817; 2020 $274,515",
			}},
		{"change columns with a percent sign apart",
			"2022 Change 2021 Change 2020 Net sales by category: iPhone (1) $ 205,489 7 % $ 191,973 39 % $ 137,781 " +
				"iPad (1) 29,292 (8) % 31,862 34 % 23,724 Total net sales $ 394,328 8 % $ 365,817 33 % $ 274,515",
			[]string{
				"Net sales by category: iPhone: 2022 $205,489; Change 7%; 2021 $191,973; Change 39%; 2020 $137,781",
				"iPad: 2022 29,292; Change (8)%; 2021 31,862; Change 34%; 2020 23,724",
				"Total net sales: 2022 $394,328; Change 8%; 2021 $365,817; Change 33%; 2020 $274,515",
			}},
		{"a sentence with years before the header",
			"The following table shows net sales by category for 2022, 2021 and 2020 (dollars in millions): 2022 Change 2021 Change 2020 " +
				"Net sales by category: iPhone (1) $ 205,489 7 % $ 191,973 39 % $ 137,781 Total net sales $ 394,328 8 % $ 365,817 33 % $ 274,515",
			[]string{
				"Net sales by category: iPhone: 2022 $205,489; Change 7%; 2021 $191,973; Change 39%; 2020 $137,781",
				"Total net sales: 2022 $394,328; Change 8%; 2021 $365,817; Change 33%; 2020 $274,515",
			}},
		{"a closing parenthesis set apart",
			"2023 2022 Consolidated revenue $ 90,155 $ 93,512 (4 ) Operating income 4,912 6,245 (21 ) Net income 3,972 3,826 4",
			[]string{
				"Consolidated revenue $90,155 $93,512 (4)",
				"Operating income 4,912 6,245 (21)",
				"Net income 3,972 3,826 4",
			}},
		{"numbers inside labels",
			"as of September 25, 2021 (in millions): Due after 1 year through 5 years $ 83,755 Due after 5 years through 10 years 23,915 Due after 10 years 20,207 Total fair value $ 127,877",
			[]string{
				"as of September 25, 2021",
				"(in millions): Due after 1 year through 5 years $83,755",
				"Due after 5 years through 10 years 23,915",
				"Due after 10 years 20,207",
				"Total fair value $127,877",
			}},
	}
	for _, tt := range tests {
		got := tableRows(tt.text)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// A header standing apart whose last column is named by words ("2023 2022
// Percent Change") labels the rows after it.
func TestHeaderLineWithAChangeColumn(t *testing.T) {
	h := headerLine("The following table compares summary operating results for the years ended May 31: 2023 2022 Percent Change")
	if !slices.Equal(h, []string{"2023", "2022", "Percent Change"}) {
		t.Fatalf("header %q", h)
	}
	got := rowsUnder("Consolidated revenue $ 90,155 $ 93,512 (4 ) Operating income 4,912 6,245 (21 )", h)
	want := []string{"Consolidated revenue: 2023 $90,155; 2022 $93,512; Percent Change (4)", "Operating income: 2023 4,912; 2022 6,245; Percent Change (21)"}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n got %q\nwant %q", got, want)
	}
}
