package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/internal/eval"
	"github.com/docmind/docmind/threads"
)

// Output for scripts is defined here, in one place: every command that
// prints JSON registers its flag with addJSONFlag, which records the
// command's shape (docs/json.md documents each one, generated from the golden
// file TestJSONOutputShapes holds of each), and prints through
// writeJSON. Fields are snake_case and durations are in milliseconds
// (*_ms); a question's outcome is always a stateOutput.

// jsonShapeAnnotation marks a command that prints JSON; its value says
// what the JSON holds.
const jsonShapeAnnotation = "docmind/json"

// addJSONFlag registers --json on cmd: print what (a phrase: "the final
// state") as JSON instead of text.
func addJSONFlag(cmd *cobra.Command, v *bool, what string) {
	cmd.Flags().BoolVar(v, "json", false, "print "+what+" as JSON (docs/json.md)")
	annotateJSON(cmd, "--json", what)
}

// addJSONLinesFlag registers --jsonl on cmd: print what as JSON lines, one
// object per line.
func addJSONLinesFlag(cmd *cobra.Command, v *bool, what string) {
	cmd.Flags().BoolVar(v, "jsonl", false, "print "+what+" as JSON lines, one object per line (docs/json.md)")
	annotateJSON(cmd, "--jsonl", what)
}

// jsonFlagAnnotation names the flag (--json or --jsonl) of a command
// marked with jsonShapeAnnotation.
const jsonFlagAnnotation = "docmind/json-flag"

func annotateJSON(cmd *cobra.Command, flag, what string) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[jsonShapeAnnotation] = what
	cmd.Annotations[jsonFlagAnnotation] = flag
}

// stateOutput is the one JSON shape of a question's outcome (ask --json,
// with or without --thread/--review, chat --json lines, resume --json,
// runs replay --json, and the HTTP API of docmind serve):
// threads.Outcome, the state's fields at the top level, "run" beside them
// when the run is in the ledger, and "error" when the run failed.
type stateOutput = threads.Outcome

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// shown is how text output prints a file name or title: as it is, or,
// when it holds control characters (an escape sequence, a line break),
// quoted with them escaped, so that a name cannot act on the terminal or
// split a line of a pipe's one-line-per-item output.
func shown(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) }) < 0 {
		return s
	}
	return strconv.Quote(s)
}

// readableFile checks that path is a regular file this process can open,
// so that a command fails on a mistyped file name before its work.
func readableFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named once
		}
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("read %s: not a regular file", path)
	}
	return nil
}

// readableQA checks, before any document is indexed, that path is a QA
// set eval qa and eval evidence can read, and gold (when not "") a gold
// file: a typo in row 3 fails at once, not after the indexing.
func readableQA(path, gold string) error {
	if err := readableFile(path); err != nil {
		return err
	}
	if _, err := eval.LoadQA(path); err != nil {
		return err
	}
	if gold == "" {
		return nil
	}
	if err := readableFile(gold); err != nil {
		return err
	}
	_, err := eval.LoadGold(gold)
	return err
}
