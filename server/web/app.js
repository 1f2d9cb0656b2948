// DocMind's web page: plain JavaScript over the JSON API of docmind serve
// (/api/v1/). No build step, no library, nothing fetched from elsewhere.
"use strict";

const $ = (id) => document.getElementById(id);

// el builds an element: el("p", {class: "x"}, "text", child, ...).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else if (k === "style") Object.assign(e.style, v); // CSSOM: allowed by the page's CSP
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

const state = {
  thread: newThreadID(),
  documents: [], // GET /api/v1/documents
  busy: false,
};

function newThreadID() {
  const b = new Uint8Array(4);
  crypto.getRandomValues(b);
  return "web-" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

// ---- API ----

const tokenKey = "docmind-token";

// The URL docmind serve prints carries the token after "#token=" (a
// fragment: it never reaches a server or a log): keep it for this tab and
// take it out of the address bar.
{
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem(tokenKey, decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
}

// api calls the API with the token, if one was given; a 401 asks for it.
async function api(path, opts = {}) {
  const headers = new Headers(opts.headers || {});
  const token = sessionStorage.getItem(tokenKey);
  if (token) headers.set("Authorization", "Bearer " + token);
  const res = await fetch(path, { ...opts, headers });
  if (res.status === 401) {
    $("token-form").hidden = false;
    $("token").focus();
  }
  return res;
}

// apiJSON calls the API and returns its JSON, or throws its error line.
async function apiJSON(path, opts) {
  const res = await api(path, opts);
  let body;
  try {
    body = await res.json();
  } catch {
    body = { error: `${res.status} ${res.statusText}` };
  }
  if (!res.ok) throw new Error(body.error || `${res.status} ${res.statusText}`);
  return body;
}

function postJSON(path, body, accept) {
  const headers = { "Content-Type": "application/json" };
  if (accept) headers.Accept = accept;
  return api(path, { method: "POST", headers, body: JSON.stringify(body) });
}

// eventParser returns a function fed the text of an event stream as it
// arrives, calling onEvent(name, data) for each complete event.
function eventParser(onEvent) {
  let buf = "";
  return (text) => {
    buf += text;
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      if (data.length) onEvent(name, JSON.parse(data.join("\n")));
    }
  };
}

// readEvents reads a text/event-stream response, calling onEvent(name,
// data) for each event.
async function readEvents(res, onEvent) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const feed = eventParser(onEvent);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    feed(value);
  }
}

// ---- asking ----

// Turn is one question and its answer in the transcript.
class Turn {
  constructor(question) {
    this.drafts = []; // per attempt: {box, text}
    this.progress = el("p", { class: "progress" }, "Starting…");
    this.draftsBox = el("div", { class: "drafts" });
    this.answerBox = el("div", { class: "answer-box" });
    this.node = el("article", { class: "turn" },
      el("h3", { class: "question" }, question),
      this.progress, this.draftsBox, this.answerBox);
    $("transcript").append(this.node);
  }

  draft(attempt) {
    if (!this.drafts[attempt]) {
      const text = el("span", { class: "draft-text" });
      const box = el("div", { class: "draft streaming" },
        el("p", { class: "label" }, attempt > 0 ? `Draft, attempt ${attempt + 1}` : "Draft"), text);
      this.draftsBox.append(box);
      this.drafts[attempt] = { box, text, rejected: false };
    }
    return this.drafts[attempt];
  }

  token(t) {
    this.draft(t.attempt).text.append(t.token);
  }

  // reject strikes a draft through, with the judge's reason.
  reject(attempt, reason) {
    const d = this.drafts[attempt];
    if (!d || d.rejected) return;
    d.rejected = true;
    d.box.classList.remove("streaming");
    d.box.classList.add("rejected");
    const del = el("del", { class: "draft-text" }, d.text.textContent);
    d.text.replaceWith(del);
    d.text = del;
    d.box.querySelector(".label").textContent = `Rejected draft (attempt ${attempt + 1})`;
    d.box.append(el("p", { class: "why" }, "Why: ", reason || "the judge did not accept it"));
  }

  // done shows an outcome (POST ask's JSON or the result event).
  done(out) {
    this.progress.remove();
    const verdict = out.judge_verdict;
    const run = out.run || {};
    const answered = run.outcome === "answered" || (!run.outcome && verdict && verdict.should_return);
    if (!this.drafts.length && out.generated_response) {
      this.draft(out.retry_count || 0).text.append(out.generated_response);
    }
    for (const d of this.drafts) if (d) d.box.classList.remove("streaming");
    const last = this.drafts.length - 1;
    if (!answered && last >= 0 && verdict && run.status === "done") {
      this.reject(last, oneLine(verdict.reasoning));
    }
    if (answered) this.draftsBox.classList.add("folded");
    this.answerBox.replaceChildren();
    if (out.error) {
      this.answerBox.append(el("p", { class: "error", role: "alert" }, out.error));
    }
    if (run.status === "awaiting_review") {
      this.answerBox.append(el("p", { class: "pending" },
        "Held for review: the judge was not confident. Approve or reject it in the review queue."));
      const drafted = citedIn(out, out.generated_response || "");
      if (drafted.length) this.answerBox.append(...sourceList("Sources of the draft", drafted, "citations review-sources"));
    } else if (out.final_output) {
      this.answerBox.append(answered
        ? renderMarkdown(out.final_output, out.citations || [], "answer")
        : el("p", { class: "answer fallback" }, out.final_output));
    }
    if (verdict) this.answerBox.append(verdictLine(verdict));
    if (verdict && !answered && run.status !== "awaiting_review") this.answerBox.append(...refusalLines(verdict));
    const cites = out.citations || [];
    if (cites.length) this.answerBox.append(...sourceList("Sources", cites));
    const closest = answered ? [] : out.closest_passages || [];
    if (closest.length && run.status !== "awaiting_review") {
      this.answerBox.append(...sourceList("Closest passages found (not verified)", closest, "citations closest"),
        el("p", { class: "hint" }, "The judge accepted no answer from these passages: read them to check for yourself."));
    }
    if (run.id) {
      this.answerBox.append(el("p", { class: "meta" }, `Run ${run.id} · ${run.status}${run.review_decision ? " · " + run.review_decision : ""}`));
    }
    this.node.scrollIntoView({ block: "nearest" });
  }

  fail(msg) {
    this.progress.remove();
    this.answerBox.replaceChildren(el("p", { class: "error", role: "alert" }, msg));
  }
}

// ---- Markdown ----
// Answers are Markdown: paragraphs (a single newline is a line break),
// "-", "*" or "1." lists, "|" tables, **bold**, *emphasis* and `code`.
// The page builds elements and text nodes only, never HTML from the
// answer, so nothing in an answer can inject markup or script.
// Citation markers "(See Title, page 8; Other, page 9)" become links that
// open the viewer at the cited source.

const listItemRE = /^\s*(?:[-*+]|\d+[.)])\s+/;
const tableRowRE = /^\s*\|.*\|\s*$/;
const tableRuleRE = /^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function renderMarkdown(text, cites, cls) {
  const box = el("div", { class: cls });
  const lines = String(text || "").replace(/\r\n?/g, "\n").split("\n");
  let para = [];
  const flush = () => {
    if (!para.length) return;
    const p = el("p", {});
    para.forEach((line, i) => {
      if (i) p.append(el("br"));
      p.append(...inline(line, cites));
    });
    box.append(p);
    para = [];
  };
  for (let i = 0; i < lines.length; ) {
    const line = lines[i];
    if (!line.trim()) {
      flush();
      i++;
    } else if (tableRowRE.test(line) && i + 1 < lines.length && tableRuleRE.test(lines[i + 1])) {
      flush();
      const cells = (l) => l.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
      const head = el("tr", {}, ...cells(line).map((c) => el("th", { scope: "col" }, ...inline(c, cites))));
      const body = el("tbody");
      i += 2;
      while (i < lines.length && tableRowRE.test(lines[i])) {
        body.append(el("tr", {}, ...cells(lines[i]).map((c) => el("td", {}, ...inline(c, cites)))));
        i++;
      }
      box.append(el("div", { class: "table-wrap" }, el("table", {}, el("thead", {}, head), body)));
    } else if (listItemRE.test(line)) {
      flush();
      const ordered = /^\s*\d/.test(line);
      const list = el(ordered ? "ol" : "ul");
      while (i < lines.length && listItemRE.test(lines[i])) {
        list.append(el("li", {}, ...inline(lines[i].replace(listItemRE, ""), cites)));
        i++;
      }
      box.append(list);
    } else if (/^#{1,6}\s/.test(line)) {
      flush();
      box.append(el("p", { class: "md-heading" }, el("strong", {}, ...inline(line.replace(/^#+\s*/, ""), cites))));
      i++;
    } else {
      para.push(line);
      i++;
    }
  }
  flush();
  return box;
}

// inline renders a line's emphasis, code and citation markers as nodes.
function inline(text, cites) {
  const out = [];
  const re = /\*\*([^*]+)\*\*|`([^`]+)`|\*([^*\s][^*]*)\*|\(See ([^()]*(?:\([^()]*\)[^()]*)*)\)/g;
  let at = 0;
  let m;
  while ((m = re.exec(text))) {
    if (m.index > at) out.push(text.slice(at, m.index));
    if (m[1] !== undefined) out.push(el("strong", {}, m[1]));
    else if (m[2] !== undefined) out.push(el("code", {}, m[2]));
    else if (m[3] !== undefined) out.push(el("em", {}, m[3]));
    else out.push(citationMarker(m[0], m[4], cites));
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

// citationMarker renders "(See A, page 8; B, page 9)" with each reference
// that names a source of the answer as a link to the viewer.
function citationMarker(whole, refs, cites) {
  if (!cites || !cites.length) return whole;
  const span = el("span", { class: "cite-ref" }, "(See ");
  refs.split(";").forEach((ref, i) => {
    if (i) span.append(";");
    const lead = ref.match(/^\s*/)[0];
    const r = ref.trim();
    const c = cites.find((x) => `${x.title}, ${x.page_ref}` === r);
    if (lead) span.append(lead);
    if (!c) {
      span.append(r);
      return;
    }
    const a = el("a", { href: `#section-${c.section_id}`, class: "cite-marker", "data-section": c.section_id }, r);
    a.addEventListener("click", (e) => {
      e.preventDefault();
      openViewer(c);
    });
    span.append(a);
  });
  span.append(")");
  return span;
}

// pageText is a source's page as lists show it: the page as the answer
// cites it (the printed label), with the index in the file beside it where
// the two differ.
function pageText(c) {
  const ref = c.page_ref || (c.page ? `page ${c.page}` : "page n/a");
  if (!c.page || /PDF page/.test(ref) || ref === `page ${c.page}` || /^pages /.test(ref)) return ref;
  return `${ref} (PDF page ${c.page})`;
}

// sectionPageRef is schema.Section.PageRef in JavaScript: the page as
// answers cite it.
function sectionPageRef(s) {
  if (!s.page || s.page <= 0) return "page n/a";
  if (s.page_end > s.page && (s.page_label || "").includes("–")) return "pages " + s.page_label;
  if (s.page_end > s.page) return `pages ${s.page}–${s.page_end}`;
  if (s.page_label && s.page_label !== String(s.page)) return "page " + s.page_label;
  return `page ${s.page}`;
}

// sourceList is a titled list of links to the viewer.
function sourceList(heading, cites, cls) {
  return [el("h4", {}, heading),
    el("ol", { class: cls || "citations" }, ...cites.map((c) => el("li", {}, citationLink(c),
      ...(c.excerpt ? [el("blockquote", { class: "excerpt" }, c.excerpt)] : []))))];
}

function oneLine(s) {
  return String(s || "").replace(/\s+/g, " ").trim();
}

// verdictLine is the judge's verdict in one line.
function verdictLine(v) {
  const grounded = !v.is_hallucinated && v.should_return;
  const conf = typeof v.confidence_score === "number" ? v.confidence_score.toFixed(2) : "?";
  return el("p", { class: grounded ? "verdict grounded" : "verdict rejected" },
    el("strong", {}, grounded ? "Grounded" : "Not grounded"),
    ` · confidence ${conf} — `, el("span", { class: "reasoning" }, oneLine(v.reasoning)));
}

// refusalLines says why an answer was refused, one line per rule that
// decided: the rule's ID and what it found (the verdict's findings).
function refusalLines(v) {
  const byRule = new Map();
  for (const f of v.findings || []) {
    if (!byRule.has(f.rule)) byRule.set(f.rule, []);
    if (f.detail && !byRule.get(f.rule).includes(f.detail)) byRule.get(f.rule).push(f.detail);
  }
  if (!byRule.size) return [];
  return [el("h4", {}, "Why it was refused"),
    el("ul", { class: "refusal-rules" }, ...[...byRule].map(([rule, details]) =>
      el("li", {}, el("code", { class: "rule" }, rule), " ", oneLine(details.join("; ")))))];
}

// citationLink opens the viewer at the cited page.
function citationLink(c) {
  const name = c.source.split("/").pop();
  const a = el("a", { href: `#section-${c.section_id}`, class: "cite", "data-section": c.section_id, "data-page": c.page },
    `${c.title} — ${name}, ${pageText(c)}`);
  a.addEventListener("click", (e) => {
    e.preventDefault();
    openViewer(c);
  });
  return a;
}

async function ask(question) {
  state.busy = true;
  $("ask-button").disabled = true;
  const turn = new Turn(question);
  turn.node.scrollIntoView({ block: "nearest" });
  try {
    const res = await postJSON("/api/v1/ask",
      { question, thread: state.thread, review: $("review-box").checked }, "text/event-stream");
    const ct = res.headers.get("Content-Type") || "";
    if (!ct.startsWith("text/event-stream")) {
      const body = await res.json().catch(() => ({ error: `${res.status} ${res.statusText}` }));
      if (body.run) turn.done(body);
      else turn.fail(body.error || `${res.status} ${res.statusText}`);
      return;
    }
    let finished = false;
    await readEvents(res, (name, data) => {
      switch (name) {
        case "node_start":
          turn.progress.textContent = `${data.node}${data.attempt ? ` (attempt ${data.attempt + 1})` : ""}…`;
          break;
        case "token":
          turn.token(data);
          break;
        case "retry":
          turn.reject(data.attempt - 1, data.reason);
          break;
        case "result":
          finished = true;
          turn.done(data);
          break;
        case "error":
          finished = true;
          turn.fail(data.error);
          break;
      }
    });
    if (!finished) turn.fail("The answer stream ended early: the server stopped or the connection dropped.");
  } catch (err) {
    turn.fail(String(err.message || err));
  } finally {
    state.busy = false;
    $("ask-button").disabled = false;
    refreshSidebar();
  }
}

// ---- viewer ----

const viewer = { cite: null, doc: null, page: 0, first: 0, last: 0 };

async function documentFor(source) {
  let doc = state.documents.find((d) => d.path === source);
  if (!doc) {
    await refreshDocuments();
    doc = state.documents.find((d) => d.path === source);
  }
  return doc;
}

async function openViewer(cite) {
  const dlg = $("viewer");
  viewer.cite = cite;
  $("viewer-title").textContent = `${cite.title}, ${pageText(cite)}`;
  $("viewer-body").replaceChildren();
  $("viewer-status").textContent = "Loading…";
  if (!dlg.open) dlg.showModal();
  $("viewer-title").focus();
  try {
    // the section names its document as GET documents lists it
    const sec = await apiJSON(`/api/v1/sections/${encodeURIComponent(cite.section_id)}`);
    const doc = await documentFor(sec.source);
    viewer.doc = doc;
    if (doc && doc.format === "pdf") {
      viewer.first = 1;
      viewer.last = doc.pages;
      await showPage(cite.page || sec.page || 1);
    } else {
      viewer.first = viewer.last = 0;
      showSection(cite, sec);
    }
  } catch (err) {
    $("viewer-status").textContent = String(err.message || err);
  }
  updateNav();
}

function updateNav() {
  const pdf = viewer.first > 0;
  $("viewer-prev").hidden = $("viewer-next").hidden = !pdf;
  $("viewer-prev").disabled = !pdf || viewer.page <= viewer.first;
  $("viewer-next").disabled = !pdf || viewer.page >= viewer.last;
}

// showPage shows page n of the cited PDF with the quotes highlighted:
// the page's PNG, and the rectangles the server computed from PDFium's
// character boxes, in the PNG's pixels.
async function showPage(n) {
  const cite = viewer.cite;
  const doc = viewer.doc;
  viewer.page = n;
  // one numbering: the cited page as the answer cites it (with its index
  // in the file beside it where they differ); other pages by index
  const label = n === cite.page ? pageText(cite) : `PDF page ${n}`;
  $("viewer-title").textContent = `${cite.title} — ${doc.path.split("/").pop()}, ${label}`;
  $("viewer-status").textContent = `Loading page ${n}…`;
  const base = `/api/v1/documents/${doc.id}/pages/${n}`;
  const imgRes = await api(base);
  if (!imgRes.ok) {
    const body = await imgRes.json().catch(() => ({}));
    throw new Error(body.error || `page ${n}: ${imgRes.status}`);
  }
  const url = URL.createObjectURL(await imgRes.blob());
  const img = el("img", { src: url, alt: `Page ${n} of ${doc.path.split("/").pop()}`, class: "page-image" });
  await img.decode().catch(() => {});
  const layer = el("div", { class: "page", "data-page": n }, img);
  const quotes = (cite.quotes || []).map((q) => q.text).filter(Boolean);
  let found = 0;
  if (quotes.length) {
    const q = quotes.map((t) => "q=" + encodeURIComponent(t)).join("&");
    const h = await apiJSON(`${base}/highlights?${q}`);
    found = h.rects.length;
    for (const r of h.rects) {
      layer.append(el("div", {
        class: "hl",
        style: {
          left: `${(100 * r.x) / h.width}%`, top: `${(100 * r.y) / h.height}%`,
          width: `${(100 * r.w) / h.width}%`, height: `${(100 * r.h) / h.height}%`,
        },
      }));
    }
  }
  $("viewer-body").replaceChildren(layer);
  $("viewer-status").textContent = quotes.length
    ? found ? "The highlighted passage supports the answer." : "The supporting passage is not on this page."
    : "This source was cited without a quoted passage.";
  updateNav();
}

// showSection shows a cited section's text with the quotes marked.
function showSection(cite, sec) {
  const text = sec.content || "";
  // where each quote occurs (first occurrence), merged in order
  const spans = [];
  for (const q of cite.quotes || []) {
    const i = text.indexOf(q.text);
    if (q.text && i >= 0) spans.push([i, i + q.text.length]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  const body = el("div", { class: "section-text", "data-page": sec.page });
  let at = 0;
  for (const [s, e] of spans) {
    if (s < at) continue;
    body.append(text.slice(at, s), el("mark", {}, text.slice(s, e)));
    at = e;
  }
  body.append(text.slice(at));
  // a deck's pages are its slides, a workbook's its sheets
  const unit = { pptx: "slide", xlsx: "sheet" }[viewer.doc && viewer.doc.format] || "page";
  const pages = sec.page_end && sec.page_end !== sec.page ? `${unit}s ${sec.page}–${sec.page_end}` : `${unit} ${sec.page}`;
  $("viewer-title").textContent = `${sec.title} — ${sec.source.split("/").pop()}, ${pages}`;
  $("viewer-body").replaceChildren(body);
  $("viewer-status").textContent = spans.length ? "The marked passage supports the answer." : "This source was cited without a quoted passage.";
  const m = body.querySelector("mark");
  if (m) m.scrollIntoView({ block: "center" });
}

// ---- sidebar ----

async function refreshSidebar() {
  await Promise.all([refreshRuns(), refreshDocuments()]).catch(() => {});
}

async function refreshRuns() {
  let runs;
  try {
    runs = await apiJSON("/api/v1/runs?limit=10000");
  } catch (err) {
    $("history").replaceChildren(el("li", { class: "error" }, String(err.message || err)));
    return;
  }
  runs.reverse(); // newest first
  // conversations: one entry per thread, by its latest run
  const threads = new Map();
  for (const r of runs) {
    if (!threads.has(r.thread)) threads.set(r.thread, { latest: r, count: 0, first: r });
    const t = threads.get(r.thread);
    t.count++;
    t.first = r;
  }
  $("threads").replaceChildren(...Array.from(threads.entries()).slice(0, 50).map(([id, t]) =>
    el("li", {}, el("button", {
      type: "button", class: id === state.thread ? "item current" : "item",
      "aria-current": id === state.thread ? "true" : null,
      onclick: () => openThread(id),
    }, el("span", { class: "item-title" }, t.first.question), el("span", { class: "item-meta" }, `${t.count} question${t.count > 1 ? "s" : ""} · ${id}`)))));

  $("history").replaceChildren(...runs.slice(0, 50).map((r) =>
    el("li", {}, el("button", { type: "button", class: "item", onclick: () => openThread(r.thread, r.id) },
      el("span", { class: "item-title" }, r.question),
      el("span", { class: `item-meta status-${r.status}` }, `${r.status}${r.outcome ? " · " + r.outcome : ""} · ${r.id.slice(0, 8)}`)))));

  const waiting = runs.filter((r) => r.status === "awaiting_review");
  $("review-count").textContent = waiting.length ? `(${waiting.length})` : "";
  $("review").replaceChildren(...waiting.map(reviewItem));
  if (!waiting.length) $("review").append(el("li", { class: "hint" }, "Nothing waiting."));
}

// reviewItem is a run waiting for review, with its draft and approve
// and reject buttons.
function reviewItem(run) {
  const note = el("input", { type: "text", class: "note", "aria-label": `Note on "${run.question}"`, placeholder: "Note (optional)" });
  const draft = el("div", { class: "review-draft" });
  const status = el("p", { class: "hint", "aria-live": "polite" });
  const decide = (approve) => async () => {
    status.textContent = approve ? "Approving…" : "Rejecting…";
    try {
      const res = await postJSON(`/api/v1/runs/${encodeURIComponent(run.id)}/resume`, { approve, note: note.value || undefined });
      const out = await res.json();
      if (!res.ok && !out.run) throw new Error(out.error || res.status);
      if (run.thread === state.thread) new Turn(run.question).done(out);
      status.textContent = approve ? "Approved." : "Rejected.";
    } catch (err) {
      status.textContent = String(err.message || err);
    }
    refreshSidebar();
  };
  // the draft the judge doubted: the last step's state
  apiJSON(`/api/v1/runs/${encodeURIComponent(run.id)}`).then((rec) => {
    const last = rec.steps[rec.steps.length - 1];
    const st = last && last.state;
    if (st) {
      const cites = citedIn(st, st.generated_response || "");
      draft.append(el("span", { class: "label" }, "Draft: "),
        renderMarkdown(st.generated_response || "", cites, "review-draft-text"));
      const after = [];
      if (st.judge_verdict) after.push(verdictLine(st.judge_verdict));
      if (cites.length) after.push(...sourceList("Sources of the draft", cites, "citations review-sources"));
      draft.after(...after);
    }
  }).catch(() => {});
  return el("li", { class: "review-item" },
    el("p", { class: "item-title" }, run.question), draft, note,
    el("div", { class: "buttons" },
      el("button", { type: "button", class: "approve", onclick: decide(true) }, "Approve"),
      el("button", { type: "button", class: "reject", onclick: decide(false) }, "Reject")),
    status);
}

// openThread shows a conversation's runs from the ledger; focus goes to
// the run asked for, if any.
async function openThread(thread, runID) {
  state.thread = thread;
  showThreadLabel();
  closeMenu();
  $("transcript").replaceChildren();
  const runs = await apiJSON(`/api/v1/runs?thread=${encodeURIComponent(thread)}&limit=10000`);
  for (const r of runs) {
    const turn = new Turn(r.question);
    try {
      const rec = await apiJSON(`/api/v1/runs/${encodeURIComponent(r.id)}`);
      const last = rec.steps[rec.steps.length - 1];
      const st = (last && last.state) || {};
      turn.done({ ...st, run: rec.run, citations: citationsOf(st, rec.run) });
    } catch (err) {
      turn.fail(String(err.message || err));
    }
    if (r.id === runID) turn.node.scrollIntoView({ block: "start" });
  }
  refreshRuns();
}

// citationsOf finds an earlier run's citations in its final state as the
// server does for a new answer.
function citationsOf(st, run) {
  if (!run || run.outcome !== "answered") return [];
  return citedIn(st, st.final_output || "");
}

// citedIn is schema.State.CitedSections for a text: the sections holding
// the judge's evidence and those whose citation ("Title, page 8") the text
// writes, else those whose title it writes, else every retrieved section;
// each with the judge's quotes from it.
function citedIn(st, text) {
  const secs = st.retrieved_sections || [];
  const claims = (st.judge_verdict && st.judge_verdict.claims) || [];
  const ids = new Set(claims.filter((c) => c.supported && c.evidence && c.evidence.section_id).map((c) => c.evidence.section_id));
  const covered = new Set(secs.filter((s) => s.id && ids.has(s.id)).map((s) => `${s.title}, ${sectionPageRef(s)}`));
  let cited = secs.filter((s) => (s.id && ids.has(s.id)) ||
    (!covered.has(`${s.title}, ${sectionPageRef(s)}`) && text.includes(`${s.title}, ${sectionPageRef(s)}`)));
  if (!cited.length) cited = secs.filter((s) => s.title && text.includes(s.title));
  if (!cited.length) cited = secs;
  const seen = new Set();
  return cited.filter((s) => {
    const k = `${s.source}\u0000${s.title}, ${sectionPageRef(s)}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  }).map((s) => ({
    section_id: s.id, title: s.title, source: s.source, page: s.page, page_end: s.page_end,
    page_ref: sectionPageRef(s),
    quotes: claims.filter((c) => c.supported && c.evidence && c.evidence.section_id === s.id && (s.content || "").includes(c.evidence.quote))
      .map((c) => ({ text: c.evidence.quote })),
  }));
}

async function refreshDocuments() {
  try {
    state.documents = await apiJSON("/api/v1/documents");
  } catch (err) {
    $("documents").replaceChildren(el("li", { class: "hint" }, String(err.message || err)));
    return;
  }
  $("documents").replaceChildren(...state.documents.map((d) =>
    el("li", { class: "doc" },
      el("span", { class: "item-title" }, d.title || d.path.split("/").pop()),
      el("span", { class: "item-meta" }, `${d.path.split("/").pop()} · ${d.format} · ${d.pages} page${d.pages === 1 ? "" : "s"}`))));
  if (!state.documents.length) $("documents").append(el("li", { class: "hint" }, "No documents yet."));
  $("welcome").hidden = state.documents.length > 0;
}

// upload sends files as multipart with a progress bar for the bytes
// (XMLHttpRequest reports upload progress; fetch does not), then shows
// the server's ingest progress: it asks for server-sent events, one per
// file started, indexed, unchanged or skipped, then the summary.
function upload(files) {
  if (!files.length) return;
  const form = new FormData();
  for (const f of files) form.append("file", f, f.name);
  const names = Array.from(files, (f) => f.name).join(", ");
  const bar = el("progress", { max: 100, value: 0, "aria-label": `Uploading ${names}` });
  const label = el("span", {}, `Uploading ${names}…`);
  const steps = el("ul", { class: "ingest-steps" });
  const row = el("div", { class: "upload" }, label, bar, steps);
  $("uploads").append(row);
  const step = (file) => {
    let li = Array.from(steps.children).find((x) => x.dataset.file === file);
    if (!li) {
      li = el("li", { "data-file": file });
      steps.append(li);
    }
    return li;
  };
  let finished = false;
  const finish = (ok, text) => {
    finished = true;
    bar.remove();
    label.textContent = text;
    if (!ok) row.classList.add("error");
    refreshDocuments();
  };
  const added = (body) => {
    const n = (body.documents || []).length;
    finish(true, `Added ${n} document${n === 1 ? "" : "s"}: ${names}.`);
  };
  const onEvent = (name, data) => {
    switch (name) {
      case "started":
        step(data.file).textContent = `${data.file}: reading…`;
        break;
      case "indexed":
      case "unchanged":
      case "skipped": {
        const li = step(data.file);
        li.className = `step-${name}`;
        li.textContent = name === "indexed"
          ? `${data.file}: indexed, ${data.sections} section${data.sections === 1 ? "" : "s"}${data.pages ? `, ${data.pages} page${data.pages === 1 ? "" : "s"}` : ""}`
          : name === "skipped" ? `${data.file}: skipped (${data.reason})` : `${data.file}: unchanged`;
        bar.max = data.files_total;
        bar.value = data.files_done;
        label.textContent = `Indexing ${names}: ${data.files_done} of ${data.files_total} files…`;
        break;
      }
      case "summary":
        added(data);
        break;
      case "error":
        finish(false, `Upload failed: ${data.error}`);
        break;
    }
  };
  const feed = eventParser(onEvent);
  let seen = 0;
  const xhr = new XMLHttpRequest();
  xhr.open("POST", "/api/v1/documents");
  xhr.setRequestHeader("Accept", "text/event-stream");
  const token = sessionStorage.getItem(tokenKey);
  if (token) xhr.setRequestHeader("Authorization", "Bearer " + token);
  xhr.upload.onprogress = (e) => {
    if (e.lengthComputable) bar.value = Math.round((100 * e.loaded) / e.total);
  };
  xhr.upload.onload = () => {
    bar.removeAttribute("value"); // indeterminate until the server reports a file
    label.textContent = `Indexing ${names}…`;
  };
  const events = () => (xhr.getResponseHeader("Content-Type") || "").startsWith("text/event-stream");
  xhr.onprogress = () => {
    if (!events()) return;
    feed(xhr.responseText.slice(seen));
    seen = xhr.responseText.length;
  };
  xhr.onload = () => {
    if (events()) {
      feed(xhr.responseText.slice(seen));
      seen = xhr.responseText.length;
      if (!finished) finish(false, "Upload failed: the server stopped before the summary.");
      return;
    }
    // an error answered before the ingest started: one JSON object
    let body = {};
    try {
      body = JSON.parse(xhr.responseText);
    } catch {}
    if (xhr.status === 201) added(body);
    else finish(false, `Upload failed: ${body.error || xhr.status}`);
  };
  xhr.onerror = () => finish(false, "Upload failed: the connection dropped.");
  xhr.send(form);
}

// ---- wiring ----

function showThreadLabel() {
  $("thread-label").textContent = `Conversation ${state.thread}`;
}

function closeMenu() {
  document.body.classList.remove("menu-open");
  $("menu-button").setAttribute("aria-expanded", "false");
}

function init() {
  showThreadLabel();
  $("ask-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const q = $("question").value.trim();
    if (!q || state.busy) return;
    $("question").value = "";
    ask(q);
  });
  $("question").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $("ask-form").requestSubmit();
    }
  });
  $("new-thread").addEventListener("click", () => {
    state.thread = newThreadID();
    showThreadLabel();
    $("transcript").replaceChildren();
    closeMenu();
    $("question").focus();
    refreshRuns();
  });
  $("menu-button").addEventListener("click", () => {
    const open = document.body.classList.toggle("menu-open");
    $("menu-button").setAttribute("aria-expanded", String(open));
  });
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    sessionStorage.setItem(tokenKey, $("token").value);
    $("token-form").hidden = true;
    refreshSidebar();
  });
  $("viewer-close").addEventListener("click", () => $("viewer").close());
  $("viewer-prev").addEventListener("click", () => showPage(viewer.page - 1).catch((err) => ($("viewer-status").textContent = err.message)));
  $("viewer-next").addEventListener("click", () => showPage(viewer.page + 1).catch((err) => ($("viewer-status").textContent = err.message)));
  $("viewer").addEventListener("close", () => {
    for (const img of $("viewer-body").querySelectorAll("img")) URL.revokeObjectURL(img.src);
  });

  const drop = $("drop");
  $("upload").addEventListener("change", (e) => {
    upload(e.target.files);
    e.target.value = "";
  });
  for (const ev of ["dragenter", "dragover"]) {
    drop.addEventListener(ev, (e) => {
      e.preventDefault();
      drop.classList.add("over");
    });
  }
  for (const ev of ["dragleave", "drop"]) {
    drop.addEventListener(ev, (e) => {
      e.preventDefault();
      drop.classList.remove("over");
    });
  }
  drop.addEventListener("drop", (e) => upload(e.dataTransfer.files));
  refreshSidebar();
}

init();
