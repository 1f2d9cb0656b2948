package docmind

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/docmind/docmind/schema"
)

// WithSourceRoot names the folder the documents' paths are shown relative
// to in LLM prompts (the documents folder, or the folder an index was built
// from): a section of /home/ana/contracts/acme/msa.md is shown to the model
// as source="acme/msa.md", never with the absolute path. Without it the
// root is the common folder of the sections given with WithSections, or of
// the sections of each prompt. The state, citations and verdicts keep the
// paths as loaded.
func WithSourceRoot(dir string) Option {
	return func(c *config) error {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return fmt.Errorf("WithSourceRoot: %w", err)
		}
		c.sourceRoot = abs
		return nil
	}
}

// SourceRoot returns the deepest folder holding every one of paths (made
// absolute), for WithSourceRoot; "" when paths is empty.
func SourceRoot(paths ...string) string {
	root := ""
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		dir := filepath.Dir(abs)
		if root == "" {
			root = dir
			continue
		}
		for !within(root, dir) {
			parent := filepath.Dir(root)
			if parent == root {
				break
			}
			root = parent
		}
	}
	return root
}

// sectionsRoot is SourceRoot of the sections' sources.
func sectionsRoot(secs []schema.Section) string {
	srcs := make([]string, 0, len(secs))
	for _, s := range secs {
		if s.Source != "" {
			srcs = append(srcs, s.Source)
		}
	}
	return SourceRoot(srcs...)
}

// within reports whether path is dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// promptSources returns a copy of secs whose sources are relative to root
// (to the sections' common folder when root is ""); a source outside root
// keeps only its file name. rel maps the keys of the copies back to the
// originals'.
func promptSources(secs []schema.Section, root string) (out []schema.Section, orig map[string]schema.Section) {
	if root == "" {
		root = sectionsRoot(secs)
	}
	out = make([]schema.Section, len(secs))
	orig = make(map[string]schema.Section, len(secs))
	for i, s := range secs {
		out[i] = s
		if abs, err := filepath.Abs(s.Source); err == nil && s.Source != "" {
			if within(root, abs) {
				rel, _ := filepath.Rel(root, abs)
				out[i].Source = filepath.ToSlash(rel)
			} else {
				out[i].Source = filepath.Base(abs)
			}
		}
		orig[out[i].Key()] = s
	}
	return out, orig
}

// relGenerator hands its generator sections with prompt-ready sources.
type relGenerator struct {
	schema.Generator
	root string
}

func (g relGenerator) Generate(ctx context.Context, req schema.GenerateRequest) (string, error) {
	req.Sections, _ = promptSources(req.Sections, g.root)
	return g.Generator.Generate(ctx, req)
}

// relJudge hands its judge sections with prompt-ready sources, and puts
// the original sources and keys back into the verdict.
type relJudge struct {
	inner schema.Judge
	root  string
}

func (j relJudge) Judge(ctx context.Context, req schema.JudgeRequest) (*schema.Verdict, error) {
	var orig map[string]schema.Section
	req.Sections, orig = promptSources(req.Sections, j.root)
	v, err := j.inner.Judge(ctx, req)
	if v == nil {
		return v, err
	}
	for i, c := range v.Claims {
		if c.Evidence == nil {
			continue
		}
		for _, s := range req.Sections {
			if s.Source == c.Evidence.Source && s.Title == c.Evidence.Title {
				e := *c.Evidence
				e.Source = orig[s.Key()].Source
				v.Claims[i].Evidence = &e
				break
			}
		}
	}
	for i, k := range v.RejectedSections {
		if s, ok := orig[k]; ok {
			v.RejectedSections[i] = s.Key()
		}
	}
	return v, err
}
