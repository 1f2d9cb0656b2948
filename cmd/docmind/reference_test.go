package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/internal/testenv"
)

// The reference pages docs/cli.md and docs/json.md are generated: the
// first from the commands' help (cobra), the second from the golden files
// of testdata/golden, which the golden tests keep equal to what the
// commands print. TestReferencePages fails when a page is not what the
// commands and golden files make it; DOCMIND_UPDATE_DOCS=1 rewrites it:
//
//	DOCMIND_UPDATE_DOCS=1 go test -run TestReferencePages ./cmd/docmind
func TestReferencePages(t *testing.T) {
	root := testenv.RepoRoot(t)
	for name, page := range map[string]func(*testing.T) string{
		"cli.md": func(*testing.T) string {
			return cliReference((&app{getenv: func(string) string { return "" }}).rootCmd())
		},
		"json.md": jsonReference,
	} {
		path := filepath.Join(root, "docs", name)
		want := page(t)
		if os.Getenv("DOCMIND_UPDATE_DOCS") == "1" {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("docs/%s is not current (%v): regenerate it with DOCMIND_UPDATE_DOCS=1 go test -run TestReferencePages ./cmd/docmind", name, err)
		}
	}
}

// cliReference renders every visible command's help as Markdown.
func cliReference(root *cobra.Command) string {
	var b strings.Builder
	b.WriteString("# Command reference\n\n<!-- Generated from the commands' help by TestReferencePages in cmd/docmind: do not edit. -->\n\n")
	b.WriteString("Every command of `docmind`, with its flags, as `docmind COMMAND --help` prints them.\n\n")
	var all []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		all = append(all, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, c := range all[1:] {
		fmt.Fprintf(&b, "- [`%s`](#%s) — %s\n", c.CommandPath(), anchor(c.CommandPath()), c.Short)
	}
	for _, c := range all {
		fmt.Fprintf(&b, "\n## %s\n\n", c.CommandPath())
		text := c.Long
		if text == "" {
			text = c.Short
		}
		b.WriteString(strings.TrimSpace(text) + "\n")
		if c.Runnable() {
			fmt.Fprintf(&b, "\n```\n%s\n```\n", c.UseLine())
		}
		if c.Example != "" {
			fmt.Fprintf(&b, "\nExamples:\n\n```\n%s\n```\n", strings.TrimRight(c.Example, "\n"))
		}
		if flags := c.NonInheritedFlags().FlagUsages(); strings.TrimSpace(flags) != "" {
			fmt.Fprintf(&b, "\nFlags:\n\n```\n%s```\n", flags)
		}
	}
	return b.String()
}

// anchor is GitHub's anchor of a Markdown heading.
func anchor(heading string) string {
	return strings.ReplaceAll(strings.ToLower(heading), " ", "-")
}

// goldenCommands says which command line printed each golden file (the
// table of TestGoldenJSON); a file missing here is listed by name.
var goldenCommands = map[string]string{
	"ingest.json":          "docmind ingest --json FOLDER",
	"index-stats.json":     "docmind index stats --json",
	"index-documents.json": "docmind index documents --json",
	"ask.json":             "docmind ask --json QUESTION (answered)",
	"ask-fallback.json":    "docmind ask --json QUESTION (refused, exit code 3)",
	"ask-thread.json":      "docmind ask --json --thread T QUESTION",
	"ask-review.json":      "docmind ask --json --review --thread T QUESTION (exit code 4)",
	"resume.json":          "docmind resume --json --reject --note NOTE RUN",
	"chat.jsonl":           "docmind chat --json --thread T (one object a line per question)",
	"runs-ls.json":         "docmind runs ls --json --thread T",
	"runs-show.json":       "docmind runs show --json RUN",
	"runs-replay.json":     "docmind runs replay --json --from judge RUN",
	"runs-export.jsonl":    "docmind runs export --jsonl --thread T (one object a line per run)",
	"gc.json":              "docmind gc --json",
	"eval-qa.json":         "docmind eval qa --json FILE.jsonl",
	"eval-judge.json":      "docmind eval judge --json --ragtruth FILE.jsonl",
	"eval-relevance.json":  "docmind eval relevance --json --docs DIR --gold FILE.jsonl",
	"eval-retrieval.json":  "docmind eval retrieval --json --beir DIR",
	"eval-evidence.json":   "docmind eval evidence --json --docs DIR FILE.jsonl",
	"eval-calibrate.json":  "docmind eval calibrate --json REPORT.json...",
	"eval-compare.json":    "docmind eval compare --json BEFORE.json AFTER.json",
	"check.json":           "docmind check --json (a reasoning model: its notes)",
}

// jsonReference renders the shape of each golden file: its fields in
// order, each value replaced by its type, arrays by the union of their
// elements' shapes.
func jsonReference(t *testing.T) string {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	var b strings.Builder
	b.WriteString("# JSON output\n\n<!-- Generated from cmd/docmind/testdata/golden by TestReferencePages in cmd/docmind: do not edit. -->\n\n")
	b.WriteString("Every command that takes `--json` prints one JSON document (`--jsonl` and `chat --json`: one a line) on stdout; errors stay one line on stderr and the exit code says how the command ended (0 answered, 1 error, 2 usage error, 3 no confident answer, 4 waiting for review). ")
	b.WriteString("The shapes below are read from the golden files the tests compare the commands' output with: each field in the order printed, with its type; an array shows the fields of all its elements, \"(optional)\" marking those some elements lack; `a | b` is a value of either type; `null` is a field that may be absent or null.\n\n")
	for _, f := range files {
		name := filepath.Base(f)
		cmd := goldenCommands[name]
		if cmd == "" {
			cmd = name
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		// a .jsonl file's lines are merged as an array's elements are
		root := &shapeNode{}
		for dec.More() {
			if err := readShape(root, dec); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		var shape strings.Builder
		writeShape(&shape, root, "")
		fmt.Fprintf(&b, "## `%s`\n\n```\n%s\n```\n\n", cmd, shape.String())
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// shapeNode is the shape of JSON values: the union of every value seen
// at one place (an array's elements are seen at one place).
type shapeNode struct {
	types  []string              // "object", "array", "string", "number", "bool", "null", in first-seen order
	keys   []string              // an object's fields, in first-seen order
	fields map[string]*shapeNode // by key
	seen   map[string]int        // how many of the objects held the field
	objs   int                   // objects seen here
	elem   *shapeNode            // an array's elements, merged
}

func (n *shapeNode) addType(t string) {
	if !slices.Contains(n.types, t) {
		n.types = append(n.types, t)
	}
}

// readShape merges the next JSON value of dec into n.
func readShape(n *shapeNode, dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			n.addType("object")
			n.objs++
			if n.fields == nil {
				n.fields, n.seen = map[string]*shapeNode{}, map[string]int{}
			}
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return err
				}
				key := tok.(string)
				f := n.fields[key]
				if f == nil {
					f = &shapeNode{}
					n.fields[key] = f
					n.keys = append(n.keys, key)
				}
				n.seen[key]++
				if err := readShape(f, dec); err != nil {
					return err
				}
			}
			_, err := dec.Token()
			return err
		}
		n.addType("array")
		if n.elem == nil {
			n.elem = &shapeNode{}
		}
		for dec.More() {
			if err := readShape(n.elem, dec); err != nil {
				return err
			}
		}
		_, err := dec.Token()
		return err
	case string:
		n.addType("string")
	case json.Number:
		n.addType("number")
	case bool:
		n.addType("bool")
	case nil:
		n.addType("null")
	}
	return nil
}

// writeShape writes n: an object's fields in order, each with its type,
// "(optional)" after a field some of the objects lack; an array as its
// merged element; a value seen with several types as "a | b".
func writeShape(w *strings.Builder, n *shapeNode, indent string) {
	for i, t := range n.types {
		if i > 0 {
			w.WriteString(" | ")
		}
		switch t {
		case "object":
			if len(n.keys) == 0 {
				w.WriteString("{}")
				continue
			}
			w.WriteString("{\n")
			for k, key := range n.keys {
				fmt.Fprintf(w, "%s  %q: ", indent, key)
				writeShape(w, n.fields[key], indent+"  ")
				if n.seen[key] < n.objs {
					w.WriteString(" (optional)")
				}
				if k < len(n.keys)-1 {
					w.WriteString(",")
				}
				w.WriteString("\n")
			}
			w.WriteString(indent + "}")
		case "array":
			if n.elem == nil || len(n.elem.types) == 0 {
				w.WriteString("[]")
				continue
			}
			w.WriteString("[")
			writeShape(w, n.elem, indent)
			w.WriteString(", …]")
		default:
			w.WriteString(t)
		}
	}
}

// The --json and --jsonl flags point to the page that documents their
// shapes, docs/json.md (the README has no section of them).
func TestJSONFlagHelpNamesJSONPage(t *testing.T) {
	if _, err := os.Stat(filepath.Join(testenv.RepoRoot(t), "docs", "json.md")); err != nil {
		t.Fatal(err)
	}
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		if flag := c.Annotations[jsonFlagAnnotation]; flag != "" {
			n++
			f := c.Flags().Lookup(strings.TrimPrefix(flag, "--"))
			if f == nil || !strings.HasSuffix(f.Usage, "(docs/json.md)") {
				t.Errorf("%s %s: help does not name docs/json.md: %+v", c.CommandPath(), flag, f)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk((&app{getenv: func(string) string { return "" }}).rootCmd())
	if n == 0 {
		t.Fatal("no command has a --json flag")
	}
}
