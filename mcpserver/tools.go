package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/threads"
)

// AskInput is the arguments of the ask tool.
type AskInput struct {
	Question string `json:"question" jsonschema:"the question, in plain words, e.g. What are the late payment penalties?"`
	Thread   string `json:"thread,omitempty" jsonschema:"continue this conversation: pass the thread of an earlier ask so that a follow-up (What about refunds?) is understood from its earlier questions; omit for a new conversation"`
}

// AskOutput is the structured result of the ask tool.
type AskOutput struct {
	// Answered is false when DocMind refused: Answer is then the fallback
	// message.
	Answered bool   `json:"answered" jsonschema:"true when the documents supported a confident answer; false when the answer is the fallback message"`
	Answer   string `json:"answer" jsonschema:"the cited answer, or the fallback message when answered is false"`
	// Query is the standalone question that was run (a follow-up
	// rewritten from its thread).
	Query     string     `json:"query" jsonschema:"the standalone question that was answered"`
	Verdict   Verdict    `json:"verdict" jsonschema:"the judge's verdict on the answer"`
	Citations []Citation `json:"citations" jsonschema:"the passages the answer rests on"`
	// Closest, on a refusal, are the passages retrieval found that best
	// meet the question (schema.State.ClosestPassages).
	Closest []Citation `json:"closest_passages,omitempty" jsonschema:"when answered is false: the passages retrieval found that best meet the question, NOT verified by the judge; where the user may look"`
	RunID   string     `json:"run_id" jsonschema:"the run in DocMind's run ledger (docmind runs show RUN)"`
	Thread  string     `json:"thread" jsonschema:"the conversation: pass it as thread to ask a follow-up"`
}

// Verdict is the judge's assessment of an answer.
type Verdict struct {
	Grounded   bool    `json:"grounded" jsonschema:"true when every claim of the answer is supported by the documents"`
	Confidence float64 `json:"confidence" jsonschema:"the judge's confidence that the answer is correct, 0 to 1"`
	Reasoning  string  `json:"reasoning" jsonschema:"why the judge decided so"`
	// Findings are the rules that decided (see docmind rules).
	Findings []schema.Finding `json:"findings,omitempty" jsonschema:"the rules that decided: each rule's ID, the claim it concerns and what it found"`
}

// Citation is a passage an answer rests on.
type Citation struct {
	SectionID string `json:"section_id,omitempty" jsonschema:"the section's id, for get_section"`
	Title     string `json:"title" jsonschema:"the section's heading"`
	Document  string `json:"document" jsonschema:"the document's path"`
	Page      int    `json:"page" jsonschema:"the page the passage is on (its index in the file, 1-based), 0 when unknown"`
	PageRef   string `json:"page_ref" jsonschema:"the page as the answer cites it: the printed page label, with the index in the file beside it where they differ"`
	Quote     string `json:"quote,omitempty" jsonschema:"the sentence of the document that supports the answer"`
	// Excerpt is, for a refusal's closest passage, what to read of it
	// (schema.Passage.Excerpt).
	Excerpt string `json:"excerpt,omitempty" jsonschema:"for a closest passage of a refusal: its sentences that share the most of the question's words, NOT verified"`
}

// SearchInput is the arguments of the search tool.
type SearchInput struct {
	Query string `json:"query" jsonschema:"words to look for, e.g. late fee or termination notice"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many sections to return, 1 to 50 (default 5)"`
}

// SearchOutput is the structured result of the search tool.
type SearchOutput struct {
	Results []SearchResult `json:"results" jsonschema:"the sections found, best first"`
}

// SectionRef says which section a result is and where it is.
type SectionRef struct {
	ID       string `json:"id" jsonschema:"the section's id, for get_section"`
	Title    string `json:"title" jsonschema:"the section's heading"`
	Document string `json:"document" jsonschema:"the document's path"`
	Pages    string `json:"pages" jsonschema:"where the section is, e.g. page 8 or pages 8–9"`
	Page     int    `json:"page" jsonschema:"the first page, 0 when unknown"`
	PageEnd  int    `json:"page_end,omitempty" jsonschema:"the last page when the section spans pages"`
}

// SearchResult is one section found by search.
type SearchResult struct {
	SectionRef
	Score     float64 `json:"score" jsonschema:"the BM25 score"`
	Relevance float64 `json:"relevance" jsonschema:"the score normalised to 0-1"`
	Snippet   string  `json:"snippet" jsonschema:"the start of the section's text"`
}

// GetSectionInput is the arguments of the get_section tool.
type GetSectionInput struct {
	ID string `json:"id" jsonschema:"a section id from search results or ask citations"`
}

// SectionOutput is the structured result of the get_section tool.
type SectionOutput struct {
	SectionRef
	Text string `json:"text" jsonschema:"the section's full text"`
}

const askDescription = `Answer a question from the indexed documents, with citations (document, page and the supporting quote).
Use it when the user asks something the documents should answer (terms, figures, dates, obligations). The answer is checked by a judge against the cited passages before it is returned; when the documents do not support a confident answer the tool returns answered=false and the message "Unable to provide a confident response. Please rephrase your query." — tell the user that rather than answering from your own knowledge, or use search to see what the documents hold.
Pass the thread of an earlier answer to ask a follow-up in the same conversation. Slower than search (it retrieves, generates and judges).`

const searchDescription = `Find the sections of the indexed documents that mention the given words, ranked by BM25 relevance, with title, document, pages and score. No answer is generated and nothing is judged.
Use it to explore what the documents cover, to find where something is stated, or after ask refused to answer; read a section in full with get_section.`

const getSectionDescription = `Read one section of the indexed documents in full: its text, title, document and pages. The id comes from search results or from the citations of ask.`

func (s *server) addTools(srv *mcp.Server) {
	// every tool reads only the indexed documents
	closedWorld := false
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closedWorld}
	mcp.AddTool(srv, &mcp.Tool{Name: "ask", Title: "Ask the documents", Description: askDescription,
		// ask records a run in the ledger but changes no document
		Annotations: &mcp.ToolAnnotations{Title: "Ask the documents", ReadOnlyHint: true, OpenWorldHint: &closedWorld}}, s.ask)
	mcp.AddTool(srv, &mcp.Tool{Name: "search", Title: "Search the documents", Description: searchDescription, Annotations: readOnly}, s.search)
	mcp.AddTool(srv, &mcp.Tool{Name: "get_section", Title: "Read a section", Description: getSectionDescription, Annotations: readOnly}, s.getSection)
}

// ask runs the judged pipeline through the run ledger.
func (s *server) ask(ctx context.Context, _ *mcp.CallToolRequest, in AskInput) (*mcp.CallToolResult, AskOutput, error) {
	question := strings.TrimSpace(in.Question)
	if question == "" {
		return nil, AskOutput{}, toolError("question is empty: pass the question to answer, e.g. What are the late payment penalties?")
	}
	if len(question) > MaxQuestionBytes {
		return nil, AskOutput{}, toolError("question too long: at most %d KiB", MaxQuestionBytes>>10)
	}
	thread := strings.TrimSpace(in.Thread)
	if thread == "" {
		thread = "mcp-" + threads.NewRunID()[:8]
	} else if !threads.ValidID(thread) {
		return nil, AskOutput{}, toolError("invalid thread %q: use letters, digits, '.', '_', ':' and '-' (at most 128)", thread)
	}
	if s.cfg.RunSlot != nil {
		runCtx, release, err := s.cfg.RunSlot(ctx)
		if err != nil {
			return nil, AskOutput{}, errorLine(err)
		}
		defer release()
		ctx = runCtx
	}
	if s.cfg.RunTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, s.cfg.RunTimeout,
			fmt.Errorf("the run did not finish within %s", s.cfg.RunTimeout))
		defer cancel()
	}
	res, err := s.cfg.Threads.Ask(ctx, thread, question)
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
			err = cause
		}
		return nil, AskOutput{}, errorLine(err)
	}
	out := askOutput(res)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: askText(out)}}}, out, nil
}

// closest are a refused run's closest passages, as citations without
// quotes: where to look, not verified.
func closest(st *schema.State) []Citation {
	var out []Citation
	for _, p := range st.ClosestPassages {
		out = append(out, Citation{SectionID: p.SectionID, Title: p.Title, Document: p.Source, Page: p.Page, PageRef: p.PageRef, Excerpt: p.Excerpt})
	}
	return out
}

// askOutput is the structured form of a finished run.
func askOutput(res *threads.Result) AskOutput {
	st := res.State
	out := AskOutput{
		Answered:  st.Answered(),
		Answer:    st.Answer(),
		Query:     res.Run.Query,
		RunID:     res.Run.ID,
		Thread:    res.Run.Thread,
		Citations: []Citation{},
	}
	if out.Answer == "" {
		out.Answer = res.Answer()
	}
	if v := st.JudgeVerdict; v != nil {
		out.Verdict = Verdict{
			Grounded:   !v.IsHallucinated && v.ShouldReturn,
			Confidence: v.ConfidenceScore,
			Reasoning:  v.Summary(),
			Findings:   v.Findings,
		}
	}
	if out.Answered {
		out.Citations = citations(st)
	} else {
		out.Closest = closest(st)
	}
	return out
}

// citations are the sections the answer rests on (every page it cites
// among them, schema.State.CitedSections), one per section and supporting
// quote of the judge's evidence.
func citations(st *schema.State) []Citation {
	out := []Citation{}
	for _, sec := range st.CitedSections() {
		c := Citation{SectionID: sec.ID, Title: sec.Title, Document: sec.Source, Page: sec.Page, PageRef: sec.SourceRef()}
		quoted := false
		seen := map[string]bool{}
		if v := st.JudgeVerdict; v != nil {
			for _, cl := range v.Claims {
				e := cl.Evidence
				if !cl.Supported || e == nil || e.SectionID != sec.ID || sec.ID == "" || seen[e.Quote] {
					continue
				}
				seen[e.Quote] = true
				q := c
				q.Quote = e.Quote
				out = append(out, q)
				quoted = true
			}
		}
		if !quoted {
			out = append(out, c)
		}
	}
	return out
}

// askText is the answer as an assistant reads it.
func askText(out AskOutput) string {
	var b strings.Builder
	b.WriteString(out.Answer)
	b.WriteString("\n")
	if len(out.Citations) > 0 {
		b.WriteString("\nSources:\n")
		for i, c := range out.Citations {
			ref := c.PageRef
			if ref == "" {
				ref = pageText(c.Page)
			}
			fmt.Fprintf(&b, "  [%d] %s — %s, %s", i+1, c.Title, c.Document, ref)
			if c.Quote != "" {
				fmt.Fprintf(&b, ": %q", c.Quote)
			}
			b.WriteString("\n")
		}
	}
	status := "grounded"
	if !out.Verdict.Grounded {
		status = "not grounded"
	}
	fmt.Fprintf(&b, "\nVerdict: %s (confidence %.2f) — %s\n", status, out.Verdict.Confidence, out.Verdict.Reasoning)
	if !out.Answered {
		b.WriteString("The documents did not support a confident answer: tell the user so, or use search to see what the documents say.\n")
		if len(out.Closest) > 0 {
			b.WriteString("Closest passages found (not verified):\n")
			for i, c := range out.Closest {
				fmt.Fprintf(&b, "  [%d] %s — %s, %s\n", i+1, c.Title, c.Document, c.PageRef)
				if c.Excerpt != "" {
					fmt.Fprintf(&b, "      %q\n", c.Excerpt)
				}
			}
		}
	}
	fmt.Fprintf(&b, "Run %s in thread %s (pass thread %q to ask a follow-up).\n", out.RunID, out.Thread, out.Thread)
	return b.String()
}

func pageText(page int) string {
	if page <= 0 {
		return "page n/a"
	}
	return fmt.Sprintf("page %d", page)
}

// search ranks sections by BM25.
func (s *server) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	query := strings.TrimSpace(in.Query)
	if query == "" {
		return nil, SearchOutput{}, toolError("query is empty: pass the words to look for, e.g. late fee")
	}
	if len(query) > MaxQuestionBytes {
		return nil, SearchOutput{}, toolError("query too long: at most %d KiB", MaxQuestionBytes>>10)
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = DefaultSearchLimit
	case limit < 0 || limit > MaxSearchLimit:
		return nil, SearchOutput{}, toolError("limit must be between 1 and %d, got %d", MaxSearchLimit, in.Limit)
	}
	hits, err := s.cfg.Index.Search(ctx, query, limit)
	if err != nil {
		return nil, SearchOutput{}, errorLine(err)
	}
	out := SearchOutput{Results: make([]SearchResult, 0, len(hits))}
	var b strings.Builder
	for i, h := range hits {
		sec := h.Section
		r := SearchResult{SectionRef: s.ref(sec), Score: h.Score, Relevance: sec.RelevanceScore, Snippet: snippet(sec.Content, 200)}
		out.Results = append(out.Results, r)
		fmt.Fprintf(&b, "[%d] %s — %s, %s (score %.2f, id %s)\n    %s\n", i+1, r.Title, r.Document, r.Pages, r.Score, r.ID, r.Snippet)
	}
	if len(hits) == 0 {
		fmt.Fprintf(&b, "No section matches %q.\n", query)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, out, nil
}

// snippet is the start of text on one line, at most n runes.
func snippet(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > n {
		return strings.TrimSpace(string(r[:n-1])) + "…"
	}
	return text
}

// getSection reads one section by id.
func (s *server) getSection(ctx context.Context, _ *mcp.CallToolRequest, in GetSectionInput) (*mcp.CallToolResult, SectionOutput, error) {
	id := strings.TrimSpace(in.ID)
	if id == "" {
		return nil, SectionOutput{}, toolError("id is empty: pass a section id from search results or ask citations")
	}
	sec, ok, err := s.cfg.Index.Section(ctx, id)
	if err != nil {
		return nil, SectionOutput{}, errorLine(err)
	}
	if !ok {
		return nil, SectionOutput{}, toolError("no section with id %q in the index: take ids from search results or ask citations", id)
	}
	out := SectionOutput{SectionRef: s.ref(sec), Text: sec.Content}
	text := fmt.Sprintf("%s — %s, %s\n\n%s\n", out.Title, out.Document, out.Pages, out.Text)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// ref says which section sec is and where.
func (s *server) ref(sec schema.Section) SectionRef {
	return SectionRef{ID: sec.ID, Title: sec.Title, Document: s.cfg.Display(sec.Source), Pages: sec.PageRef(), Page: sec.Page, PageEnd: sec.PageEnd}
}
