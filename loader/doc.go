// Package loader reads documents into the format-neutral document.Document
// and turns documents into retrievable sections ([]schema.Section).
//
// Markdown and plain text are built in; parsers for other formats (PDF,
// DOCX, HTML) plug in with WithParser. The format of a file is detected
// from its content (see Detect), never from its extension alone.
//
// # Pages
//
// Sections carry the page they start on so that answers can cite it.
//
// In Markdown, an HTML comment on a line of its own starts a page:
//
//	<!-- page: 8 -->
//
// A number sets the page number; any other label ("iv", "A-3") starts the
// next page and is kept as its printed label (Document.PageLabels). A form
// feed character (\f) also starts the next page. Text before the first
// marker is on page 1. A Markdown file with neither markers nor form feeds
// has no pages (Page 0, cited as "page n/a").
//
// In plain text, each form feed (\f) starts the next page; a file without
// form feeds has no pages.
//
// # Headings
//
// Markdown headings are ATX headings (# to ######, not inside fenced code
// blocks, indented code or block quotes) and setext headings (a line
// underlined with === or ---). Simple pipe tables become Table blocks.
//
// Plain text has no markup, so headings are found heuristically: a short
// numbered line ("7. Fees", "7.3 Late Payment Penalties", level = depth of
// the number), a short ALL-CAPS line (level 1), or a short stand-alone line
// that starts with a capital letter, does not end with punctuation and is
// followed by a blank line (level 2).
//
// # Sections
//
// Sections splits a document at its headings. A section's Title is its own
// heading with any leading section number removed ("9.3 Late Payment
// Penalties" becomes "Late Payment Penalties"); the full heading path only
// feeds the section's stable ID. Long sections are split into overlapping
// chunks on sentence boundaries.
package loader
