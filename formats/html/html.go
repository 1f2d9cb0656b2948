// Package html extracts the readable content of an HTML page with
// golang.org/x/net/html.
//
// Boilerplate removed: script, style, template and other non-text
// elements; nav, aside, forms and their controls; header and footer except
// inside article or main (there they belong to the content); dialogs; hidden
// elements (hidden attribute, aria-hidden="true", inline display:none or
// visibility:hidden); ARIA landmarks that are not content (navigation,
// banner, contentinfo, complementary, search, dialog); and elements whose
// id or class names a cookie/consent banner, sidebar, breadcrumb, share
// bar, newsletter box, modal or advert.
//
// When the page has a <main> (or role="main") element only its content is
// kept; otherwise a single <article> is used; otherwise the whole body.
// h1-h6 become Heading blocks (Level 1-6) except inside blockquote, lists
// and tables, where they are ordinary text; tables become Table blocks
// (one row a line, cells joined by " | "); paragraphs, list items, pre
// blocks and text in generic containers become Paragraph blocks. The
// document title is the <title> text. HTML has no pages: every block has
// Page 0 and Document.Pages is 0.
package html

import (
	"bytes"
	"context"
	"regexp"
	"strings"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// Parse extracts headings, paragraphs and tables from an HTML page. The
// character set is taken from a BOM or <meta charset>, defaulting to UTF-8
// (windows-1252 when the bytes are not valid UTF-8). It returns an error
// matching formats.ErrEmpty when no content text remains.
func Parse(ctx context.Context, source string, data []byte) (doc *document.Document, err error) {
	defer formats.Recover(source, &err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	enc, _, _ := charset.DetermineEncoding(data, "text/html")
	if dec, derr := enc.NewDecoder().Bytes(data); derr == nil {
		data = dec
	}
	root, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "cannot parse HTML: %w", err)
	}
	w := &walker{}
	title := findTitle(root)
	content := pickContent(root)
	if content != nil {
		w.walk(content, state{})
	}
	w.flush()
	if len(w.blocks) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "HTML page has no content text")
	}
	return &document.Document{Source: source, Format: formats.HTML, Title: title, Blocks: w.blocks}, nil
}

func findTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		return collapse(textOf(n))
	}
	if n.Type == html.ElementNode && (n.DataAtom == atom.Body || n.DataAtom == atom.Svg) {
		return ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := findTitle(c); t != "" {
			return t
		}
	}
	return ""
}

// pickContent returns <main>, else the only <article>, else <body>.
func pickContent(root *html.Node) *html.Node {
	var mains, articles []*html.Node
	var body *html.Node
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch {
			case n.DataAtom == atom.Main || getAttr(n, "role") == "main":
				if !boilerplate(n, state{}) {
					mains = append(mains, n)
				}
			case n.DataAtom == atom.Article:
				articles = append(articles, n)
			case n.DataAtom == atom.Body:
				body = n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(root)
	switch {
	case len(mains) > 0 && hasText(mains[0]):
		return mains[0]
	case len(articles) == 1 && hasText(articles[0]):
		return articles[0]
	case body != nil:
		return body
	}
	return root
}

func hasText(n *html.Node) bool { return strings.TrimSpace(textOf(n)) != "" }

// state is what the walk knows about the ancestors of a node.
type state struct {
	inSection bool // inside article or main: header/footer are content
	inQuote   bool // inside blockquote, list or table: headings are text
}

var skipAlways = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Canvas: true, atom.Iframe: true,
	atom.Object: true, atom.Embed: true, atom.Nav: true, atom.Aside: true,
	atom.Form: true, atom.Button: true, atom.Select: true, atom.Input: true,
	atom.Textarea: true, atom.Dialog: true, atom.Head: true, atom.Menu: true,
	atom.Audio: true, atom.Video: true, atom.Picture: true, atom.Img: true,
}

var skipRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"search": true, "dialog": true, "alertdialog": true, "menu": true, "menubar": true,
}

// boilerWords are id/class tokens (split at spaces, '-' and '_') that mark
// page furniture.
var boilerWords = map[string]bool{
	"cookie": true, "cookies": true, "consent": true, "gdpr": true, "cookiebanner": true,
	"onetrust": true, "breadcrumb": true, "breadcrumbs": true, "navbar": true,
	"sidebar": true, "advert": true, "advertisement": true, "ads": true, "ad": true,
	"popup": true, "modal": true, "newsletter": true, "share": true, "sharing": true,
	"social": true, "skip": true, "skiplink": true, "toolbar": true, "masthead": true,
}

var hiddenStyle = regexp.MustCompile(`(?i)(display\s*:\s*none|visibility\s*:\s*hidden)`)

func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r == ' ' || r == '-' || r == '_' || r == '\t' || r == '\n'
	})
}

// boilerplate reports whether element n and its subtree are page furniture.
func boilerplate(n *html.Node, st state) bool {
	if skipAlways[n.DataAtom] {
		return true
	}
	if (n.DataAtom == atom.Header || n.DataAtom == atom.Footer) && !st.inSection {
		return true
	}
	if _, ok := attrOK(n, "hidden"); ok {
		return true
	}
	if strings.EqualFold(getAttr(n, "aria-hidden"), "true") || hiddenStyle.MatchString(getAttr(n, "style")) {
		return true
	}
	if skipRoles[strings.ToLower(getAttr(n, "role"))] {
		return true
	}
	for _, t := range tokens(getAttr(n, "id") + " " + getAttr(n, "class")) {
		if boilerWords[t] {
			return true
		}
	}
	return false
}

// blockAtoms are elements that break the flow of text into a new block.
var blockAtoms = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Blockquote: true, atom.Details: true,
	atom.Dd: true, atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true,
	atom.Figcaption: true, atom.Figure: true, atom.Footer: true, atom.Header: true,
	atom.Hr: true, atom.Li: true, atom.Main: true, atom.Ol: true, atom.P: true,
	atom.Pre: true, atom.Section: true, atom.Ul: true, atom.Summary: true,
	atom.Body: true, atom.Html: true, atom.Caption: true, atom.Legend: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
}

var headingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

type walker struct {
	blocks []document.Block
	buf    strings.Builder
}

func (w *walker) flush() {
	if t := collapse(w.buf.String()); t != "" {
		w.blocks = append(w.blocks, document.Block{Kind: document.Paragraph, Text: t})
	}
	w.buf.Reset()
}

func (w *walker) walk(n *html.Node, st state) {
	switch n.Type {
	case html.TextNode:
		w.buf.WriteString(n.Data)
		return
	case html.ElementNode:
	default:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c, st)
		}
		return
	}
	if boilerplate(n, st) {
		return
	}
	switch n.DataAtom {
	case atom.Br:
		w.buf.WriteString("\n")
		return
	case atom.Table:
		w.flush()
		if t := tableText(n, st); t != "" {
			w.blocks = append(w.blocks, document.Block{Kind: document.Table, Text: t})
		}
		return
	case atom.Article, atom.Main:
		st.inSection = true
	case atom.Blockquote, atom.Li, atom.Dd:
		st.inQuote = true
	}
	if lvl := headingLevel[n.DataAtom]; lvl > 0 && !st.inQuote {
		w.flush()
		if t := visibleText(n, st); t != "" {
			w.blocks = append(w.blocks, document.Block{Kind: document.Heading, Level: lvl, Text: t})
		}
		return
	}
	block := blockAtoms[n.DataAtom]
	if block {
		w.flush()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, st)
	}
	if block {
		w.flush()
	} else if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
		w.buf.WriteString(" ")
	}
}

// visibleText is the text of n without its boilerplate descendants (for
// example a hidden anchor inside a heading).
func visibleText(n *html.Node, st state) string {
	var b strings.Builder
	var visit func(*html.Node)
	visit = func(m *html.Node) {
		if m.Type == html.TextNode {
			b.WriteString(m.Data)
			return
		}
		if m.Type == html.ElementNode && m != n && boilerplate(m, st) {
			return
		}
		if m.Type == html.ElementNode && (m.DataAtom == atom.Br || m.DataAtom == atom.Td || m.DataAtom == atom.Th) {
			b.WriteString(" ")
		}
		for c := m.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(n)
	return collapse(b.String())
}

// tableText renders a table one row a line, cells joined by " | ". Nested
// tables are flattened into their cell.
func tableText(t *html.Node, st state) string {
	var rows []string
	var visitRows func(*html.Node)
	visitRows = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || boilerplate(c, st) {
				continue
			}
			switch c.DataAtom {
			case atom.Tr:
				var cells []string
				for td := c.FirstChild; td != nil; td = td.NextSibling {
					if td.Type == html.ElementNode && (td.DataAtom == atom.Td || td.DataAtom == atom.Th) && !boilerplate(td, st) {
						cells = append(cells, visibleText(td, st))
					}
				}
				if strings.TrimSpace(strings.Join(cells, "")) != "" {
					rows = append(rows, strings.Join(cells, " | "))
				}
			case atom.Thead, atom.Tbody, atom.Tfoot:
				visitRows(c)
			case atom.Caption:
				if cap := collapse(textOf(c)); cap != "" {
					rows = append(rows, cap)
				}
			}
		}
	}
	visitRows(t)
	return strings.Join(rows, "\n")
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var visit func(*html.Node)
	visit = func(m *html.Node) {
		switch {
		case m.Type == html.TextNode:
			b.WriteString(m.Data)
		case m.Type == html.ElementNode && (m.DataAtom == atom.Script || m.DataAtom == atom.Style):
			return
		case m.Type == html.ElementNode && (m.DataAtom == atom.Br || m.DataAtom == atom.Td || m.DataAtom == atom.Th):
			b.WriteString(" ")
		}
		for c := m.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(n)
	return b.String()
}

func collapse(s string) string { return formats.CleanText(s) }

func getAttr(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}
