package judge

import "github.com/docmind/docmind/relevance"

// The judge's detectors: the guards and fact checks it runs on a whole
// answer against its sources, and the decisions it takes on the answer as
// a whole. They are registered with package relevance's (Run nil: the
// judge runs them), so that `docmind rules` lists every rule, a verdict's
// findings name them, and relevance.Disable switches them off.
var (
	RuleNumberMismatch = judgeRule("number.mismatch", IssueContradiction, "a figure (number, percentage, amount, duration, date) of the answer differs from the same kind of figure in its source")
	RuleNumberUnstated = judgeRule("number.unstated", IssueUnsupportedFact, "a figure of the answer is not stated in its source")
	RuleCitation       = judgeRule("citation.unknown", IssueBadCitation, "a citation names no retrieved section, or the wrong page")
	RuleQuote          = judgeRule("quote.missing", IssueQuoteNotFound, "a quotation of the answer is not in its source")
	RuleSupport        = judgeRule("support.low", IssueUnsupported, "no passage of the sections covers enough of the claim's terms")
	RuleUnaddressed    = judgeRule("terms.unaddressed", IssueUnaddressed, "the sections the answer rests on never mention the question's key terms")
	RuleAbstention     = judgeRule("answer.abstention", IssueAbstention, "the answer says the documents do not address the question")
	RuleEmpty          = judgeRule("answer.empty", IssueEmpty, "the answer has no statement to check")
	RuleInstruction    = judgeRule("injection.instruction", IssueInstruction, "the answer is, or rests on, an instruction to the reader or the model, not a statement of the documents")
	RuleNovel          = judgeRule("novelty.terms", IssueNovelContent, "the answer uses terms that no retrieved section states")

	RuleUnanswered     = register("question.unanswered", "no claim of the answer passes the relevance detectors: the answer does not answer the question")
	RulePartUnanswered = register("question.part-unanswered", "a part of a question of several parts is answered by no claim")
	RuleAsksNothing    = register("question.empty", "the question names nothing an answer could address: no word of more than one letter, name, period or number")
	RuleLanguage       = register("question.language", "the question is in another language than English, which the offline judge's rules do not read")
	RuleConflict       = register("conflict.figures", "another retrieved section states a figure of the answer differently for the same thing, and the answer does not say so")
	RuleLowConfidence  = register("confidence.low", "the calibrated confidence that the answer is right is below the threshold")
)

// kindRules maps an issue kind to the rule that reports it.
var kindRules = map[IssueKind]string{}

func register(name, doc string) string {
	return relevance.Register(&relevance.Detector{Name: name, Doc: doc}).Name
}

func judgeRule(name string, k IssueKind, doc string) string {
	kindRules[k] = name
	return register(name, doc)
}

// KindRule returns the ID of the rule that reports issues of kind k; an
// off-question issue names its relevance detector (Issue.Rule).
func KindRule(k IssueKind) string {
	if r, ok := kindRules[k]; ok {
		return r
	}
	return RuleUnanswered
}
