package html

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/internal/fixture"
)

func allText(d *document.Document) string {
	var b strings.Builder
	for _, bl := range d.Blocks {
		b.WriteString(bl.Text + "\n")
	}
	return b.String()
}

func headings(d *document.Document) []string {
	var out []string
	for _, b := range d.Blocks {
		if b.Kind == document.Heading {
			out = append(out, strings.Repeat("#", b.Level)+" "+b.Text)
		}
	}
	return out
}

func TestHandbookFixture(t *testing.T) {
	doc, err := Parse(context.Background(), "handbook.html", fixture.Read(t, "handbook.html"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Employee Handbook – Travel & Expenses | Globex Intranet" {
		t.Errorf("title %q", doc.Title)
	}
	text := allText(doc)
	for _, gone := range []string{"cookies", "Accept all", "Home", "Related pages", "Leave policy", "© 2025", "dataLayer", "font-family"} {
		if strings.Contains(text, gone) {
			t.Errorf("boilerplate %q kept:\n%s", gone, text)
		}
	}
	for _, kept := range []string{"Last updated 12 February 2025", "Tip: loyalty points may be kept", "Third: escalation"} {
		if !strings.Contains(text, kept) {
			t.Errorf("content %q lost", kept)
		}
	}
	want := []string{"# Travel & Expenses Policy", "## 1. Booking Travel", "### 1.1 Hotels", "## 2. Expense Claims", "## 3. Late Submission Penalties"}
	if got := headings(doc); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("headings = %q, want %q", got, want)
	}
	var table string
	for _, b := range doc.Blocks {
		if b.Kind == document.Table {
			table = b.Text
		}
		if b.Page != 0 {
			t.Errorf("HTML block with page %d", b.Page)
		}
	}
	if table != "Category | Daily limit | Receipt required?\nMeals | €60 | Yes, above €25\nTaxi | €80 | Always\nMileage | €0.30 / km | Log sheet" {
		t.Errorf("table = %q", table)
	}
}

func TestPandocFixture(t *testing.T) {
	doc, err := Parse(context.Background(), "policy_pandoc.html", fixture.Read(t, "policy_pandoc.html"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"# Information Security Policy", "## 1. Purpose", "## 2. Password Requirements", "### 2.1 Exceptions",
		"## 3. Data Classification", "## Incident Response", "## 5. Late Payment of Security Fines",
		"#### 5.1.1 Deeply nested heading with code and a link",
	}
	// The title block header is page furniture; the heading inside the
	// blockquote is quoted text, not a section.
	if got := headings(doc); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("headings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	text := allText(doc)
	for _, kept := range []string{"Quoted heading inside a blockquote", "# Not a heading: this is inside a fenced code block", "charged 1.5% per month"} {
		if !strings.Contains(text, kept) {
			t.Errorf("content %q lost", kept)
		}
	}
}

func TestBoilerplateRules(t *testing.T) {
	page := `<!doctype html><html><head><title> Rules  page </title><meta charset="utf-8"></head><body>
<div role="navigation">Menu A</div>
<div class="cc-window gdpr-consent">Consent text</div>
<div id="onetrust-banner">Banner text</div>
<p hidden>Hidden attr</p>
<p style="display: none">Hidden style</p>
<p aria-hidden="true">Hidden aria</p>
<div class="page-sidebar">Side stuff</div>
<form><label>Search</label><input value="q"></form>
<header>Site header</header>
<main>
  <header><h1>Article <span hidden>junk</span>Title</h1><p class="byline">By Jane</p></header>
  <p>Body <b>bold</b> and <a href="#">link</a>.<br>Next line.</p>
  <ul><li>One</li><li>Two <h2>not a heading</h2></li></ul>
  <section><h3>Sub</h3><div>Div text<div>nested div</div></div></section>
  <table><caption>Prices</caption><tr><th>A</th><th>B</th></tr><tr><td>1</td><td><table><tr><td>x</td><td>y</td></tr></table></td></tr></table>
  <footer>Article footer kept</footer>
  <script>var x = "script";</script><noscript>enable js</noscript>
</main>
<footer>Site footer</footer>
</body></html>`
	doc, err := Parse(context.Background(), "rules.html", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Rules page" {
		t.Errorf("title %q", doc.Title)
	}
	H, P, T := document.Heading, document.Paragraph, document.Table
	want := []document.Block{
		{Kind: H, Level: 1, Text: "Article Title"},
		{Kind: P, Text: "By Jane"},
		{Kind: P, Text: "Body bold and link. Next line."},
		{Kind: P, Text: "One"},
		{Kind: P, Text: "Two"},
		{Kind: P, Text: "not a heading"},
		{Kind: H, Level: 3, Text: "Sub"},
		{Kind: P, Text: "Div text"},
		{Kind: P, Text: "nested div"},
		{Kind: T, Text: "Prices\nA | B\n1 | x y"},
		{Kind: P, Text: "Article footer kept"},
	}
	if len(doc.Blocks) != len(want) {
		t.Fatalf("blocks:\n%s", allText(doc))
	}
	for i := range want {
		if doc.Blocks[i] != want[i] {
			t.Errorf("block %d = %+v, want %+v", i, doc.Blocks[i], want[i])
		}
	}
}

func TestNoMainUsesBodyAndCharset(t *testing.T) {
	// windows-1252 declared in a meta tag: 0x80 is the euro sign.
	page := []byte("<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"></head><body><nav>x</nav><h2>Pr\xe9avis</h2><p>Prix: 30 \x80</p></body></html>")
	doc, err := Parse(context.Background(), "legacy.html", page)
	if err != nil {
		t.Fatal(err)
	}
	if got := allText(doc); got != "Préavis\nPrix: 30 €\n" {
		t.Errorf("text = %q", got)
	}
}

func TestErrors(t *testing.T) {
	for name, page := range map[string]string{
		"empty":       "",
		"only chrome": "<html><body><nav>Home</nav><script>x()</script><footer>(c)</footer></body></html>",
	} {
		_, err := Parse(context.Background(), "e.html", []byte(page))
		if !errors.Is(err, formats.ErrEmpty) {
			t.Errorf("%s: err = %v, want ErrEmpty", name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("<html><body><main><h1>T</h1><p>x</p></main></body></html>"))
	f.Add([]byte("<table><tr><td><table><tr><td>a</td></tr></table></td></tr></table>"))
	f.Add([]byte("<div hidden><h1>x</h1></div><article><header><h2>y</h2></header></article>"))
	f.Add([]byte("<meta charset=shift_jis><p>\x82\xa0</p>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(context.Background(), "f.html", data)
		if err != nil {
			if !errors.Is(err, formats.ErrEmpty) && !errors.Is(err, formats.ErrCorrupt) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		for _, b := range doc.Blocks {
			if b.Text == "" || b.Page != 0 || (b.Kind == document.Heading) != (b.Level > 0) {
				t.Fatalf("bad block %+v", b)
			}
		}
	})
}
