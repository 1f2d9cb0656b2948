package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/internal/redact"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/threads"
)

// AskRequest is the body of POST /api/v1/ask.
type AskRequest struct {
	// Question is the question (required, at most MaxQuestionBytes).
	Question string `json:"question"`
	// Thread is the conversation to ask in: a follow-up is rewritten
	// into a standalone question from its earlier questions. Empty: a
	// new thread "api-…".
	Thread string `json:"thread,omitempty"`
	// Review pauses an answer the judge is not confident about for human
	// review (finish it with POST runs/{id}/resume).
	Review bool `json:"review,omitempty"`
}

// Outcome is the JSON of a question's outcome (POST ask, POST
// runs/{id}/resume, the "result" event): threads.Outcome — the state's
// fields, "run" beside them and "error" when the run failed, as
// docmind ask --json prints it — and the answer's citations.
type Outcome struct {
	threads.Outcome
	// Citations are the sections the answer cites (none for the fallback
	// message or a run awaiting review).
	Citations []Citation `json:"citations"`
}

// Citation is a section an answer cites, with the passages the judge
// checked the answer's claims against.
type Citation struct {
	// SectionID is the section's id (GET /api/v1/sections/{id}).
	SectionID string `json:"section_id,omitempty"`
	Title     string `json:"title"`
	Source    string `json:"source"`
	Page      int    `json:"page"`
	PageEnd   int    `json:"page_end,omitempty"`
	// PageRef is the page as answers cite it ("page 8", "pages 8–9").
	PageRef string `json:"page_ref"`
	// Quotes are the passages of the section that support the answer.
	Quotes []Quote `json:"quotes,omitempty"`
}

// Quote is a passage of a section with its byte offsets in the section's
// content: content[start:end] == text.
type Quote struct {
	Text  string `json:"text"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// citations returns the citations of a run's answer.
func citations(st *schema.State) []Citation {
	out := []Citation{}
	if !st.Answered() {
		return out
	}
	var evidence []*schema.Evidence
	var claims []string
	if v := st.JudgeVerdict; v != nil {
		for _, c := range v.Claims {
			if c.Supported && c.Evidence != nil {
				evidence = append(evidence, c.Evidence)
				claims = append(claims, c.Claim)
			}
		}
	}
	for _, sec := range st.CitedSections() {
		c := Citation{SectionID: sec.ID, Title: sec.Title, Source: sec.Source, Page: sec.Page, PageEnd: sec.PageEnd, PageRef: sec.PageRef()}
		seen := map[string]bool{}
		for k, ev := range evidence {
			same := ev.SectionID == sec.ID
			if ev.SectionID == "" || sec.ID == "" {
				same = ev.Title == sec.Title && ev.Source == sec.Source
			}
			if !same || seen[ev.Quote] {
				continue
			}
			i := strings.Index(sec.Content, ev.Quote)
			if rs, re, ok := rowSpan(sec.Content, claims[k]); ok && (i < 0 || i <= rs && re <= i+len(ev.Quote)) {
				// the claim is a table row stated with its headers: the
				// row's cells, not the whole table the evidence quotes
				seen[ev.Quote] = true
				c.Quotes = append(c.Quotes, Quote{Text: sec.Content[rs:re], Start: rs, End: re})
			} else if i >= 0 && ev.Quote != "" {
				seen[ev.Quote] = true
				c.Quotes = append(c.Quotes, Quote{Text: ev.Quote, Start: i, End: i + len(ev.Quote)})
			} else if i, j, ok := rowSpan(sec.Content, ev.Quote); ok {
				// a table row stated with its headers: the row's cells
				seen[ev.Quote] = true
				c.Quotes = append(c.Quotes, Quote{Text: sec.Content[i:j], Start: i, End: j})
			}
		}
		out = append(out, c)
	}
	return out
}

// deadlineError is why a run stopped at the server's run timeout.
type deadlineError struct{ d time.Duration }

func (e *deadlineError) Error() string {
	return fmt.Sprintf("the run did not finish within the server's run timeout (%s)", e.d)
}

// runFunc runs (or resumes) one question under ctx.
type runFunc func(ctx context.Context) (*threads.Result, error)

// run runs a question under the run timeout, sending its events to sink
// when not nil. The caller holds a run slot.
// Server.Shutdown interrupts it.
func (s *Server) run(ctx context.Context, run runFunc, sink func(schema.Event)) (*threads.Result, error) {
	// a client that goes away interrupts its run, as a shutdown does: the
	// ledger keeps it resumable rather than failed
	ctx, stopClient := interruptedWith(ctx, errClientGone)
	defer stopClient()
	ctx, stop := s.interruptible(ctx)
	defer stop()
	ctx, cancel := context.WithTimeoutCause(ctx, s.cfg.RunTimeout, &deadlineError{s.cfg.RunTimeout})
	defer cancel()
	if sink != nil {
		ctx = withEvents(ctx, sink)
	}
	res, err := run(ctx)
	if err != nil && ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
			err = fmt.Errorf("%w (%w)", cause, err)
		}
	}
	return res, err
}

// errClientGone is why a run stopped when its client disconnected.
var errClientGone = fmt.Errorf("the client went away: %w", threads.ErrInterrupted)

// interruptedWith returns a context with ctx's values that ends when ctx
// does: with cause when ctx was cancelled without one of its own (a
// request whose client disconnected), else with ctx's cause (its
// deadline); stop releases it.
func interruptedWith(ctx context.Context, cause error) (context.Context, func()) {
	out, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	unhook := context.AfterFunc(ctx, func() {
		c := context.Cause(ctx)
		if c == context.Canceled {
			c = cause
		}
		cancel(c)
	})
	return out, func() { unhook(); cancel(nil) }
}

// respond runs a question and answers with its Outcome: as one JSON
// object, or, when the client accepts text/event-stream, as server-sent
// events (node_start, node_end, token, retry, verdict, then result, or
// error when the run did not start). The run slot is taken first, so
// that a busy server answers 429 before any stream starts.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, run runFunc) {
	release, ok := s.slot(w, r)
	if !ok {
		return
	}
	defer release()
	if !wantsEvents(r) {
		res, err := s.run(r.Context(), run, nil)
		status, body := s.outcome(res, err)
		writeJSON(w, status, body)
		return
	}
	out, stop := startStream(w)
	defer stop()
	res, err := s.run(r.Context(), run, pipelineEvents(out))
	_, body := s.outcome(res, err)
	if res != nil && res.State != nil && res.State.JudgeVerdict != nil {
		out.event("verdict", s.showState(res.State).JudgeVerdict)
	}
	if _, plain := body.(errorBody); plain {
		out.event("error", body)
		return
	}
	out.event("result", body)
}

// outcome returns the status and JSON of a run's result.
func (s *Server) outcome(res *threads.Result, err error) (int, any) {
	if err == nil {
		out := Outcome{Outcome: threads.OutcomeOf(res, ""), Citations: citations(res.State)}
		s.showOutcome(&out)
		return http.StatusOK, out
	}
	msg := redact.String(oneLine(err.Error()))
	status := errorStatus(err)
	if status >= 500 && status != http.StatusGatewayTimeout && status != http.StatusServiceUnavailable {
		s.cfg.Logger.Error("server: run failed", "err", msg)
	}
	if res == nil {
		return status, errorBody{Error: msg}
	}
	out := Outcome{Outcome: threads.OutcomeOf(res, msg), Citations: []Citation{}}
	s.showOutcome(&out)
	return status, out
}

// showCitations shows the sources of citations as the API shows them.
func (s *Server) showCitations(cs []Citation) []Citation {
	for i := range cs {
		cs[i].Source = s.Show(cs[i].Source)
	}
	return cs
}

// showOutcome shows the document paths of an outcome as the API shows
// them (Server.show: an upload by its name, not its absolute path). The
// run ledger keeps the paths as they are.
func (s *Server) showOutcome(out *Outcome) {
	s.showCitations(out.Citations)
	out.State = s.showState(out.State)
}

// showState returns a copy of st with its document paths shown as the
// API shows them: the retrieved sections' and evidence's sources and the
// section keys that begin with them.
func (s *Server) showState(st *schema.State) *schema.State {
	if st == nil {
		return nil
	}
	st = st.Clone()
	for i := range st.RetrievedSections {
		st.RetrievedSections[i].Source = s.Show(st.RetrievedSections[i].Source)
	}
	showKeys := func(keys []string) []string {
		shown := make([]string, len(keys))
		for i, k := range keys {
			if src, rest, ok := strings.Cut(k, "#"); ok {
				k = s.Show(src) + "#" + rest
			}
			shown[i] = k
		}
		return shown
	}
	st.ExcludedSections = showKeys(st.ExcludedSections)
	if v := st.JudgeVerdict; v != nil {
		v.RejectedSections = showKeys(v.RejectedSections)
		for _, c := range v.Claims {
			if c.Evidence != nil {
				c.Evidence.Source = s.Show(c.Evidence.Source)
			}
		}
		for i := range v.Conflicts {
			c := &v.Conflicts[i]
			c.Source.Source, c.OtherSource.Source = s.Show(c.Source.Source), s.Show(c.OtherSource.Source)
		}
		// the judge's reasoning names sources by path
		if s.cfg.UploadDir != "" {
			v.Reasoning = strings.ReplaceAll(v.Reasoning, filepath.Clean(s.cfg.UploadDir)+string(filepath.Separator), "uploads/")
		}
	}
	return st
}

// errorStatus maps an error of the pipeline or the ledger to a status.
func errorStatus(err error) int {
	var de *deadlineError
	switch {
	case errors.As(err, &de):
		return http.StatusGatewayTimeout
	case errors.Is(err, schema.ErrEmptyQuery):
		return http.StatusBadRequest
	case errors.Is(err, checkpoint.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, threads.ErrInterrupted):
		return http.StatusServiceUnavailable
	case errors.Is(err, threads.ErrAwaitingReview), errors.Is(err, threads.ErrRunBusy):
		return http.StatusConflict
	case errors.Is(err, context.Canceled):
		// the client went away
		return 499
	case strings.Contains(err.Error(), "prefix matches"):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// ask answers POST /api/v1/ask.
func (s *Server) ask(w http.ResponseWriter, r *http.Request) {
	var req AskRequest
	if !s.decodeJSON(w, r, &req, true) {
		return
	}
	q := strings.TrimSpace(req.Question)
	switch {
	case q == "":
		writeError(w, http.StatusBadRequest, `"question" is required, e.g. {"question": "What are the late payment penalties?"}`)
		return
	case len(q) > MaxQuestionBytes:
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("question too long: at most %d KiB", MaxQuestionBytes>>10))
		return
	}
	thread := req.Thread
	if thread == "" {
		thread = "api-" + threads.NewRunID()[:8]
	} else if !validID(w, "thread", thread) {
		return
	}
	s.respond(w, r, func(ctx context.Context) (*threads.Result, error) {
		return s.cfg.Manager.Ask(ctx, thread, q, threads.WithReview(req.Review))
	})
}

// ResumeRequest is the body of POST /api/v1/runs/{id}/resume.
type ResumeRequest struct {
	// Approve finishes a run awaiting review: true returns its draft
	// answer, false the fallback message. Absent: an interrupted or
	// failed run continues from its last completed node.
	Approve *bool `json:"approve,omitempty"`
	// Note is the reviewer's note, recorded with the run.
	Note string `json:"note,omitempty"`
}

// resume answers POST /api/v1/runs/{id}/resume.
func (s *Server) resume(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !validID(w, "run", id) {
		return
	}
	var req ResumeRequest
	if r.ContentLength != 0 && !s.decodeJSON(w, r, &req, true) {
		return
	}
	if req.Note != "" && req.Approve == nil {
		writeError(w, http.StatusBadRequest, `"note" goes with "approve": true or false`)
		return
	}
	m := s.cfg.Manager
	run, err := m.Store().Run(r.Context(), id)
	if err != nil {
		s.lookupError(w, id, err)
		return
	}
	awaiting := run.Status == checkpoint.StatusAwaitingReview
	switch {
	case req.Approve != nil && !awaiting:
		writeError(w, http.StatusConflict, fmt.Sprintf("run %s is %s, not awaiting review", run.ID, run.Status))
		return
	case req.Approve == nil && awaiting:
		writeError(w, http.StatusConflict, fmt.Sprintf(`run %s is waiting for review: send {"approve": true} or {"approve": false}`, run.ID))
		return
	}
	s.respond(w, r, func(ctx context.Context) (*threads.Result, error) {
		switch {
		case req.Approve == nil:
			return m.Resume(ctx, run.ID)
		case *req.Approve:
			return m.Approve(ctx, run.ID, req.Note)
		default:
			return m.Reject(ctx, run.ID, req.Note)
		}
	})
}

// lookupError answers a failed lookup of run id.
func (s *Server) lookupError(w http.ResponseWriter, id string, err error) {
	status := errorStatus(err)
	msg := oneLine(err.Error())
	if status == http.StatusNotFound {
		msg = fmt.Sprintf("no run %q in the run ledger (GET /api/v1/runs lists them)", id)
	}
	if status >= 500 {
		s.cfg.Logger.Error("server: read run", "id", id, "err", msg)
	}
	writeError(w, status, msg)
}

// listRuns answers GET /api/v1/runs[?thread=T&status=S&limit=N]: the runs
// as docmind runs ls --json prints them, oldest first.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := checkpoint.RunFilter{Thread: q.Get("thread"), Status: checkpoint.Status(q.Get("status"))}
	if f.Thread != "" && !validID(w, "thread", f.Thread) {
		return
	}
	switch f.Status {
	case "", checkpoint.StatusRunning, checkpoint.StatusInterrupted, checkpoint.StatusAwaitingReview, checkpoint.StatusDone, checkpoint.StatusFailed:
	default:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("status=%q: want running, interrupted, awaiting_review, done or failed", f.Status))
		return
	}
	limit, ok := queryInt(w, r, "limit", 100, 10000)
	if !ok {
		return
	}
	f.Limit = limit
	runs, err := s.cfg.Manager.Store().Runs(r.Context(), f)
	if err != nil {
		s.internal(w, "list runs", err)
		return
	}
	if runs == nil {
		runs = []checkpoint.Run{}
	}
	writeJSON(w, http.StatusOK, runs)
}

// showRun answers GET /api/v1/runs/{id}: the run and every step's state,
// as docmind runs show --json prints them.
func (s *Server) showRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !validID(w, "run", id) {
		return
	}
	run, cps, err := s.cfg.Manager.History(r.Context(), id)
	if err != nil {
		s.lookupError(w, id, err)
		return
	}
	if cps == nil {
		cps = []checkpoint.Checkpoint{}
	}
	writeJSON(w, http.StatusOK, threads.RunRecord{Run: run, Steps: cps})
}

// internal answers 500 for an unexpected error, logged on the server.
func (s *Server) internal(w http.ResponseWriter, what string, err error) {
	writeJSON(w, http.StatusInternalServerError, s.internalError(what, err))
}

// internalError logs an unexpected error and returns the one line a
// client gets for it.
func (s *Server) internalError(what string, err error) errorBody {
	msg := redact.String(oneLine(err.Error()))
	s.cfg.Logger.Error("server: "+what, "err", msg)
	return errorBody{Error: oneLine(what + ": " + msg)}
}
