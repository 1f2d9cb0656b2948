package docmind

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadNewFormats loads a folder with a workbook, a CSV file, a deck
// (named without extension: detected from its content) and a
// damaged workbook through the loader every command uses: the good files
// give sections whose rows carry their header, the bad one one line of
// reason, and the rest of the folder is still read.
func TestLoadNewFormats(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "formats/xlsx/testdata/sales.xlsx", filepath.Join(dir, "sales.xlsx"))
	copyFile(t, "formats/pptx/testdata/review.pptx", filepath.Join(dir, "deck"))
	copyFile(t, "formats/eml/testdata/budget.eml", filepath.Join(dir, "mail", "budget.eml"))
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("budget.csv", "Team,Budget 2025\nResearch,\"2,400,000\"\nSales,\"1,100,000\"\n")
	good, _ := os.ReadFile("formats/xlsx/testdata/sales.xlsx")
	write("broken.xlsx", string(good[:len(good)/3]))
	secs, rep, err := LoadDocuments(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, s := range secs {
		all.WriteString(s.Title + " | " + s.Content + "\n")
	}
	for _, want := range []string{
		"Sales | Region: EMEA; Q2 2024: 1,102; Q3 2024: 1,204",
		"budget | Team: Research; Budget 2025: 2,400,000",
		"Revenue by region | EMEA grew 9% to 1,204",
		"Speaker notes: Mention that the EMEA figure",
		"Budget 2025 and the Q3 review | Subject: Budget 2025 and the Q3 review\nFrom: Ines Duarte",
		"Attachment: budget.csv | Team: Research; Budget 2025: 2,400,000",
		"Attachments not read: old-figures.xlsx (",
	} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("sections lack %q:\n%s", want, all.String())
		}
	}
	if len(rep.Skipped) != 1 || !strings.HasSuffix(rep.Skipped[0].Path, "broken.xlsx") || strings.Contains(rep.Skipped[0].Reason, "\n") {
		t.Errorf("skipped %+v, want broken.xlsx with a one-line reason", rep.Skipped)
	}
	formats := map[string]bool{}
	for _, f := range rep.Files {
		formats[f.Format] = true
	}
	if !formats["xlsx"] || !formats["csv"] || !formats["pptx"] || !formats["eml"] {
		t.Errorf("formats loaded %v", formats)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A question about one row of a sheet is answered offline with that row,
// under its column headers: each row of a sheet is a unit of its own
// (textproc.IsRecord), not one run-on sentence of every row, and a row's
// first column header is not a group that narrows it. A row without the
// asked value is not an answer.
func TestAskSheetRow(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "formats/xlsx/testdata/sales.xlsx", filepath.Join(dir, "sales.xlsx"))
	ctx := context.Background()
	p, err := FromDocuments(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ans, err := p.Ask(ctx, "What were EMEA sales in Q3 2024?")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(ans.Text, "\n")
	if ans.Refused || !strings.HasPrefix(first, "Region: EMEA; Q2 2024: 1,102; Q3 2024: 1,204") {
		t.Errorf("answer %q (refused %v), want the EMEA row first", ans.Text, ans.Refused)
	}
	ans, err = p.Ask(ctx, "What were Americas sales in Q3 2024?")
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Refused {
		t.Errorf("the Americas row has no Q3 2024 value, yet the answer is %q", ans.Text)
	}
}
