package schema

import (
	"fmt"
	"regexp"
	"strings"
)

// reClaimFinding is one finding of a judge's reasoning about one claim:
// `claim 2 "The fee is 5%": answer says "5%", source says "1.5%"`.
var reClaimFinding = regexp.MustCompile(`^claim (\d+) "(?:[^"\\]|\\.)*": (.+)$`)

// Summary is the verdict's reasoning as a person reads it: one line, each
// finding stated once. Findings that repeat for several claims (the same
// detail for claims 1, 2 and 3) are said once for all of them, and a
// sentence the reasoning repeats is kept once. The per-claim detail stays
// in the verdict's claims (--json).
func (v *Verdict) Summary() string {
	if v == nil {
		return ""
	}
	text := strings.Join(strings.Fields(v.Reasoning), " ")
	prefix, body := "", text
	for _, p := range []string{"Not grounded: ", "Grounded: "} {
		if strings.HasPrefix(text, p) {
			prefix, body = p, text[len(p):]
			break
		}
	}
	end := ""
	if i := strings.Index(body, ". "); i >= 0 {
		body, end = body[:i], body[i:]
	} else if strings.HasSuffix(body, ".") {
		body, end = strings.TrimSuffix(body, "."), "."
	}
	type group struct {
		claims []string
		detail string
	}
	var order []*group
	byDetail := map[string]*group{}
	for _, part := range strings.Split(body, "; ") {
		claim, detail := "", part
		if m := reClaimFinding.FindStringSubmatch(part); m != nil {
			claim, detail = m[1], m[2]
		}
		key := strings.ToLower(detail)
		g := byDetail[key]
		if g == nil {
			g = &group{detail: detail}
			byDetail[key] = g
			order = append(order, g)
		}
		if claim != "" {
			g.claims = append(g.claims, claim)
		}
	}
	parts := make([]string, 0, len(order))
	for _, g := range order {
		switch len(g.claims) {
		case 0:
			parts = append(parts, g.detail)
		case 1:
			parts = append(parts, fmt.Sprintf("claim %s: %s", g.claims[0], g.detail))
		default:
			parts = append(parts, fmt.Sprintf("claims %s and %s: %s", strings.Join(g.claims[:len(g.claims)-1], ", "), g.claims[len(g.claims)-1], g.detail))
		}
	}
	return strings.TrimSpace(prefix + strings.Join(parts, "; ") + dedupeSentences(end))
}

// dedupeSentences drops the sentences of s that repeat an earlier one.
func dedupeSentences(s string) string {
	var out []string
	seen := map[string]bool{}
	for _, sent := range strings.SplitAfter(s, ". ") {
		k := strings.ToLower(strings.TrimSpace(sent))
		if k != "" && seen[strings.TrimSuffix(k, ".")] {
			continue
		}
		seen[strings.TrimSuffix(k, ".")] = true
		out = append(out, sent)
	}
	return strings.Join(out, "")
}
