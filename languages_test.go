package docmind_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/schema"
)

// languageCases are questions in German and French over a contract in
// each (testdata/languages), with the section that answers, the model's
// answer and the words of it the model quotes.
var languageCases = []struct {
	dir, question, title, answer, quote string
}{
	{"testdata/languages/de", "Wie hoch ist die monatliche Vergütung?", "Vergütung",
		"Der Auftraggeber zahlt eine monatliche Vergütung von 12.000 EUR.", "monatliche Vergütung von 12.000 EUR"},
	{"testdata/languages/de", "Mit welcher Frist kann der Vertrag gekündigt werden?", "Kündigung",
		"Der Vertrag kann mit einer Frist von drei Monaten zum Quartalsende gekündigt werden.", "mit einer Frist von drei Monaten zum Quartalsende gekündigt"},
	{"testdata/languages/fr", "Quel est le montant de la rémunération mensuelle ?", "Rémunération",
		"Le Client verse une rémunération mensuelle de 12 000 EUR.", "une rémunération mensuelle de 12 000 EUR"},
	{"testdata/languages/fr", "Quel est le préavis de résiliation ?", "Résiliation",
		"Le contrat peut être résilié moyennant un préavis de trois mois.", "moyennant un préavis de trois mois"},
}

func loadDir(t *testing.T, dir string) []schema.Section {
	t.Helper()
	secs, _, err := docmind.LoadDocuments(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return secs
}

// answeringPipeline is an LLM-mode pipeline over secs, through the real
// client, whose scripted model decomposes the question as itself, answers
// it with answer citing the section titled title (or abstains when that
// section is not in its prompt), and accepts the answer, quoting quote.
func answeringPipeline(t *testing.T, secs []schema.Section, question, title, answer, quote string) *docmind.Pipeline {
	t.Helper()
	srv := openaitest.New(t)
	dec, _ := json.Marshal(map[string]any{"intent": "general", "sub_queries": []string{question}, "entities": []string{},
		"constraints": []string{}, "temporals": []string{}, "key_terms": []string{}})
	srv.Always(openaitest.RouteDecomposition, openaitest.Reply{Content: string(dec)})
	srv.Respond(func(req openaitest.Request) openaitest.Reply {
		id := sectionID(req.Text(), title)
		if id == "" {
			return openaitest.Reply{Content: "The documents do not say."}
		}
		if req.Route == openaitest.RouteGenerate {
			return openaitest.Reply{Content: answer + " [" + id + "]."}
		}
		v, _ := json.Marshal(map[string]any{"claims": []any{map[string]any{"claim": answer, "section_id": id, "quote": quote,
			"supported": true, "contradiction": "", "reason": ""}}, "is_hallucinated": false, "confidence_score": 0.95,
			"reasoning": "the section states it", "irrelevant_sections": []string{}})
		return openaitest.Reply{Content: string(v)}
	})
	model, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithAPIKey("test"), openai.WithModel("gpt-4o-mini"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := docmind.New(docmind.WithSections(secs), docmind.WithLLM(model), docmind.WithModelNames("gpt-4o-mini", ""))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// With an LLM, a question in German or French over documents in that
// language is answered in one pass when the model answers it and its
// judge accepts the answer: the judge's deterministic guards on top of
// the model read a question's capitals as names only in English (German
// writes every noun with one; "Wie" and "Quel" open a question), so they
// no longer refuse every such answer as "about Wie, which the passage
// never names". Through the real client to a scripted server.
func TestQuestionsInOtherLanguagesLLMMode(t *testing.T) {
	for _, c := range languageCases {
		t.Run(c.question, func(t *testing.T) {
			p := answeringPipeline(t, loadDir(t, c.dir), c.question, c.title, strings.TrimSuffix(c.answer, "."), c.quote)
			st, err := p.Run(context.Background(), c.question)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSuffix(c.answer, ".") + fmt.Sprintf(" (See %s, page n/a).", c.title)
			if st.Answer() != want || st.RetryCount != 0 {
				t.Errorf("answer %q after %d retries, want %q; verdict: %s", st.Answer(), st.RetryCount, want, st.JudgeVerdict.Reasoning)
			}
		})
	}
}

// Offline, a question in another language than English is refused with
// the rule that says why (question.language), and the refusal points at
// the passage that answers: the search leaves out the question's
// function words ("wie", "ist", "die"), which every section of a German
// document states.
func TestQuestionsInOtherLanguagesOffline(t *testing.T) {
	for _, c := range languageCases {
		t.Run(c.question, func(t *testing.T) {
			p, err := docmind.New(docmind.WithSections(loadDir(t, c.dir)))
			if err != nil {
				t.Fatal(err)
			}
			st, err := p.Run(context.Background(), c.question)
			if err != nil {
				t.Fatal(err)
			}
			if st.Answer() != schema.FallbackMessage {
				t.Fatalf("answer %q, want the refusal", st.Answer())
			}
			rules := []string{}
			for _, f := range st.JudgeVerdict.Findings {
				rules = append(rules, f.Rule)
			}
			if !strings.Contains(strings.Join(rules, " "), "question.language") {
				t.Errorf("findings %v lack question.language", rules)
			}
			lang := map[string]string{"testdata/languages/de": "German", "testdata/languages/fr": "French"}[c.dir]
			if !strings.Contains(st.JudgeVerdict.Reasoning, "the question is in "+lang) {
				t.Errorf("reasoning %q does not name %s", st.JudgeVerdict.Reasoning, lang)
			}
			if len(st.ClosestPassages) == 0 || st.ClosestPassages[0].Title != c.title {
				t.Errorf("closest passages %+v, want %q first", st.ClosestPassages, c.title)
			}
		})
	}
}
