package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrNoJSON means a model's output holds no parseable JSON object or array.
var ErrNoJSON = errors.New("no JSON object found in the model's output")

// ExtractJSON finds the JSON document in a model's output, tolerating what
// models wrap around it: Markdown code fences, leading prose ("Here is the
// JSON:"), trailing commentary and trailing commas. It returns the first
// complete, valid JSON object or array, or an error wrapping ErrNoJSON.
func ExtractJSON(s string) (string, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "\ufeff")
	for _, cand := range fencedBlocks(s) {
		if js, ok := firstJSON(cand); ok {
			return js, nil
		}
	}
	if js, ok := firstJSON(s); ok {
		return js, nil
	}
	if strings.ContainsAny(s, "{[") {
		return "", fmt.Errorf("%w (output starts %q)", ErrNoJSON, oneLine(s, 60))
	}
	return "", fmt.Errorf("%w (output was %q)", ErrNoJSON, oneLine(s, 60))
}

// fencedBlocks returns the bodies of ``` fenced blocks, in order.
func fencedBlocks(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "```")
		if i < 0 {
			return out
		}
		rest := s[i+3:]
		// Skip the info string (```json).
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[") {
			rest = rest[nl+1:]
		}
		j := strings.Index(rest, "```")
		if j < 0 {
			return append(out, rest)
		}
		out = append(out, rest[:j])
		s = rest[j+3:]
	}
}

// firstJSON scans s for the first balanced {...} or [...] that is valid
// JSON (after dropping trailing commas).
func firstJSON(s string) (string, bool) {
	for start := 0; start < len(s); start++ {
		c := s[start]
		if c != '{' && c != '[' {
			continue
		}
		end, ok := matchBracket(s, start)
		if !ok {
			continue
		}
		cand := s[start : end+1]
		if json.Valid([]byte(cand)) {
			return cand, true
		}
		if fixed := dropTrailingCommas(cand); json.Valid([]byte(fixed)) {
			return fixed, true
		}
	}
	return "", false
}

// scan walks s from start, calling fn for every byte outside JSON strings
// (with its index); fn returns false to stop. String contents and escapes
// are skipped, quotes included in the calls' gaps.
func scan(s string, start int, fn func(i int, c byte) bool) {
	inStr, esc := false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		if !fn(i, c) {
			return
		}
	}
}

// matchBracket returns the index of the bracket closing s[start],
// honouring JSON strings and escapes.
func matchBracket(s string, start int) (int, bool) {
	var stack []byte
	end, ok := 0, false
	scan(s, start, func(i int, c byte) bool {
		switch c {
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				end, ok = i, true
				return false
			}
		}
		return true
	})
	return end, ok
}

// dropTrailingCommas removes commas directly before } or ] outside strings.
func dropTrailingCommas(s string) string {
	drop := map[int]bool{}
	scan(s, 0, func(i int, c byte) bool {
		if c == ',' {
			j := i + 1
			for j < len(s) && strings.IndexByte(" \t\r\n", s[j]) >= 0 {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				drop[i] = true
			}
		}
		return true
	})
	if len(drop) == 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if !drop[i] {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
