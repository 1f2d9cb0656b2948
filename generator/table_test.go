package generator

import (
	"reflect"
	"testing"
)

func TestTableRows(t *testing.T) {
	got := tableRows("In millions 2022 2021 2020 U.S. federal $ 517.3 $ 887.6 $ 554.1 Deferred tax provision (345.7) (428.3) 6.4 Provision for income taxes $ 1,648.0 $ 1,582.7 $ 1,410.2")
	want := []string{
		"U.S. federal: 2022 $517.3; 2021 $887.6; 2020 $554.1",
		"Deferred tax provision: 2022 (345.7); 2021 (428.3); 2020 6.4",
		"Provision for income taxes: 2022 $1,648.0; 2021 $1,582.7; 2020 $1,410.2",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rows:\n got %q\nwant %q", got, want)
	}
	for _, prose := range []string{
		"The fee is 1.5% per month on amounts unpaid after 30 days.",
		// many figures, but mostly words: one sentence of a filing
		"The amount of revenues recognized during the year ended May 31, 2023 and 2022 that were included in the opening deferred revenues balance as of May 31, 2022 and 2021, respectively, was approximately $8.3 billion and $8.8 billion, and our remaining performance obligations were $67.9 billion, of which we expect to recognize approximately 35% as revenues over the next twelve months.",
	} {
		if rows := tableRows(prose); rows != nil {
			t.Errorf("prose split into rows: %q", rows)
		}
	}
}
