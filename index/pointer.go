package index

import (
	"context"
	"regexp"
	"strings"

	"github.com/docmind/docmind/schema"
)

// A passage that sends the reader elsewhere in its document ("see Note 11
// – Income Taxes", "as described in Section 9.3") is not itself the
// answer; the part it points to may be. followPointers adds that part.

// pointerRef is a reference to a numbered part of the same document.
var pointerRef = regexp.MustCompile(`(?i)\b(?:see|refer to|described in|discussed in|set forth in|defined in|pursuant to|under|in)\s+(?:the\s+)?(note|section|item|article|clause|schedule|exhibit|appendix)\s+([0-9]+[A-Z]?(?:\.[0-9]+)*|[A-Z])\b`)

// maxPointerTargets is the most sections followPointers adds to a pass.
const maxPointerTargets = 2

// pointerTarget reports whether section s is the part named by kind and
// num: its title or its text opens with them ("Note 11 – Income Taxes",
// "11. Income Taxes", "Section 9.3 Notices", "9.3 Notices").
func pointerTarget(s schema.Section, kind, num string) bool {
	for _, text := range []string{s.Title, s.Content} {
		t := strings.ToLower(strings.TrimSpace(text))
		t = strings.TrimPrefix(t, kind+" ")
		if strings.HasPrefix(t, num) {
			rest := t[len(num):]
			if rest == "" || strings.IndexAny(rest[:1], " .:–—-)\t\n") == 0 {
				return true
			}
		}
	}
	return false
}

// followPointers returns out with, after each section that points to a
// numbered part of its own document, the section that part opens (read
// from lister), when it is not already there; at most maxPointerTargets
// are added, and out keeps at most k sections (the weakest go).
func followPointers(ctx context.Context, lister SectionLister, out []schema.Section, k int, excluded map[string]bool) []schema.Section {
	if lister == nil {
		return out
	}
	in := map[string]bool{}
	for _, s := range out {
		in[s.Key()] = true
	}
	docs := map[string][]schema.Section{}
	added := 0
	var res []schema.Section
	for _, s := range out {
		res = append(res, s)
		if added >= maxPointerTargets {
			continue
		}
		for _, m := range pointerRef.FindAllStringSubmatch(s.Content, 4) {
			kind, num := strings.ToLower(m[1]), strings.ToLower(m[2])
			secs, ok := docs[s.Source]
			if !ok {
				var err error
				if secs, err = lister.Sections(ctx, s.Source); err != nil {
					secs = nil
				}
				docs[s.Source] = secs
			}
			for _, t := range secs {
				if in[t.Key()] || excluded[t.Key()] || t.Key() == s.Key() || !pointerTarget(t, kind, num) {
					continue
				}
				in[t.Key()] = true
				t.RelevanceScore = s.RelevanceScore
				res = append(res, t)
				added++
				break
			}
			if added >= maxPointerTargets {
				break
			}
		}
	}
	if len(res) > k && added > 0 {
		// keep the targets: the weakest sections they displace go
		orig := map[string]bool{}
		for _, s := range out {
			orig[s.Key()] = true
		}
		for i := len(res) - 1; i >= 0 && len(res) > k; i-- {
			if orig[res[i].Key()] {
				res = append(res[:i], res[i+1:]...)
			}
		}
	}
	return res
}
