package schema

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/docmind/docmind/textproc"
)

// FallbackMessage is the exact text returned when the judge does not accept
// an answer.
const FallbackMessage = "Unable to provide a confident response. Please rephrase your query."

// Node names, as recorded in State.NodeHistory.
const (
	NodeDecompose = "decompose"
	NodeRetrieve  = "retrieve"
	NodeGenerate  = "generate"
	NodeJudge     = "judge"
	NodeOutput    = "output"
)

// Decomposition is the structured reading of a question.
type Decomposition struct {
	// Intent is a short label such as "definition", "procedure",
	// "amount", "deadline", "comparison", "yes_no" or "general".
	Intent string `json:"intent"`
	// SubQueries are the self-contained questions a multi-part question
	// splits into; a single question yields itself.
	SubQueries []string `json:"sub_queries"`
	// Entities are names, defined terms, quoted phrases, numbers, money and
	// percentages found in the question.
	Entities []string `json:"entities"`
	// Constraints are conditions that narrow the answer ("for enterprise
	// clients", "after termination").
	Constraints []string `json:"constraints"`
	// Temporals are dates and durations ("30 days", "2024-01-01").
	Temporals []string `json:"temporals"`
	// KeyTerms are the content words an answer must address. They are not
	// part of the seed contract and are omitted from JSON when empty.
	KeyTerms []string `json:"key_terms,omitempty"`
	// SearchTerms are words a passage that answers is likely to use where
	// the question's own words differ: synonyms and the documents' formal
	// terms ("terminate" for "cancel"). Only a model gives them;
	// retrieval searches with them beside the question, so that a
	// paraphrased question still finds its passage. Omitted when empty.
	SearchTerms []string `json:"search_terms,omitempty"`
	// Fallback is set when this is not the decomposition the model gave:
	// it says why the model's was replaced (for example "the model's
	// reply could not be parsed after a repair attempt: …") and by what.
	Fallback string `json:"fallback,omitempty"`
}

// Section is one retrievable piece of a document: a heading's text, or a
// chunk of it.
type Section struct {
	// ID is stable across runs for the same source, heading path and chunk.
	ID string `json:"id,omitempty"`
	// Title is the heading the text sits under.
	Title string `json:"title"`
	// Path is the heading path, outermost first, ending with the section's
	// own heading as written (with any section number); it may start with
	// the document's title. Retrievers may match it; citations use Title.
	Path    []string `json:"path,omitempty"`
	Content string   `json:"content"`
	// Source is the document's path as given to the loader.
	Source string `json:"source"`
	// Page is the first page the section is on (1-based); 0 when unknown.
	Page int `json:"page"`
	// PageEnd is the last page when the section spans pages.
	PageEnd int `json:"page_end,omitempty"`
	// PageLabel is the printed page label where it differs from Page; for
	// a section spanning pages whose first and last pages both print
	// their number, the range of those numbers ("29–30").
	PageLabel string `json:"page_label,omitempty"`
	// PagePrinted is true when the citation's page number (PageLabel, or
	// Page when PageLabel is empty) is the number printed on the page; false
	// when it is the 1-based page index in the file.
	PagePrinted bool `json:"page_printed,omitempty"`
	// Chunk is the index of this chunk within its heading's text.
	Chunk int `json:"chunk,omitempty"`
	// DocTitle is the title of the document the section belongs to (its
	// declared title, else a title read from its first page, else the file
	// name without extension).
	DocTitle string `json:"doc_title,omitempty"`
	// DocEntity is the organisation (or person, product, place) the whole
	// document is about when the document states it, such as a filing's
	// registrant ("Oracle Corporation"); empty when unknown.
	DocEntity string `json:"doc_entity,omitempty"`
	// DocPeriod is the period the whole document covers when it states one
	// ("fiscal year ended May 31, 2023", "quarter ended April 1, 2023");
	// empty when unknown.
	DocPeriod string `json:"doc_period,omitempty"`
	// Kind is what part of its document the section is (see the SectionKind
	// constants): running text, a table row, or one of the parts that
	// repeat a document's names without answering a question about its
	// content (preamble, signature block, table of contents, …). Empty
	// means body.
	Kind SectionKind `json:"kind,omitempty"`
	// RelevanceScore is the retriever's score normalised to [0,1].
	RelevanceScore float64 `json:"relevance_score"`
	// NamedBy are the question's words that named the section's document
	// when retrieval resolved the question to it (index.Resolution): the
	// document states them, so a passage of it is about them even when
	// it does not repeat them.
	NamedBy []string `json:"named_by,omitempty"`
}

// NamedTerms returns the terms (textproc.Terms) of NamedBy: what the
// section's document states, whether or not the passage repeats it. Nil
// when no word named the document.
func (s Section) NamedTerms() map[string]bool {
	if len(s.NamedBy) == 0 {
		return nil
	}
	named := map[string]bool{}
	for _, t := range textproc.Terms(strings.Join(s.NamedBy, " ")) {
		named[t] = true
	}
	return named
}

// ClauseHead is the regular expression of what opens a numbered clause
// of an agreement at the start of a line ("1. APPOINTMENT", "2.1 Term",
// "Article II", "Section 3"). KindAt and the loader's kind shapes read a
// clause with it, so that where a preamble ends is read alike.
const ClauseHead = `\d{1,2}(?:\.\d{1,2})*\.?\s|(?i:article|section)\s+(?:\d{1,2}|[IVX]{1,5})\b`

// clauseStart is a line that opens a numbered clause (ClauseHead).
var clauseStart = regexp.MustCompile(`(?m)^\s*(?:` + ClauseHead + `)`)

// KindAt returns the kind of the part of the section that text (a
// sentence of it) stands in. A preamble or recitals section read as one
// block may run on into the agreement's first numbered clauses ("… agree
// as follows: 1.1 Acme hereby grants …"); a sentence after the first
// such clause is body text, not what the section's kind says.
func (s Section) KindAt(text string) SectionKind {
	if s.Kind != KindPreamble && s.Kind != KindRecitals {
		return s.Kind
	}
	first := strings.IndexByte(s.Content, '\n')
	if first < 0 {
		return s.Kind
	}
	loc := clauseStart.FindStringIndex(s.Content[first:])
	if loc == nil {
		return s.Kind
	}
	// compared with spaces collapsed: a sentence is read out of its lines
	flat := func(t string) string { return strings.Join(strings.Fields(t), " ") }
	needle := flat(text)
	if len(needle) > 80 {
		needle = needle[:80]
	}
	if at := strings.Index(flat(s.Content), needle); needle != "" && at >= len(flat(s.Content[:first+loc[0]])) {
		return KindBody
	}
	return s.Kind
}

// SectionKind names what part of its document a section is. The values are
// stable strings: they are stored in indexes and appear in --json output and
// in rule IDs (kind.signature-block).
type SectionKind string

// Section kinds. Body is the zero value's meaning; the others are the parts
// of a document that identify it (who, what, when) rather than state its
// content, and retrieval hands them on only to questions that ask for them.
const (
	KindBody           SectionKind = ""
	KindTableRow       SectionKind = "table-row"
	KindPreamble       SectionKind = "preamble"
	KindRecitals       SectionKind = "recitals"
	KindSignature      SectionKind = "signature-block"
	KindTOC            SectionKind = "table-of-contents"
	KindHeaderFooter   SectionKind = "header-footer"
	KindCover          SectionKind = "cover-page"
	KindCertification  SectionKind = "certification"
	KindCrossReference SectionKind = "cross-reference"
)

// Identifying reports whether k is a kind that names a document's parties,
// title or period rather than stating its content.
func (k SectionKind) Identifying() bool {
	switch k {
	case KindBody, KindTableRow:
		return false
	}
	return true
}

// Citation renders the section's reference as it appears in answers:
// "Late Payment Penalties, page 8" or "Fees, pages 8–9".
func (s Section) Citation() string {
	return s.Title + ", " + s.PageRef()
}

// PageRef renders "page 8", "pages 8–9", or "page n/a" when unknown. A
// section spanning pages whose PageLabel is a range of printed numbers
// ("29–30") renders that range.
func (s Section) PageRef() string {
	switch {
	case s.Page <= 0:
		return "page n/a"
	case s.PageEnd > s.Page && strings.Contains(s.PageLabel, "–"):
		return "pages " + s.PageLabel
	case s.PageEnd > s.Page:
		return fmt.Sprintf("pages %d–%d", s.Page, s.PageEnd)
	case s.PageLabel != "" && s.PageLabel != fmt.Sprint(s.Page):
		return "page " + s.PageLabel
	default:
		return fmt.Sprintf("page %d", s.Page)
	}
}

// SourceRef renders the page as source lists show it: PageRef, the page
// as answers cite it (the printed label where there is one), with the
// page's index in the file beside it where the two differ ("page 43 (PDF
// page 45)"), so that one numbering reads the same in the answer, its
// sources and the document viewer.
func (s Section) SourceRef() string {
	ref := s.PageRef()
	index := fmt.Sprint(s.Page)
	if s.PageEnd > s.Page {
		index = fmt.Sprintf("%d–%d", s.Page, s.PageEnd)
	}
	if s.Page > 0 && s.PageLabel != "" && s.PageLabel != index && s.PageLabel != fmt.Sprint(s.Page) {
		if s.PageEnd > s.Page {
			return fmt.Sprintf("%s (PDF pages %d–%d)", ref, s.Page, s.PageEnd)
		}
		return fmt.Sprintf("%s (PDF page %d)", ref, s.Page)
	}
	return ref
}

// Key identifies the section for exclusion on retries: its ID when set,
// otherwise source, title, page and chunk.
func (s Section) Key() string {
	if s.ID != "" {
		return s.ID
	}
	return fmt.Sprintf("%s#%s#%d#%d", s.Source, s.Title, s.Page, s.Chunk)
}

// Evidence is the passage a claim was checked against.
type Evidence struct {
	Quote     string `json:"quote"`
	SectionID string `json:"section_id,omitempty"`
	Title     string `json:"title"`
	Source    string `json:"source"`
	Page      int    `json:"page"`
}

// ClaimCheck is the judge's finding for one claim of the answer.
type ClaimCheck struct {
	Claim     string    `json:"claim"`
	Supported bool      `json:"supported"`
	Score     float64   `json:"score"`
	Evidence  *Evidence `json:"evidence,omitempty"`
	// Contradiction explains a disagreement between claim and source, such
	// as `answer says "5%", source says "1.5%"`.
	Contradiction string `json:"contradiction,omitempty"`
	// Reason is a short explanation when the claim is not supported.
	Reason string `json:"reason,omitempty"`
}

// Verdict is the judge's assessment of a generated response.
type Verdict struct {
	IsHallucinated  bool    `json:"is_hallucinated"`
	ShouldReturn    bool    `json:"should_return"`
	Reasoning       string  `json:"reasoning"`
	ConfidenceScore float64 `json:"confidence_score"`
	// Claims holds the per-claim detail.
	Claims []ClaimCheck `json:"claims"`
	// Unverified is true when the judge could not produce a usable verdict
	// (for example an LLM returned unparseable output). An unverified
	// verdict never passes as grounded.
	Unverified bool `json:"unverified,omitempty"`
	// JudgedBy names what decided: "deterministic", "llm", "llm+guards".
	JudgedBy string `json:"judged_by,omitempty"`
	// RejectedSections lists the keys of retrieved sections the judge found
	// irrelevant to the question; the retriever excludes them on a retry.
	RejectedSections []string `json:"rejected_sections,omitempty"`
	// Signals are the answer's signals that the offline judge estimated
	// its confidence from, by name (judge.DecisionSignals); empty when
	// the confidence is not a calibrated estimate.
	Signals map[string]float64 `json:"signals,omitempty"`
	// Conflicts are the figures of the answer that another retrieved
	// section states differently for the same thing; a verdict with an
	// unacknowledged conflict is not returned (see judge.Conflicts).
	Conflicts []Conflict `json:"conflicts,omitempty"`
	// Findings are the rules that decided, one entry per finding: the
	// detector's stable ID (`docmind rules` lists them), the claim it
	// concerns ("" for the answer as a whole) and what it found.
	Findings []Finding `json:"findings,omitempty"`
}

// Finding is one rule's finding on an answer or a candidate answer.
type Finding struct {
	// Rule is the ID of the detector that reported it
	// ("period.unstated").
	Rule string `json:"rule"`
	// Claim is the statement it concerns; empty for the whole answer.
	Claim string `json:"claim,omitempty"`
	// Detail says what the rule found, for a reader.
	Detail string `json:"detail"`
}

// UnsupportedClaims returns the text of every claim not supported.
func (v *Verdict) UnsupportedClaims() []string {
	if v == nil {
		return nil
	}
	var out []string
	for _, c := range v.Claims {
		if !c.Supported {
			out = append(out, c.Claim)
		}
	}
	return out
}

// State is the record that flows through the pipeline. Each node writes only
// the fields it owns; nodes receive and return copies (see Clone).
type State struct {
	Query             string         `json:"query"`
	Decomposition     *Decomposition `json:"decomposition"`
	RetrievedSections []Section      `json:"retrieved_sections"`
	GeneratedResponse *string        `json:"generated_response"`
	JudgeVerdict      *Verdict       `json:"judge_verdict"`
	FinalOutput       *string        `json:"final_output"`
	RetryCount        int            `json:"retry_count"`
	NodeHistory       []string       `json:"node_history"`

	// Usage is the LLM token use per node and in total (absent offline).
	Usage *RunUsage `json:"usage,omitempty"`
	// PromptVersions records the version of each prompt template used.
	PromptVersions map[string]string `json:"prompt_versions,omitempty"`
	// Notes says, by stage, what the reader of the run should know about
	// that stage's output that its fields do not show: "generate" when the
	// answer was cut off at its token limit (and kept as it stands),
	// "rewrite" when a follow-up's rewrite fell back from the model's
	// reply; "generate.passed_over" the candidate sentences the
	// extractive generator passed over, each with the IDs of the rules
	// that passed it over (see schema.RecordPassedOver). A node's next
	// pass replaces its note (or removes it).
	Notes map[string]string `json:"notes,omitempty"`
	// ExcludedSections accumulates the keys of sections rejected on earlier
	// passes, so that a retry never hands back the same sections.
	ExcludedSections []string `json:"excluded_sections,omitempty"`
	// ClosestPassages, kept when the answer is refused (final_output is
	// the fallback message), are the best of the passages retrieval handed
	// on: the first pass's for the question as asked, then those later
	// passes added, up to three; among a pass's, those with a sentence
	// stating the most of the question's words first (package chains).
	// Where to look, NOT verified by the judge. The retrieve node gathers
	// them as the run goes; the output node clears them when it gives an
	// answer.
	ClosestPassages []Passage `json:"closest_passages,omitempty"`
}

// Passage points at a retrieved section without vouching for it: what a
// refusal hands the user to read for themselves.
type Passage struct {
	SectionID string `json:"section_id,omitempty"`
	Title     string `json:"title"`
	Source    string `json:"source"`
	Page      int    `json:"page"`
	// PageRef is the page as source lists show it (Section.SourceRef).
	PageRef string `json:"page_ref"`
	// Excerpt is what to read of the section: on a refusal, the sentence
	// that states the most of the question's words, with the one before it
	// when both fit, at most about 300 characters (package chains); the
	// section's opening, at most about 200, where no question is known.
	Excerpt string `json:"excerpt,omitempty"`
}

// MergePassages returns have followed by the passages of more it does not
// hold (by source, title and page), up to n in all.
func MergePassages(have, more []Passage, n int) []Passage {
	out := slices.Clone(have)
	seen := map[string]bool{}
	for _, p := range out {
		seen[p.Source+"\x00"+p.Title+"\x00"+p.PageRef] = true
	}
	for _, p := range more {
		k := p.Source + "\x00" + p.Title + "\x00" + p.PageRef
		if len(out) >= n || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, p)
	}
	return out
}

// ClosestPassages returns up to n passages of secs, best relevance first,
// one per section title and page.
func ClosestPassages(secs []Section, n int) []Passage {
	order := make([]Section, len(secs))
	copy(order, secs)
	slices.SortStableFunc(order, func(a, b Section) int {
		switch {
		case a.RelevanceScore > b.RelevanceScore:
			return -1
		case a.RelevanceScore < b.RelevanceScore:
			return 1
		}
		return 0
	})
	var out []Passage
	seen := map[string]bool{}
	for _, s := range order {
		k := s.Source + "\x00" + s.Citation()
		if len(out) >= n || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, Passage{SectionID: s.ID, Title: s.Title, Source: s.Source, Page: s.Page, PageRef: s.SourceRef(), Excerpt: Excerpt(s.Content, 200)})
	}
	return out
}

// Excerpt returns the start of text, whitespace collapsed, cut at a word
// boundary near max bytes with "…".
func Excerpt(text string, max int) string {
	t := strings.Join(strings.Fields(text), " ")
	if len(t) <= max {
		return t
	}
	cut := strings.LastIndexByte(t[:max], ' ')
	if cut <= 0 {
		cut = max
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
	}
	return t[:cut] + "…"
}

// NewState returns the initial state for a question, as SPEC §1 lists it.
func NewState(query string) *State {
	return &State{
		Query:             query,
		RetrievedSections: []Section{},
		NodeHistory:       []string{},
	}
}

// Answer returns the final output, or "" before the output node ran.
func (s *State) Answer() string {
	if s == nil || s.FinalOutput == nil {
		return ""
	}
	return *s.FinalOutput
}

// Response returns the generated response, or "".
func (s *State) Response() string {
	if s == nil || s.GeneratedResponse == nil {
		return ""
	}
	return *s.GeneratedResponse
}

// Answered reports whether the run returned an answer rather than the
// fallback message.
func (s *State) Answered() bool {
	return s != nil && s.FinalOutput != nil && *s.FinalOutput != FallbackMessage
}

// CitedSections returns the retrieved sections the answer rests on, in
// retrieval order: those holding the judge's evidence for an accepted
// claim, and with them those whose citation ("Title, page 8") the answer
// writes, so that every page the answer cites is among its sources; else
// those whose title it writes, else every retrieved section. A section of
// another document that shares a cited title and page with an evidence
// section is not one.
func (s *State) CitedSections() []Section {
	if s == nil {
		return nil
	}
	pick := func(keep func(Section) bool) []Section {
		var out []Section
		for _, sec := range s.RetrievedSections {
			if keep(sec) {
				out = append(out, sec)
			}
		}
		return out
	}
	ids := map[string]bool{}
	if v := s.JudgeVerdict; v != nil {
		for _, c := range v.Claims {
			if c.Supported && c.Evidence != nil && c.Evidence.SectionID != "" {
				ids[c.Evidence.SectionID] = true
			}
		}
	}
	covered := map[string]bool{}
	for _, sec := range s.RetrievedSections {
		if sec.ID != "" && ids[sec.ID] {
			covered[sec.Citation()] = true
		}
	}
	ans := s.Answer()
	if cited := pick(func(sec Section) bool {
		if sec.ID != "" && ids[sec.ID] {
			return true
		}
		return !covered[sec.Citation()] && strings.Contains(ans, sec.Citation())
	}); len(cited) > 0 {
		return cited
	}
	if cited := pick(func(sec Section) bool { return sec.Title != "" && strings.Contains(ans, sec.Title) }); len(cited) > 0 {
		return cited
	}
	return s.RetrievedSections
}

// Path renders the node history as "decompose → retrieve → ...".
func (s *State) Path() string { return strings.Join(s.NodeHistory, " → ") }

// Clone returns a deep copy, so that a saved or shared state is never
// mutated by a later node.
func (s *State) Clone() *State {
	if s == nil {
		return nil
	}
	c := *s
	if s.Decomposition != nil {
		d := *s.Decomposition
		d.SubQueries = cloneStrings(d.SubQueries)
		d.Entities = cloneStrings(d.Entities)
		d.Constraints = cloneStrings(d.Constraints)
		d.Temporals = cloneStrings(d.Temporals)
		d.KeyTerms = cloneStrings(d.KeyTerms)
		d.SearchTerms = cloneStrings(d.SearchTerms)
		c.Decomposition = &d
	}
	c.RetrievedSections = append([]Section{}, s.RetrievedSections...)
	for i := range c.RetrievedSections {
		c.RetrievedSections[i].Path = cloneStrings(c.RetrievedSections[i].Path)
	}
	if s.GeneratedResponse != nil {
		r := *s.GeneratedResponse
		c.GeneratedResponse = &r
	}
	if s.JudgeVerdict != nil {
		v := *s.JudgeVerdict
		v.Claims = make([]ClaimCheck, len(s.JudgeVerdict.Claims))
		for i, cl := range s.JudgeVerdict.Claims {
			if cl.Evidence != nil {
				e := *cl.Evidence
				cl.Evidence = &e
			}
			v.Claims[i] = cl
		}
		v.RejectedSections = cloneStrings(v.RejectedSections)
		v.Signals = maps.Clone(v.Signals)
		v.Conflicts = slices.Clone(v.Conflicts)
		v.Findings = slices.Clone(v.Findings)
		c.JudgeVerdict = &v
	}
	if s.FinalOutput != nil {
		o := *s.FinalOutput
		c.FinalOutput = &o
	}
	c.NodeHistory = append([]string{}, s.NodeHistory...)
	c.Usage = s.Usage.Clone()
	if s.PromptVersions != nil {
		c.PromptVersions = make(map[string]string, len(s.PromptVersions))
		for k, v := range s.PromptVersions {
			c.PromptVersions[k] = v
		}
	}
	c.Notes = maps.Clone(s.Notes)
	c.ExcludedSections = cloneStrings(s.ExcludedSections)
	c.ClosestPassages = slices.Clone(s.ClosestPassages)
	return &c
}

func cloneStrings(in []string) []string {
	if in == nil {
		return nil
	}
	return append([]string(nil), in...)
}
