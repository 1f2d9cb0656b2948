package relevance

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
)

// A Detector is one named check of a candidate answer against a question,
// in the shape of golang.org/x/tools/go/analysis's Analyzer: a stable ID
// (Name, "period.unstated"), a one-line Doc, the detectors whose outcome
// it reads (Requires) and a Run that reports findings on a Pass.
//
// The detectors of this package read a question's Frame and a candidate's
// Context (Frame.Check runs them once per question and candidate); the
// judge registers its own (the guards, the fact checks, the conflict
// check) with a nil Run, since it runs them on a whole answer against its
// sources. Every finding names the detector that reported it, so that a
// verdict says which rules decided and `docmind rules` lists them all.
type Detector struct {
	// Name is the detector's stable ID: a family, a dot and the check
	// ("period.unstated"). Findings carry it as their Rule.
	Name string
	// Doc says in one line what the detector reports.
	Doc string
	// Requires are the detectors whose outcome Run reads (Pass.Fired);
	// they run first.
	Requires []*Detector
	// Run reports the detector's findings on p; nil for a detector run by
	// another package (the judge's).
	Run func(p *Pass)
}

// Family returns the part of the name before the dot ("period").
func (d *Detector) Family() string {
	family, _, _ := strings.Cut(d.Name, ".")
	return family
}

var registry []*Detector

// Register adds d to the detectors Detectors lists and returns it. It
// panics on a name already registered or without a family: names are
// fixed in code, and a test lists them all.
func Register(d *Detector) *Detector {
	if !strings.Contains(d.Name, ".") || d.Doc == "" {
		panic("relevance: detector " + d.Name + " needs a family.check name and a doc")
	}
	if slices.ContainsFunc(registry, func(o *Detector) bool { return o.Name == d.Name }) {
		panic("relevance: detector " + d.Name + " registered twice")
	}
	registry = append(registry, d)
	return d
}

// Detectors returns every registered detector, by name.
func Detectors() []*Detector {
	out := slices.Clone(registry)
	slices.SortFunc(out, func(a, b *Detector) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Lookup returns the detector named name, or nil.
func Lookup(name string) *Detector {
	for _, d := range registry {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// disabled holds the names of the detectors switched off (see Disable).
var disabled atomic.Pointer[map[string]bool]

// Disable switches off the named detectors for the whole process, in
// place of those switched off before, and returns a function that
// restores the previous set. It is for measuring what a rule is worth
// (`docmind eval rules` runs every set without each rule in turn); an
// unknown name is an error. Disable() switches every detector back on.
func Disable(names ...string) (restore func(), err error) {
	m := map[string]bool{}
	for _, n := range names {
		if Lookup(n) == nil {
			return nil, fmt.Errorf("no detector %q (see docmind rules)", n)
		}
		m[n] = true
	}
	prev := disabled.Swap(&m)
	return func() { disabled.Store(prev) }, nil
}

// fireHook, when set, is called with the name of every detector that
// fires (see OnFire).
var fireHook atomic.Pointer[func(string)]

// OnFire sets a function called with a detector's name whenever it fires
// anywhere in the process (a finding on a candidate, an issue the judge
// weighs), in place of the one set before; nil removes it. It is for
// measuring rules: a rule that never fires on a question cannot change its
// outcome when switched off.
func OnFire(fn func(rule string)) {
	if fn == nil {
		fireHook.Store(nil)
		return
	}
	fireHook.Store(&fn)
}

// Fired tells the OnFire function that the named detector fired.
func Fired(name string) {
	if fn := fireHook.Load(); fn != nil {
		(*fn)(name)
	}
}

// Enabled reports whether the named detector is switched on.
func Enabled(name string) bool {
	m := disabled.Load()
	return m == nil || !(*m)[name]
}

// A Pass is one run of the detectors on a question's frame and a
// candidate's context.
type Pass struct {
	Frame    *Frame
	Context  *Context
	Match    Matcher
	Weight   Weigher
	MinFocus float64
	// Result holds the focus shares, computed before the detectors run.
	Result *Result

	// around is the claim with its passage and heading; before the claim
	// with the passage before it (Context.Before); doc the document's
	// context; subject what the claim is about (around, or a row's label,
	// group and heading).
	around, before, doc, subject Text

	// addressed is the focus share counting the words that chose the
	// claim's document as stated (Context.Named); missing the rest
	addressed float64
	missing   []string

	current *Detector
	fired   map[*Detector]bool
}

// Report records a finding of the running detector.
func (p *Pass) Report(detail string) {
	p.fired[p.current] = true
	Fired(p.current.Name)
	p.Result.Findings = append(p.Result.Findings, Finding{Rule: p.current.Name, Check: p.current.Family(), Claim: p.Context.Claim, Detail: detail})
}

// Reportf records a finding of the running detector, formatted.
func (p *Pass) Reportf(format string, args ...any) { p.Report(fmt.Sprintf(format, args...)) }

// Fired reports whether d, which the running detector requires, reported
// a finding on this pass.
func (p *Pass) Fired(d *Detector) bool {
	if !slices.Contains(p.current.Requires, d) {
		panic("relevance: " + p.current.Name + " reads " + d.Name + " without requiring it")
	}
	return p.fired[d]
}

// run runs the enabled detectors of this package, in registration order
// (a detector's requirements are registered before it).
func (p *Pass) run() {
	p.fired = map[*Detector]bool{}
	for _, d := range registry {
		if d.Run == nil || !Enabled(d.Name) {
			continue
		}
		p.current = d
		d.Run(p)
	}
	p.current = nil
}
