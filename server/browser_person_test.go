package server

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The parts of TestBrowser about what a person reads: the answer as
// Markdown with clickable citation markers, a refusal's closest passages,
// a held draft's sources and the first screen of an empty index.

// checkAnswerMarkdown: the answer's citation marker is a link that opens
// the viewer at the cited section; Markdown lists and tables render as
// lists and tables, and HTML in an answer stays text.
func checkAnswerMarkdown(b *browser) {
	b.t.Helper()
	marker := `#transcript .turn:last-of-type .answer a.cite-marker`
	if got := b.text(marker); got != "Late Payment Penalties, page 8" {
		b.t.Fatalf("citation marker link %q, want the answer's (See Late Payment Penalties, page 8) as a link", got)
	}
	b.do("open the citation marker", chromedp.Click(chromedp.CSS(marker)), chromedp.WaitVisible(chromedp.CSS("#viewer mark")))
	if title := b.text("#viewer-title"); !strings.Contains(title, "Late Payment Penalties") {
		b.t.Fatalf("the marker opened %q", title)
	}
	b.do("close the viewer", chromedp.Click(chromedp.ID("viewer-close")), chromedp.WaitNotVisible(chromedp.ID("viewer")))
	got := eval[map[string]any](b, "render Markdown", `(() => {
		const box = renderMarkdown("Fees:\n- one **1.5%**\n- two\n\n| Year | Revenue |\n|---|---|\n| 2023 | 49,954 |\n\n<img src=x onerror=\"window.injected=1\"><script>window.injected=2</script>", [], "answer");
		document.body.append(box);
		const r = {items: box.querySelectorAll("ul li").length, strong: (box.querySelector("li strong") || {}).textContent || "",
			th: Array.from(box.querySelectorAll("th"), (e) => e.textContent).join(","), td: Array.from(box.querySelectorAll("td"), (e) => e.textContent).join(","),
			html: box.querySelectorAll("img, script").length, text: box.textContent.includes("<img src=x")};
		box.remove();
		return r;
	})()`)
	if got["items"] != float64(2) || got["strong"] != "1.5%" || got["th"] != "Year,Revenue" || got["td"] != "2023,49,954" || got["html"] != float64(0) || got["text"] != true {
		b.t.Fatalf("Markdown rendering %v: want a 2-item list with bold, a table with its header, and HTML kept as text", got)
	}
}

// reRuleID matches a rule's ID ("period.unstated").
var reRuleID = regexp.MustCompile(`^[a-z]+\.[a-z]+(?:-[a-z]+)*$`)

// checkRefusalNamesClosestPassages: a refusal lists the closest passages
// found, as not verified, each opening the viewer.
func checkRefusalNamesClosestPassages(b *browser) {
	b.t.Helper()
	b.askQuestion("How many days notice is needed to terminate for convenience in 2019?", false)
	if got := b.text("#transcript .turn:last-of-type .answer.fallback"); !strings.HasPrefix(got, "Unable to provide") {
		b.t.Fatalf("answer %q, want the fallback", got)
	}
	// why: one line per rule that decided, its ID first
	rules := eval[[]string](b, "refusal rules", `[...document.querySelectorAll("#transcript .turn:last-of-type .refusal-rules li")].map(li => li.querySelector("code.rule").textContent + "|" + li.textContent)`)
	if len(rules) == 0 {
		b.t.Fatal("the refusal does not say which rules refused it")
	}
	seen := map[string]bool{}
	for _, r := range rules {
		rule, line, _ := strings.Cut(r, "|")
		if !reRuleID.MatchString(rule) || seen[rule] || !strings.HasPrefix(line, rule+" ") || len(line) <= len(rule)+1 {
			b.t.Fatalf("refusal lines %q: want one line per rule, its ID and what it found", rules)
		}
		seen[rule] = true
	}
	head := b.text("#transcript .turn:last-of-type h4:last-of-type")
	links := eval[int](b, "closest links", `document.querySelectorAll("#transcript .turn:last-of-type .citations.closest a.cite").length`)
	if !strings.Contains(head, "not verified") || links == 0 {
		b.t.Fatalf("heading %q, %d links: want the closest passages labelled not verified", head, links)
	}
	// each shows what to read of it: the sentences that meet the question
	excerpts := eval[[]string](b, "closest excerpts", `[...document.querySelectorAll("#transcript .turn:last-of-type .citations.closest li")].map(li => (li.querySelector("blockquote.excerpt") || {}).textContent || "")`)
	if len(excerpts) != links || !slices.ContainsFunc(excerpts, func(e string) bool { return strings.Contains(strings.ToLower(e), "terminat") }) {
		b.t.Fatalf("closest passages' excerpts %q: want one under each passage, one about terminating", excerpts)
	}
	eval[bool](b, "show the closest passages", `(document.querySelector("#transcript .turn:last-of-type .citations.closest").scrollIntoView({block: "center"}), true)`)
	b.screenshot("browser-4b-refusal-closest-passages")
}

// checkReviewDraftSources: a draft held for review shows its source
// links, in the review queue and in the conversation; the test then
// rejects it, leaving the queue empty. The review box is still checked.
func checkReviewDraftSources(b *browser) {
	b.t.Helper()
	b.do("hold a draft with sources",
		chromedp.SetValue(chromedp.ID("question"), "How many days notice is needed to terminate for convenience in 2019?"),
		chromedp.SendKeys(chromedp.ID("question"), "\r"),
		chromedp.WaitVisible(chromedp.CSS("#review .review-item .review-sources a.cite")),
	)
	if n := eval[int](b, "held turn links", `document.querySelectorAll("#transcript .turn:last-of-type .review-sources a.cite").length`); n == 0 {
		b.t.Fatal("the held draft shows no source links in the conversation")
	}
	b.screenshot("browser-6b-review-draft-sources")
	b.do("reject it",
		chromedp.Click(chromedp.CSS("#review .review-item button.reject")),
		until(`document.querySelectorAll("#review .review-item").length === 0`),
	)
}

// checkEmptyIndexFirstScreen: with no documents the page says how to add
// them; with documents it does not.
func checkEmptyIndexFirstScreen(t *testing.T, b *browser) {
	t.Helper()
	if eval[bool](b, "welcome hidden", `!document.getElementById("welcome").hidden`) {
		t.Fatal("the first screen for an empty index shows although there are documents")
	}
	ix, _ := freshIndex(t)
	ts, s := newServerOn(t, ix, nil)
	defer s.Close()
	b.do("open the page over an empty index", chromedp.Navigate(ts.URL+"/"),
		until(`!document.getElementById("welcome").hidden`))
	if got := b.text("#welcome"); !strings.Contains(got, "No documents yet") || !strings.Contains(got, "docmind ingest") {
		t.Fatalf("the empty index's first screen says %q", got)
	}
	b.screenshot("browser-10-empty-index")
}
