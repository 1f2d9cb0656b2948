package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/docmind/docmind/schema"
)

// RAGTruth task names, as reported per task.
const (
	TaskQA       = "qa"
	TaskSummary  = "summary"
	TaskData2Txt = "data2txt"
)

// Instructions used as the judge's query for tasks without a question. They
// paraphrase the RAGTruth generation prompts.
const (
	SummaryInstruction  = "Summarize the following news article."
	Data2TxtInstruction = "Write an objective overview of the following local business based only on the provided structured data."
)

// RAGTruthLabel is one annotated span of a response.
type RAGTruthLabel struct {
	Start        int    `json:"start"`
	End          int    `json:"end"`
	Text         string `json:"text"`
	LabelType    string `json:"label_type"`
	ImplicitTrue bool   `json:"implicit_true"`
	DueToNull    bool   `json:"due_to_null"`
	Meta         string `json:"meta"`
}

// RAGTruthResponse is one model's response to a source, with its labels.
type RAGTruthResponse struct {
	Response string          `json:"response"`
	Model    string          `json:"model"`
	Labels   []RAGTruthLabel `json:"labels"`
}

// Hallucinated reports whether the response counts as hallucinated: it has
// at least one label whose implicit_true is false.
func (r RAGTruthResponse) Hallucinated() bool {
	for _, l := range r.Labels {
		if !l.ImplicitTrue {
			return true
		}
	}
	return false
}

// GoldSpans returns the spans of the hallucination labels (implicit_true
// false), in code points of Response.
func (r RAGTruthResponse) GoldSpans() []Span {
	var out []Span
	for _, l := range r.Labels {
		if !l.ImplicitTrue {
			out = append(out, Span{Start: l.Start, End: l.End})
		}
	}
	return out
}

// RAGTruthSource is one line of a RAGTruth-format file: the task's input
// turned into a judge query and context sections, and the responses to
// judge.
type RAGTruthSource struct {
	SourceID string
	Task     string
	// Query is the question (QA) or the task instruction.
	Query string
	// Sections is the context the responses were written from.
	Sections  []schema.Section
	Responses []RAGTruthResponse
}

type ragtruthLine struct {
	SourceID  json.RawMessage    `json:"source_id"`
	Source    json.RawMessage    `json:"source"`
	Responses []RAGTruthResponse `json:"responses"`
}

// LoadRAGTruth reads a RAGTruth-format JSONL file (see ReadRAGTruth).
func LoadRAGTruth(path string) ([]RAGTruthSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ragtruth: %w", err) // err names the path
	}
	defer f.Close()
	return ReadRAGTruth(f, path)
}

// ReadRAGTruth reads RAGTruth-format JSONL: one source per line,
// {source_id, source, responses: [{response, model, labels}]}. The task
// follows from the source's shape: an object with a question and passages
// is QA, a string is a summary article, any other object is data-to-text
// (structured data, rendered as text). name is used in error messages.
func ReadRAGTruth(r io.Reader, name string) ([]RAGTruthSource, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var out []RAGTruthSource
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("ragtruth: read %s: %w", name, err)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			src, perr := parseRAGTruthLine(t)
			if perr != nil {
				return nil, fmt.Errorf("ragtruth: %s line %d: %w", name, lineNo, perr)
			}
			out = append(out, src)
		}
		if err != nil {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("ragtruth: %s holds no sources", name)
	}
	return out, nil
}

func parseRAGTruthLine(b []byte) (RAGTruthSource, error) {
	var ln ragtruthLine
	if err := json.Unmarshal(b, &ln); err != nil {
		return RAGTruthSource{}, fmt.Errorf("not a RAGTruth record: %w", err)
	}
	if len(ln.Source) == 0 {
		return RAGTruthSource{}, errors.New("record has no source")
	}
	src := RAGTruthSource{SourceID: rawID(ln.SourceID), Responses: ln.Responses}
	for i, resp := range ln.Responses {
		n := len([]rune(resp.Response))
		for _, l := range resp.Labels {
			if l.Start < 0 || l.End < l.Start || l.End > n {
				return RAGTruthSource{}, fmt.Errorf("response %d: label [%d,%d) outside the response (%d characters)", i, l.Start, l.End, n)
			}
		}
	}
	switch ln.Source[0] {
	case '"':
		var article string
		if err := json.Unmarshal(ln.Source, &article); err != nil {
			return RAGTruthSource{}, fmt.Errorf("source: %w", err)
		}
		src.Task, src.Query = TaskSummary, SummaryInstruction
		src.Sections = []schema.Section{{ID: "article", Title: "Article", Content: article, Source: src.SourceID}}
	case '{':
		var qa struct {
			Question *string `json:"question"`
			Passages *string `json:"passages"`
		}
		if err := json.Unmarshal(ln.Source, &qa); err != nil {
			return RAGTruthSource{}, fmt.Errorf("source: %w", err)
		}
		if qa.Question != nil && qa.Passages != nil {
			src.Task, src.Query = TaskQA, *qa.Question
			src.Sections = passageSections(*qa.Passages, src.SourceID)
			break
		}
		secs, err := renderStructured(ln.Source, src.SourceID)
		if err != nil {
			return RAGTruthSource{}, fmt.Errorf("source: %w", err)
		}
		src.Task, src.Query, src.Sections = TaskData2Txt, Data2TxtInstruction, secs
	default:
		return RAGTruthSource{}, errors.New("source is neither text nor an object")
	}
	return src, nil
}

func rawID(b json.RawMessage) string {
	var s string
	if json.Unmarshal(b, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(b))
}

var passageHead = regexp.MustCompile(`(?im)^\s*passage\s+(\d+)\s*:`)

// passageSections splits "passage 1:... passage 2:..." into one section
// per passage; text without such markers is one section.
func passageSections(text, sourceID string) []schema.Section {
	locs := passageHead.FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 {
		return []schema.Section{{ID: sourceID + "#1", Title: "Passage 1", Content: strings.TrimSpace(text), Source: sourceID}}
	}
	var out []schema.Section
	for i, loc := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := strings.TrimSpace(text[loc[1]:end])
		if body == "" {
			continue
		}
		num := text[loc[2]:loc[3]]
		out = append(out, schema.Section{ID: sourceID + "#" + num, Title: "Passage " + num, Content: body, Source: sourceID, Chunk: i})
	}
	return out
}

// renderStructured renders a JSON object as text sections for the judge:
// top-level scalar and object fields become "Key: value" lines of a
// "Record" section, and every object in a top-level array becomes its own
// section (e.g. each review). Key order is kept as in the file; camelCase
// and snake_case keys are split into words; booleans read yes/no; times of
// day like "17:0" are written "17:00 (5:00 PM)".
func renderStructured(raw json.RawMessage, sourceID string) ([]schema.Section, error) {
	v, err := decodeOrdered(json.NewDecoder(bytes.NewReader(raw)))
	if err != nil {
		return nil, err
	}
	obj, ok := v.(orderedObject)
	if !ok {
		return nil, errors.New("structured source is not a JSON object")
	}
	var main strings.Builder
	var extra []schema.Section
	for _, kv := range obj {
		if arr, ok := kv.value.([]any); ok && len(arr) > 0 {
			if _, isObj := arr[0].(orderedObject); isObj {
				for i, el := range arr {
					var b strings.Builder
					writeFields(&b, el)
					title := fmt.Sprintf("%s %d", singular(humanKey(kv.key)), i+1)
					extra = append(extra, schema.Section{ID: fmt.Sprintf("%s#%s%d", sourceID, kv.key, i+1), Title: title, Content: strings.TrimSpace(b.String()), Source: sourceID, Chunk: 1 + len(extra)})
				}
				continue
			}
		}
		main.WriteString(humanKey(kv.key))
		main.WriteString(": ")
		main.WriteString(renderValue(kv.value))
		main.WriteString(".\n")
	}
	out := []schema.Section{{ID: sourceID + "#record", Title: "Record", Content: strings.TrimSpace(main.String()), Source: sourceID}}
	return append(out, extra...), nil
}

func writeFields(b *strings.Builder, v any) {
	obj, ok := v.(orderedObject)
	if !ok {
		b.WriteString(renderValue(v))
		return
	}
	for _, kv := range obj {
		b.WriteString(humanKey(kv.key))
		b.WriteString(": ")
		b.WriteString(renderValue(kv.value))
		b.WriteString(".\n")
	}
}

var clockTime = regexp.MustCompile(`\b(\d{1,2}):(\d{1,2})\b`)

func renderValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "none"
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case json.Number:
		return x.String()
	case string:
		return clockTime.ReplaceAllStringFunc(x, clock)
	case []any:
		parts := make([]string, len(x))
		for i, el := range x {
			parts[i] = renderValue(el)
		}
		return strings.Join(parts, ", ")
	case orderedObject:
		parts := make([]string, len(x))
		for i, kv := range x {
			parts[i] = humanKey(kv.key) + " " + renderValue(kv.value)
		}
		return strings.Join(parts, "; ")
	default:
		return fmt.Sprint(x)
	}
}

// clock rewrites "17:0" as "17:00 (5:00 PM)".
func clock(s string) string {
	h, m, _ := strings.Cut(s, ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh > 24 || mm > 59 {
		return s
	}
	ampm, h12 := "AM", hh%12
	if hh%24 >= 12 {
		ampm = "PM"
	}
	if h12 == 0 {
		h12 = 12
	}
	return fmt.Sprintf("%d:%02d (%d:%02d %s)", hh, mm, h12, mm, ampm)
}

// humanKey turns "RestaurantsTakeOut" or "business_stars" into
// "Restaurants Take Out" / "business stars". A part of one or two letters
// is not split off ("WiFi" stays whole).
func humanKey(k string) string {
	var b strings.Builder
	rs := []rune(k)
	part := 0
	for i, r := range rs {
		if r == '_' || r == '-' {
			b.WriteByte(' ')
			part = 0
			continue
		}
		if i > 0 && part > 2 && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))) {
			b.WriteByte(' ')
			part = 0
		}
		b.WriteRune(r)
		part++
	}
	return b.String()
}

func singular(s string) string {
	if w, ok := strings.CutSuffix(s, " info"); ok {
		s = w
	}
	if len(s) > 0 {
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

type orderedField struct {
	key   string
	value any
}

// orderedObject is a JSON object with its keys in file order.
type orderedObject []orderedField

// decodeOrdered decodes the next JSON value, keeping object key order.
func decodeOrdered(dec *json.Decoder) (any, error) {
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var obj orderedObject
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				val, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, orderedField{key: key, value: val})
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				val, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}
