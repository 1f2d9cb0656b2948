package relevance

import (
	"strings"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// kindWords are the stems of the words by which a question asks for what
// a part of each identifying kind states (internal/wordlists/
// kind_questions.txt).
var kindWords = func() map[schema.SectionKind]map[string]bool {
	out := map[schema.SectionKind]map[string]bool{}
	for _, l := range wordlists.Lines("kind_questions") {
		kind, words, ok := strings.Cut(l, ":")
		if !ok {
			panic("relevance: kind_questions.txt: no colon in " + l)
		}
		out[schema.SectionKind(strings.TrimSpace(kind))] = textproc.StemSet(strings.Fields(strings.ToLower(words)))
	}
	return out
}()

// asksForKind reports whether the question uses a word by which one asks
// for what a part of kind k states ("Who signed …" of a signature block).
// The words that name the claim's document (named: Context.Named) do not
// ask for it, nor does a word that opens one of them: in "the Supply
// Agreement between Acme and Globex", neither "agreement" nor "between"
// asks for the preamble.
func (f Frame) asksForKind(k schema.SectionKind, named string) bool {
	words := kindWords[k]
	isNamed := textproc.StemSet(textproc.Tokens(named))
	toks := textproc.Tokens(f.Question)
	for i, t := range toks {
		st := textproc.Stem(t)
		opens := i+1 < len(toks) && isNamed[textproc.Stem(toks[i+1])]
		if words[st] && !isNamed[st] && !opens {
			return true
		}
	}
	return false
}

// kindDetector reports a candidate from a section of kind k when the
// question does not ask for what such a part states.
func kindDetector(k schema.SectionKind, doc string) *Detector {
	return Register(&Detector{
		Name: "kind." + string(k),
		Doc:  doc,
		Run: func(p *Pass) {
			if p.Context.Kind == k && !p.Frame.asksForKind(k, p.Context.Named) {
				p.Reportf("the answer is drawn from the document's %s, which names its parties and dates, not what the question asks", strings.ReplaceAll(string(k), "-", " "))
			}
		},
	})
}

// The kind detectors read the section kind retrieval gives a candidate's
// section (Context.Kind).
var (
	KindPreamble       = kindDetector(schema.KindPreamble, "the answer is drawn from the preamble and the question does not ask for its parties, date or title")
	KindRecitals       = kindDetector(schema.KindRecitals, "the answer is drawn from the recitals and the question does not ask for the background or purpose")
	KindSignature      = kindDetector(schema.KindSignature, "the answer is drawn from a signature block and the question does not ask who signed")
	KindTOC            = kindDetector(schema.KindTOC, "the answer is drawn from a table of contents and the question does not ask where a part is")
	KindHeaderFooter   = kindDetector(schema.KindHeaderFooter, "the answer is drawn from a running header or footer")
	KindCover          = kindDetector(schema.KindCover, "the answer is drawn from a cover page and the question does not ask for the document's title or filer")
	KindCertification  = kindDetector(schema.KindCertification, "the answer is drawn from a certification and the question does not ask who certified")
	KindCrossReference = kindDetector(schema.KindCrossReference, "the answer is drawn from a cross-reference and the question does not ask what is referred to")
)
