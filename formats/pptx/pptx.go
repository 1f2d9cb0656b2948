// Package pptx reads PowerPoint decks (Office Open XML presentations) with
// archive/zip and encoding/xml only.
//
// Each slide, in the deck's order, gives a heading (the slide's title
// placeholder, or "Slide N" when it has none) on page N, then the text of
// its shapes (one paragraph per text paragraph; a table one row a line,
// cells separated by " | "), then its speaker notes as a paragraph
// starting "Speaker notes:". Hidden slides are read too.
//
// Limits: every part is read through a size limit (MaxPartSize), the
// archive may hold at most zipx.MaxEntries entries and the deck at most
// MaxSlides slides, so a zip bomb gives formats.ErrTooLarge.
package pptx

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/internal/zipx"
)

// MaxPartSize is the largest decompressed size of one part (a slide, its
// notes, the presentation).
const MaxPartSize = 64 << 20

// MaxSlides bounds the slides read.
const MaxSlides = 10000

// Parse reads a PPTX deck. Errors are formats errors: ErrCorrupt (not a
// deck, malformed XML), ErrEncrypted (password protected), ErrUnsupported
// (another zip), ErrTooLarge (a part beyond MaxPartSize, too many
// slides) or ErrEmpty (no text on any slide).
func Parse(ctx context.Context, source string, data []byte) (*document.Document, error) {
	return parse(ctx, source, data, MaxPartSize)
}

func parse(ctx context.Context, source string, data []byte, limit int64) (doc *document.Document, err error) {
	defer formats.Recover(source, &err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a, err := zipx.OpenOffice(source, "PPTX", "PowerPoint", ".ppt", data, limit)
	if err != nil {
		return nil, err
	}
	pres, err := a.Read("ppt/presentation.xml")
	if err != nil {
		return nil, err
	}
	if pres == nil {
		return nil, formats.Errorf(source, formats.ErrUnsupported, "zip file has no ppt/presentation.xml (not a PowerPoint deck)")
	}
	rels, err := readRels(a, "ppt/presentation.xml")
	if err != nil {
		return nil, err
	}
	ids, err := slideOrder(pres)
	if err != nil {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "malformed ppt/presentation.xml: %w", err)
	}
	if len(ids) > MaxSlides {
		return nil, formats.Errorf(source, formats.ErrTooLarge, "deck has %d slides, above the limit of %d", len(ids), MaxSlides)
	}
	doc = &document.Document{Source: source, Format: formats.PPTX, Title: coreTitle(a)}
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := i + 1
		target := rels[id]
		if target == "" {
			continue
		}
		blocks, err := readSlide(a, target, n)
		if err != nil {
			return nil, err
		}
		doc.Blocks = append(doc.Blocks, blocks...)
		doc.Pages = n
	}
	if !hasText(doc.Blocks) {
		return nil, formats.Errorf(source, formats.ErrEmpty, "deck has no text on any slide")
	}
	return doc, nil
}

// readSlide reads slide n from its part: heading, shapes, notes.
func readSlide(a *zipx.Archive, part string, n int) ([]document.Block, error) {
	b, err := a.Read(part)
	if err != nil || b == nil {
		return nil, err
	}
	title, paras, err := shapesText(b)
	if err != nil {
		return nil, formats.Errorf(a.Source, formats.ErrCorrupt, "malformed %s: %w", part, err)
	}
	if title == "" {
		title = fmt.Sprintf("Slide %d", n)
	}
	out := []document.Block{{Kind: document.Heading, Level: 1, Text: title, Page: n}}
	for _, p := range paras {
		out = append(out, document.Block{Kind: p.kind, Text: p.text, Page: n})
	}
	rels, err := readRels(a, part)
	if err != nil {
		return nil, err
	}
	for _, target := range rels {
		if !strings.Contains(target, "notesSlide") {
			continue
		}
		nb, err := a.Read(target)
		if err != nil {
			return nil, err
		}
		if nb == nil {
			continue
		}
		_, notes, err := shapesText(nb)
		if err != nil {
			return nil, formats.Errorf(a.Source, formats.ErrCorrupt, "malformed %s: %w", target, err)
		}
		var texts []string
		for _, p := range notes {
			texts = append(texts, p.text)
		}
		if len(texts) > 0 {
			out = append(out, document.Block{Kind: document.Paragraph, Text: "Speaker notes: " + strings.Join(texts, " "), Page: n})
		}
	}
	return out, nil
}

// para is a paragraph or table of a slide.
type para struct {
	kind document.Kind
	text string
}

// shapesText returns the text of a slide's (or notes page's) shapes: the
// title placeholder's text, and the other paragraphs and tables in
// document order. Slide-number, date, footer and slide-image placeholders
// are left out.
func shapesText(b []byte) (title string, out []para, err error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	var (
		phType  string // placeholder type of the current shape
		inShape int    // depth of p:sp nesting
		cur     strings.Builder
		inText  bool
		row     []string
		cell    strings.Builder
		inCell  bool
		rows    []string
		titles  []string
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "sp":
				inShape++
				phType = ""
			case "ph":
				phType = attr(t, "type")
				if phType == "" {
					phType = "body"
				}
			case "p":
				if t.Name.Space == nsDrawing {
					cur.Reset()
				}
			case "t":
				inText = t.Name.Space == nsDrawing
			case "br":
				if inCell {
					cell.WriteByte(' ')
				} else {
					cur.WriteByte(' ')
				}
			case "tbl":
				rows = nil
			case "tr":
				row = nil
			case "tc":
				inCell = true
				cell.Reset()
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "sp":
				inShape--
				phType = ""
			case "t":
				inText = false
			case "p":
				if t.Name.Space != nsDrawing || inCell {
					if inCell {
						cell.WriteByte(' ')
					}
					continue
				}
				text := formats.CleanText(cur.String())
				cur.Reset()
				switch {
				case text == "" || skipPlaceholder[phType]:
				case phType == "title" || phType == "ctrTitle":
					titles = append(titles, text)
				default:
					out = append(out, para{kind: document.Paragraph, text: text})
				}
			case "tc":
				inCell = false
				row = append(row, formats.CleanText(cell.String()))
			case "tr":
				if strings.TrimSpace(strings.Join(row, "")) != "" {
					rows = append(rows, strings.Join(row, " | "))
				}
			case "tbl":
				if len(rows) > 0 {
					out = append(out, para{kind: document.Table, text: strings.Join(rows, "\n")})
				}
				rows = nil
			}
		case xml.CharData:
			if inText {
				if inCell {
					cell.Write(t)
				} else {
					cur.Write(t)
				}
			}
		}
	}
	return strings.Join(titles, " "), out, nil
}

const nsDrawing = "http://schemas.openxmlformats.org/drawingml/2006/main"

// skipPlaceholder are placeholders whose text is not content.
var skipPlaceholder = map[string]bool{"sldNum": true, "dt": true, "ftr": true, "hdr": true, "sldImg": true}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// slideOrder returns the relationship ids of the slides in
// presentation.xml's slide list, in order.
func slideOrder(b []byte) ([]string, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	var ids []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return ids, nil
		}
		if err != nil {
			return nil, err
		}
		if s, ok := tok.(xml.StartElement); ok && s.Name.Local == "sldId" {
			for _, a := range s.Attr {
				if a.Name.Local == "id" && strings.Contains(a.Name.Space, "relationships") {
					ids = append(ids, a.Value)
				}
			}
			if len(ids) > MaxSlides {
				return ids, nil
			}
		}
	}
}

// readRels reads the relationships of part (its _rels/NAME.rels): id to
// the target's part name, resolved against part's folder. External
// targets are left out.
func readRels(a *zipx.Archive, part string) (map[string]string, error) {
	name := path.Join(path.Dir(part), "_rels", path.Base(part)+".rels")
	b, err := a.Read(name)
	if err != nil || b == nil {
		return map[string]string{}, err
	}
	var rels struct {
		Rel []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
			Mode   string `xml:"TargetMode,attr"`
		} `xml:"Relationship"`
	}
	if err := xml.Unmarshal(b, &rels); err != nil {
		return nil, formats.Errorf(a.Source, formats.ErrCorrupt, "malformed %s: %w", name, err)
	}
	out := make(map[string]string, len(rels.Rel))
	for _, r := range rels.Rel {
		if r.Mode == "External" {
			continue
		}
		t := r.Target
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(t, "/")
		} else {
			t = path.Join(path.Dir(part), t)
		}
		out[r.ID] = t
	}
	return out, nil
}

// coreTitle is the title in docProps/core.xml, if any.
func coreTitle(a *zipx.Archive) string {
	b, err := a.Read("docProps/core.xml")
	if err != nil || b == nil {
		return ""
	}
	var core struct {
		Title string `xml:"title"`
	}
	if xml.Unmarshal(b, &core) != nil {
		return ""
	}
	return formats.CleanText(core.Title)
}

func hasText(bs []document.Block) bool {
	for _, b := range bs {
		if b.Kind != document.Heading {
			return true
		}
	}
	return false
}
