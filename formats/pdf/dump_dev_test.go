package pdf

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/klippa-app/go-pdfium/requests"
)

// TestDevDumpChars prints PDFium's view of every character on one page:
// DOCMIND_DUMP=file.pdf:page go test -run TestDevDumpChars -v
func TestDevDumpChars(t *testing.T) {
	spec := os.Getenv("DOCMIND_DUMP")
	if spec == "" {
		t.Skip("DOCMIND_DUMP not set")
	}
	var file string
	var page int
	for i := len(spec) - 1; i >= 0; i-- {
		if spec[i] == ':' {
			file = spec[:i]
			page, _ = strconv.Atoi(spec[i+1:])
			break
		}
	}
	inst, data := devInstance(t, file)
	od, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		t.Fatal(err)
	}
	doc := od.Document
	pg, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: page - 1})
	if err != nil {
		t.Fatal(err)
	}
	p := requests.Page{ByReference: &pg.Page}
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: p})
	if err != nil {
		t.Fatal(err)
	}
	cc, _ := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	gt, _ := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, StartIndex: 0, Count: cc.Count})
	gr := []rune(gt.Text)
	fmt.Printf("GetText runes %d count %d %q\n", len(gr), cc.Count, string(gr[778:786]))
	for j, r := range gr {
		if r < ' ' && r != '\n' && r != '\r' {
			fmt.Printf("GetText %d U+%04X\n", j, r)
		}
	}
	for j := 0; j < cc.Count; j++ {
		u, _ := inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp.TextPage, Index: j})
		b, _ := inst.FPDFText_GetCharBox(&requests.FPDFText_GetCharBox{TextPage: tp.TextPage, Index: j})
		g, _ := inst.FPDFText_IsGenerated(&requests.FPDFText_IsGenerated{TextPage: tp.TextPage, Index: j})
		e, _ := inst.FPDFText_HasUnicodeMapError(&requests.FPDFText_HasUnicodeMapError{TextPage: tp.TextPage, Index: j})
		fi, _ := inst.FPDFText_GetFontInfo(&requests.FPDFText_GetFontInfo{TextPage: tp.TextPage, Index: j})
		fn := ""
		if fi != nil {
			fn = fi.FontName
		}
		var l, rr float64
		if b != nil {
			l, rr = b.Left, b.Right
		}
		extra := ""
		if u.Unicode == 0 || u.Unicode == 'f' {
			lb, _ := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp.TextPage, Index: j})
			fs, _ := inst.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp.TextPage, Index: j})
			to, _ := inst.FPDFText_GetTextObject(&requests.FPDFText_GetTextObject{TextPage: tp.TextPage, Index: j})
			if to != nil && lb != nil && fs != nil {
				f, err := inst.FPDFTextObj_GetFont(&requests.FPDFTextObj_GetFont{PageObject: to.TextObject})
				if err == nil {
					ws := ""
					for _, c := range "fil\ufb00\ufb01\ufb02" {
						w, err := inst.FPDFFont_GetGlyphWidth(&requests.FPDFFont_GetGlyphWidth{Font: f.Font, Glyph: uint32(c), FontSize: float32(fs.FontSize)})
						if err == nil {
							ws += fmt.Sprintf(" %c=%.2f", c, w.GlyphWidth)
						} else {
							ws += fmt.Sprintf(" %c=err", c)
						}
					}
					extra = fmt.Sprintf(" loose=%.2f-%.2f size=%.1f%s", lb.Rect.Left, lb.Rect.Right, fs.FontSize, ws)
				}
			}
		}
		fmt.Printf("%d U+%04X %q box=%.1f-%.1f gen=%v err=%v font=%s%s\n", j, u.Unicode, rune(u.Unicode), l, rr, g != nil && g.IsGenerated, e != nil && e.HasUnicodeMapError, fn, extra)
	}
}
