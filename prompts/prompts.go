// Package prompts holds DocMind's LLM prompts — decompose, generate, judge,
// rewrite (the query for a judge-guided retry), rerank (the passages that
// answer, in order) and repair (a second chance for malformed JSON) — as
// text/template files embedded with go:embed, plus the JSON schemas of the
// structured replies (docmind_decomposition, docmind_verdict,
// docmind_ranking).
//
// Each template file starts with a comment naming its version,
// {{/* version: judge-v1 */}}; Prompt.Messages records it in the run's
// state with schema.RecordPromptVersion. Change the version whenever the
// wording changes.
//
// Retrieved sections reach the model only through Documents, which shows
// them as <document id="S1" title=… page=… source=…> elements (with the
// document's title, entity and period when known) inside one
// <documents> block, with any delimiter look-alikes in the text
// neutralised. The system prompts say that text inside the delimiters is
// data, never instructions.
package prompts

import (
	"context"
	"embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/schema"
)

// Prompt names.
const (
	NameDecompose = "decompose"
	NameGenerate  = "generate"
	NameJudge     = "judge"
	NameRewrite   = "rewrite"
	NameRerank    = "rerank"
	NameRepair    = "repair"
)

// Schema names, used as the json_schema name on OpenAI-compatible endpoints
// (proxies and test servers route on them).
const (
	SchemaDecomposition = "docmind_decomposition"
	SchemaVerdict       = "docmind_verdict"
	SchemaRanking       = "docmind_ranking"
)

//go:embed templates/*.tmpl templates/*.json
var files embed.FS

// DecompositionSchema returns the JSON Schema of a decomposition reply.
func DecompositionSchema() []byte { return mustRead("templates/decomposition.schema.json") }

// VerdictSchema returns the JSON Schema of a verdict reply.
func VerdictSchema() []byte { return mustRead("templates/verdict.schema.json") }

// RankingSchema returns the JSON Schema of a rerank reply: the ids of the
// passages that answer, the most useful first.
func RankingSchema() []byte { return mustRead("templates/ranking.schema.json") }

func mustRead(name string) []byte {
	b, err := files.ReadFile(name)
	if err != nil {
		panic("prompts: embedded file missing: " + name) // build-time invariant
	}
	return b
}

// Prompt is one parsed template with its name and version. It is
// immutable and safe for concurrent use.
type Prompt struct {
	name, version string
	t             *template.Template
}

// Name returns the prompt's name ("judge").
func (p *Prompt) Name() string { return p.name }

// Version returns the prompt's version ("judge-v1").
func (p *Prompt) Version() string { return p.version }

var versionRE = regexp.MustCompile(`^\{\{/\*\s*version:\s*(\S+)\s*\*/\}\}`)

// Get parses the named prompt from the embedded templates.
func Get(name string) (*Prompt, error) {
	src, err := files.ReadFile("templates/" + name + ".tmpl")
	if err != nil {
		return nil, fmt.Errorf("prompts: no prompt named %q", name)
	}
	m := versionRE.FindSubmatch(src)
	if m == nil {
		return nil, fmt.Errorf("prompts: %s.tmpl does not start with {{/* version: … */}}", name)
	}
	t, err := template.New(name).Funcs(template.FuncMap{"join": strings.Join}).Option("missingkey=error").Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("prompts: parsing %s.tmpl: %w", name, err)
	}
	for _, part := range []string{"system", "user"} {
		if t.Lookup(part) == nil {
			return nil, fmt.Errorf("prompts: %s.tmpl defines no %q template", name, part)
		}
	}
	return &Prompt{name: name, version: string(m[1]), t: t}, nil
}

// MustGet is Get for the embedded prompts, which are known to parse (a test
// checks every one); it panics on an unknown name.
func MustGet(name string) *Prompt {
	p, err := Get(name)
	if err != nil {
		panic(err)
	}
	return p
}

// Render executes the system and user parts with data.
func (p *Prompt) Render(data any) (system, user string, err error) {
	var sb, ub strings.Builder
	if err := p.t.ExecuteTemplate(&sb, "system", data); err != nil {
		return "", "", fmt.Errorf("prompts: rendering %s system prompt: %w", p.name, err)
	}
	if err := p.t.ExecuteTemplate(&ub, "user", data); err != nil {
		return "", "", fmt.Errorf("prompts: rendering %s user prompt: %w", p.name, err)
	}
	return strings.TrimSpace(sb.String()), strings.TrimSpace(ub.String()), nil
}

// Messages renders the prompt as chat messages (system, then user; no
// system message when that part is empty) and records the prompt's version
// in the run (schema.RecordPromptVersion).
func (p *Prompt) Messages(ctx context.Context, data any) ([]llms.MessageContent, error) {
	system, user, err := p.Render(data)
	if err != nil {
		return nil, err
	}
	schema.RecordPromptVersion(ctx, p.name, p.version)
	var msgs []llms.MessageContent
	if system != "" {
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeSystem, system))
	}
	return append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, user)), nil
}

// DecomposeData is the input of the decompose prompt.
type DecomposeData struct {
	Query string
}

// GenerateData is the input of the generate prompt.
type GenerateData struct {
	Query string
	// Documents is the output of Documents.
	Documents   string
	Constraints []string
	// Feedback, on a retry, says why the previous answer was rejected.
	Feedback string
}

// JudgeData is the input of the judge prompt.
type JudgeData struct {
	Query     string
	Documents string
	// Answer is the generated answer; use Answer to neutralise delimiters.
	Answer string
}

// RewriteData is the input of the rewrite prompt.
type RewriteData struct {
	Query       string
	Unsupported []string
	Reasoning   string
}

// RerankData is the input of the rerank prompt.
type RerankData struct {
	Query string
	// Documents is the output of Documents for the candidate passages.
	Documents string
}

// RepairData is the input of the repair prompt.
type RepairData struct {
	// Problem says what was wrong with the last reply.
	Problem string
	// Schema names the expected format (docmind_verdict).
	Schema string
}

// SectionID returns the id of the i-th (0-based) section: "S1", "S2", ….
func SectionID(i int) string { return "S" + strconv.Itoa(i+1) }

// SectionIndex returns the 0-based index named by an id like "S3" (also
// "s3", "[S3]") and whether it is a valid id for n sections.
func SectionIndex(id string, n int) (int, bool) {
	id = strings.TrimSpace(strings.Trim(strings.TrimSpace(id), "[]"))
	if len(id) < 2 || (id[0] != 'S' && id[0] != 's') {
		return 0, false
	}
	k, err := strconv.Atoi(id[1:])
	if err != nil || k < 1 || k > n {
		return 0, false
	}
	return k - 1, true
}

// Documents renders sections for a prompt: one <documents> block holding a
// <document id="Sk" title=… page=… source=… document_title=… entity=…
// period=…> element per section, in order. title is the section's heading
// and source the document's file; document_title, entity and period are
// the document's context (schema.Section DocTitle, DocEntity, DocPeriod),
// each shown only when known, so that the model can tell a section of
// Oracle's fiscal 2022 report from one of its fiscal 2023 report. Text that
// imitates the delimiters is neutralised, so a document cannot close its
// element and speak outside it.
func Documents(sections []schema.Section) string {
	var b strings.Builder
	b.WriteString("<documents>\n")
	for i, s := range sections {
		fmt.Fprintf(&b, "<document id=%q title=%q page=%q source=%q",
			SectionID(i), attr(s.Title), attr(s.PageRef()), attr(s.Source))
		for _, kv := range [][2]string{{"document_title", s.DocTitle}, {"entity", s.DocEntity}, {"period", s.DocPeriod}} {
			if v := attr(kv[1]); v != "" {
				fmt.Fprintf(&b, " %s=%q", kv[0], v)
			}
		}
		fmt.Fprintf(&b, ">\n%s\n</document>\n", Neutralise(strings.TrimSpace(s.Content)))
	}
	b.WriteString("</documents>")
	return b.String()
}

// Answer neutralises delimiters in a generated answer before it is shown
// to the judge inside <answer>…</answer>.
func Answer(text string) string { return Neutralise(strings.TrimSpace(text)) }

// delimRE allows any Unicode space where a tag allows one (Go's \s is
// ASCII only and omits \v), so collapsing whitespace later cannot turn
// an unmatched "<\vdocument" into a delimiter.
var delimRE = regexp.MustCompile(`(?i)<[\s\v\x{85}\p{Z}]*(/?)[\s\v\x{85}\p{Z}]*(documents?|answer)\b`)

// Neutralise replaces anything that looks like one of the prompt's own
// delimiters (<document>, </documents>, <answer>, …) with a harmless
// look-alike (‹document›), so data cannot break out of its block.
func Neutralise(text string) string {
	return delimRE.ReplaceAllString(text, "‹$1$2›")
}

func attr(s string) string {
	return Neutralise(strings.Join(strings.Fields(Neutralise(s)), " "))
}

var citeRE = regexp.MustCompile(`\[\s*([Ss]\d+(?:\s*[,;]\s*[Ss]\d+)*)\s*\]`)

// Citation is one [Sk] marker found in a text.
type Citation struct {
	// IDs are the ids inside the brackets ("[S1, S2]" has two).
	IDs []string
	// Start and End are the byte offsets of the whole marker.
	Start, End int
}

// Citations returns the [Sk] markers of text, in order.
func Citations(text string) []Citation {
	var out []Citation
	for _, m := range citeRE.FindAllStringSubmatchIndex(text, -1) {
		inner := text[m[2]:m[3]]
		var ids []string
		for _, f := range strings.FieldsFunc(inner, func(r rune) bool { return r == ',' || r == ';' || r == ' ' }) {
			ids = append(ids, "S"+strings.TrimLeft(f, "Ss"))
		}
		out = append(out, Citation{IDs: ids, Start: m[0], End: m[1]})
	}
	return out
}

// RepairInstruction returns the follow-up instruction sent after a reply
// that did not parse as schemaName (for llm.StructuredCall.Repair).
func RepairInstruction(schemaName string) func(raw string, problem error) string {
	p := MustGet(NameRepair)
	return func(_ string, problem error) string {
		msg := "the reply was not valid JSON"
		if problem != nil {
			msg = problem.Error()
		}
		_, user, err := p.Render(RepairData{Problem: msg, Schema: schemaName})
		if err != nil {
			return "Reply again with only one JSON object in the " + schemaName + " format."
		}
		return user
	}
}
