package ocr

import (
	"context"
	"strings"
	"testing"
)

const sampleTSV = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
	"1\t1\t0\t0\t0\t0\t0\t0\t2550\t3300\t-1\t\n" +
	"2\t1\t1\t0\t0\t0\t300\t200\t900\t100\t-1\t\n" +
	"5\t1\t1\t1\t1\t1\t300\t200\t120\t40\t96.5\tLate\n" +
	"5\t1\t1\t1\t1\t2\t430\t200\t80\t40\t95\tfees\n" +
	"5\t1\t1\t1\t2\t1\t300\t260\t200\t50\t91\taccrue.\n" +
	"5\t1\t1\t2\t1\t1\t300\t400\t100\t40\t90\tSecond\n" +
	"5\t1\t1\t2\t1\t2\t410\t400\t100\t40\t90\t \n" +
	"1\t2\t0\t0\t0\t0\t0\t0\t1000\t1000\t-1\t\n" +
	"5\t2\t1\t1\t1\t1\t10\t10\t50\t20\t88\tPage2\n"

func TestParseTSV(t *testing.T) {
	pages, err := ParseTSV([]byte(sampleTSV))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 2 || pages[0].Width != 2550 || pages[0].Height != 3300 || pages[1].Number != 2 {
		t.Fatalf("pages %+v", pages)
	}
	if w := pages[0].Words[0]; w != (Word{Text: "Late", Left: 300, Top: 200, Width: 120, Height: 40, Conf: 96.5, Block: 1, Par: 1, Line: 1}) {
		t.Errorf("first word %+v", w)
	}
	lines := pages[0].Lines()
	if len(lines) != 3 || lines[0].Text != "Late fees" || lines[0].Width != 210 || lines[0].Height != 40 {
		t.Errorf("lines %+v", lines)
	}
	if got := strings.Join(pages[0].Paragraphs(), " | "); got != "Late fees accrue. | Second" {
		t.Errorf("paragraphs %q", got)
	}
	if _, err := ParseTSV([]byte("header\n5\t99999999\t1\t1\t1\t1\t0\t0\t1\t1\t90\tx\n")); err == nil {
		t.Error("a page number beyond MaxPages gives no error")
	}
	if _, err := ParseTSV([]byte("header\n5\t1\tx\n")); err == nil {
		t.Error("a malformed line gives no error")
	}
}

// Tesseract splits a kerned word ("Development A greement.", from the
// scanned Bioamber page of testdata); the parts that are no word but make
// one together are joined, and words that are words stay apart.
func TestParseTSVRejoinsSplitWords(t *testing.T) {
	row := func(word, left, width, text string) string {
		return "5\t1\t6\t1\t2\t" + word + "\t" + left + "\t278\t" + width + "\t33\t93\t" + text + "\n"
	}
	tsv := "header\n" + row("1", "1779", "186", "Development") + row("2", "1973", "18", "A") + row("3", "1998", "134", "greement.") +
		row("4", "2145", "67", "a") + row("5", "2220", "90", "typical") + row("8", "2300", "20", "to") + row("9", "2330", "10", "a") + row("6", "2320", "30", "con") + row("7", "2360", "80", "tinuing")
	pages, err := ParseTSV([]byte(tsv))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range pages[0].Words {
		got = append(got, w.Text)
	}
	if s := strings.Join(got, " "); s != "Development Agreement. a typical to a continuing" {
		t.Errorf("words %q, want %q", s, "Development Agreement. a typical to a continuing")
	}
	if w := pages[0].Words[1]; w.Left != 1973 || w.Width != 1998+134-1973 {
		t.Errorf("joined word's box %+v, want the union of the parts'", w)
	}
}

func TestNeedsOCR(t *testing.T) {
	for text, want := range map[string]bool{
		"":                            true,
		"  \n ":                       true,
		"- . — ,":                     true,
		"\ufffd\ufffd\ufffd a":        true,
		"\ue000\ue001\ue002\ue003 ab": true,
		"Late fees accrue at 1.5%.":   false,
		"12":                          false,
		"Straße \ufffd café":          false,
	} {
		if got := NeedsOCR(text); got != want {
			t.Errorf("NeedsOCR(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Auto, "auto": Auto, "ALWAYS": Always, " never ": Never} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("sometimes"); err == nil || !strings.Contains(err.Error(), "auto, always or never") {
		t.Errorf("ParseMode(sometimes) error %v", err)
	}
}

func TestEngineUnavailable(t *testing.T) {
	e := New(Options{Command: "no-such-tesseract-here"})
	if err := e.Available(); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Errorf("Available() = %v", err)
	}
	if _, err := e.Recognize(context.Background(), []byte("x")); err == nil {
		t.Error("Recognize without Tesseract gives no error")
	}
	if FromContext(context.Background()) != Default() || FromContext(NewContext(context.Background(), e)) != e {
		t.Error("FromContext does not return the engine of the context, or Default")
	}
	msg := (&NeededError{What: "PNG image", Pages: 2, Reason: e.Available().Error()}).Error()
	if !strings.HasPrefix(msg, "PNG image: 2 pages need OCR; Tesseract") || !strings.Contains(msg, InstallHint) {
		t.Errorf("NeededError %q", msg)
	}
}

func FuzzParseTSV(f *testing.F) {
	f.Add([]byte(sampleTSV))
	f.Fuzz(func(t *testing.T, data []byte) {
		pages, err := ParseTSV(data)
		if err != nil {
			return
		}
		for _, p := range pages {
			p.Paragraphs()
		}
	})
}

func TestTesseractMessage(t *testing.T) {
	msg := "Error opening data file /usr/share/tesseract-ocr/5/tessdata/deu.traineddata\nPlease make sure the TESSDATA_PREFIX environment variable is set to your \"tessdata\" directory.\nFailed loading language 'deu'\nTesseract couldn't load any languages!\nCould not initialize tesseract.\n"
	if got := lastLine(msg, nil); got != "Failed loading language 'deu' (install the language's data, e.g. apt install tesseract-ocr-deu)" {
		t.Errorf("lastLine = %q", got)
	}
	if got := lastLine("warning\nsomething broke\n", nil); got != "something broke" {
		t.Errorf("lastLine = %q", got)
	}
}

// A line's confidence is the mean of its words'.
func TestLineConfidence(t *testing.T) {
	p := Page{Words: []Word{
		{Text: "Fuel", Height: 30, Conf: 96, Block: 1, Par: 1, Line: 1},
		{Text: "Supplies", Height: 34, Conf: 90, Block: 1, Par: 1, Line: 1},
		{Text: "tt", Height: 20, Conf: 20, Block: 2, Par: 1, Line: 1},
	}}
	lines := p.Lines()
	if len(lines) != 2 || lines[0].Conf != 93 || lines[1].Conf != 20 {
		t.Fatalf("lines %+v, want confidences 93 and 20", lines)
	}
}
