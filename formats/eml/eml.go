// Package eml reads saved e-mail messages (RFC 5322 with MIME, .eml) with
// net/mail, mime and mime/multipart.
//
// The document's title is the subject; its first block names the
// message's subject, sender, recipients and date, so that every section
// of the message can be placed. The body follows: the text/plain part of
// a multipart/alternative, or its HTML part (read by formats/html) when
// the plain one is missing or empty. Encoded headers (RFC 2047), quoted
// printable and base64 bodies and the usual character sets are decoded.
// Each attachment whose format DocMind reads (Parser.Attachment) follows
// under a heading "Attachment: NAME", with its own blocks and pages;
// attachments that cannot be read are named in a line of the message
// ("Attachment not read: NAME (reason)"). A message attached to a message
// is read the same way, MaxDepth deep at most.
package eml

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"path"
	"strings"

	"golang.org/x/net/html/charset"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/html"
)

// Limits.
const (
	// MaxParts bounds the MIME parts of one message.
	MaxParts = 1000
	// MaxDepth bounds the nesting of multiparts and attached messages.
	MaxDepth = 8
	// MaxHeaderBytes bounds the header of a message.
	MaxHeaderBytes = 1 << 20
)

// Parser reads messages. The zero value reads the message's text and
// names its attachments without reading them.
type Parser struct {
	// Attachment, when set, reads an attachment as a document of its own
	// (name is the attachment's file name, data its decoded content); an
	// error leaves the attachment out with its reason.
	Attachment func(ctx context.Context, name string, data []byte) (*document.Document, error)
}

// Parse reads a message with the zero Parser.
func Parse(ctx context.Context, source string, data []byte) (*document.Document, error) {
	return Parser{}.Parse(ctx, source, data)
}

type depthKey struct{}

// Parse reads a message. Errors are formats errors: ErrCorrupt (no
// header, malformed MIME), ErrTooLarge (too many parts, nested too deep)
// or ErrEmpty (no text and no readable attachment).
func (p Parser) Parse(ctx context.Context, source string, data []byte) (doc *document.Document, err error) {
	defer formats.Recover(source, &err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	depth, _ := ctx.Value(depthKey{}).(int)
	if depth >= MaxDepth {
		return nil, formats.Errorf(source, formats.ErrTooLarge, "messages nested more than %d deep", MaxDepth)
	}
	ctx = context.WithValue(ctx, depthKey{}, depth+1)
	head := data
	if i := bytes.Index(head, []byte("\n\n")); i >= 0 {
		head = head[:i]
	}
	if len(head) > MaxHeaderBytes {
		return nil, formats.Errorf(source, formats.ErrTooLarge, "message header is larger than %d KiB", MaxHeaderBytes>>10)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(stripMboxLine(data)))
	if err != nil {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "not an e-mail message: %w", err)
	}
	r := &reader{p: p, ctx: ctx, source: source}
	doc = &document.Document{Source: source, Format: formats.EML, Title: r.header(msg.Header, "Subject")}
	var lines []string
	for _, h := range []string{"Subject", "From", "To", "Cc", "Date"} {
		if v := r.header(msg.Header, h); v != "" {
			lines = append(lines, h+": "+v)
		}
	}
	if len(lines) > 0 {
		doc.Blocks = append(doc.Blocks, document.Block{Kind: document.Paragraph, Text: strings.Join(lines, "\n")})
	}
	if err := r.part(msg.Header, msg.Body, 0); err != nil {
		return nil, err
	}
	doc.Blocks = append(doc.Blocks, r.body...)
	if len(r.missed) > 0 {
		doc.Blocks = append(doc.Blocks, document.Block{Kind: document.Paragraph, Text: "Attachments not read: " + strings.Join(r.missed, "; ")})
	}
	doc.Blocks = append(doc.Blocks, r.attached...)
	doc.Pages = r.pages
	if !r.text {
		return nil, formats.Errorf(source, formats.ErrEmpty, "message has no text and no readable attachment")
	}
	return doc, nil
}

// header is an (RFC 2047 decoded) header value on one line.
func (r *reader) header(h mail.Header, name string) string {
	v := h.Get(name)
	if d, err := wordDecoder.DecodeHeader(v); err == nil {
		v = d
	}
	return formats.CleanText(v)
}

var wordDecoder = &mime.WordDecoder{CharsetReader: charset.NewReaderLabel}

// reader collects the blocks of one message.
type reader struct {
	p        Parser
	ctx      context.Context
	source   string
	parts    int
	body     []document.Block // the message's own text
	attached []document.Block // attachments, each under its heading
	missed   []string
	pages    int
	text     bool // some text was found
}

// header is a message's or a MIME part's header.
type header interface{ Get(string) string }

// part reads one MIME part: a multipart's parts, a text body, or an
// attachment.
func (r *reader) part(h header, body io.Reader, depth int) error {
	r.parts++
	switch {
	case r.parts > MaxParts:
		return formats.Errorf(r.source, formats.ErrTooLarge, "message has more than %d MIME parts", MaxParts)
	case depth > MaxDepth:
		return formats.Errorf(r.source, formats.ErrTooLarge, "MIME parts nested more than %d deep", MaxDepth)
	}
	if err := r.ctx.Err(); err != nil {
		return err
	}
	ctype, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || ctype == "" {
		ctype, params = "text/plain", map[string]string{}
	}
	disp, dparams, _ := mime.ParseMediaType(h.Get("Content-Disposition"))
	name := dparams["filename"]
	if name == "" {
		name = params["name"]
	}
	if d, err := wordDecoder.DecodeHeader(name); err == nil {
		name = d
	}
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	if name == "." || name == "/" {
		name = ""
	}
	if strings.HasPrefix(ctype, "multipart/") {
		return r.multipart(ctype, params, body, depth)
	}
	data, err := decodeBody(h.Get("Content-Transfer-Encoding"), body)
	if err != nil {
		return formats.Errorf(r.source, formats.ErrCorrupt, "malformed MIME part %q: %w", ctype, err)
	}
	isAttachment := disp == "attachment" || (name != "" && !strings.HasPrefix(ctype, "text/")) || ctype == "message/rfc822"
	if !isAttachment && (ctype == "text/plain" || ctype == "text/html") {
		blocks := r.textBlocks(ctype, params["charset"], data)
		r.body = append(r.body, blocks...)
		return nil
	}
	if name == "" {
		name = "attachment." + strings.TrimPrefix(path.Ext("x."+strings.ReplaceAll(ctype, "/", ".")), ".")
		if ctype == "message/rfc822" {
			name = "message.eml"
		}
	}
	r.attachment(name, data)
	return nil
}

// multipart reads the parts of a multipart body. Of a
// multipart/alternative, the plain text is kept, or the HTML when the
// plain text is empty.
func (r *reader) multipart(ctype string, params map[string]string, body io.Reader, depth int) error {
	boundary := params["boundary"]
	if boundary == "" {
		return formats.Errorf(r.source, formats.ErrCorrupt, "malformed MIME: %s without a boundary", ctype)
	}
	mr := multipart.NewReader(body, boundary)
	alt := ctype == "multipart/alternative"
	var plain, htmlBlocks []document.Block
	for {
		pt, err := mr.NextRawPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return formats.Errorf(r.source, formats.ErrCorrupt, "malformed MIME: %w", err)
		}
		if !alt {
			if err := r.part(pt.Header, pt, depth+1); err != nil {
				return err
			}
			continue
		}
		before := len(r.body)
		if err := r.part(pt.Header, pt, depth+1); err != nil {
			return err
		}
		got := append([]document.Block(nil), r.body[before:]...)
		r.body = r.body[:before]
		if ct, _, _ := mime.ParseMediaType(pt.Header.Get("Content-Type")); ct == "text/html" {
			htmlBlocks = append(htmlBlocks, got...)
		} else {
			plain = append(plain, got...)
		}
	}
	if alt {
		if len(plain) > 0 {
			r.body = append(r.body, plain...)
		} else {
			r.body = append(r.body, htmlBlocks...)
		}
	}
	return nil
}

// textBlocks turns a text or HTML body into blocks: paragraphs at blank
// lines for text, formats/html's blocks for HTML.
func (r *reader) textBlocks(ctype, cs string, data []byte) []document.Block {
	s := toUTF8(data, cs)
	var out []document.Block
	if ctype == "text/html" {
		doc, err := html.Parse(r.ctx, r.source, append([]byte("\uFEFF"), s...))
		if err != nil {
			return nil
		}
		for _, b := range doc.Blocks {
			b.Page = 0
			out = append(out, b)
		}
	} else {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		for _, para := range strings.Split(s, "\n\n") {
			if t := formats.CleanText(para); t != "" {
				out = append(out, document.Block{Kind: document.Paragraph, Text: t})
			}
		}
	}
	if len(out) > 0 {
		r.text = true
	}
	return out
}

// attachment reads an attached file as a document of its own, under a
// heading naming it.
func (r *reader) attachment(name string, data []byte) {
	if r.p.Attachment == nil {
		r.missed = append(r.missed, name)
		return
	}
	if len(bytes.TrimSpace(data)) == 0 {
		r.missed = append(r.missed, name+" (empty)")
		return
	}
	doc, err := r.p.Attachment(r.ctx, name, data)
	if err != nil {
		if r.ctx.Err() != nil {
			return
		}
		r.missed = append(r.missed, fmt.Sprintf("%s (%s)", name, oneLine(formats.Reason(err))))
		return
	}
	r.attached = append(r.attached, document.Block{Kind: document.Heading, Level: 1, Text: "Attachment: " + name, Page: firstPage(doc)})
	for _, b := range doc.Blocks {
		if b.Kind == document.Heading {
			b.Level++
		}
		r.attached = append(r.attached, b)
	}
	r.pages = max(r.pages, doc.Pages)
	r.text = true
}

func firstPage(doc *document.Document) int {
	for _, b := range doc.Blocks {
		if b.Page > 0 {
			return b.Page
		}
	}
	return 0
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// decodeBody undoes a Content-Transfer-Encoding.
func decodeBody(enc string, body io.Reader) ([]byte, error) {
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "base64":
		return io.ReadAll(base64.NewDecoder(base64.StdEncoding, &stripSpace{r: body}))
	case "quoted-printable":
		return io.ReadAll(quotedprintable.NewReader(body))
	}
	return io.ReadAll(body)
}

// toUTF8 decodes text in the named character set (UTF-8 when unknown).
func toUTF8(data []byte, cs string) string {
	if cs == "" || strings.EqualFold(cs, "utf-8") || strings.EqualFold(cs, "us-ascii") {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	rd, err := charset.NewReaderLabel(cs, bytes.NewReader(data))
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	return string(b)
}

// stripSpace drops the line breaks and spaces of base64 text (and stray
// characters outside the alphabet, as mail readers do).
type stripSpace struct{ r io.Reader }

func (s *stripSpace) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	k := 0
	for _, c := range p[:n] {
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' {
			p[k] = c
			k++
		}
	}
	return k, err
}

// stripMboxLine drops the "From " line an mbox export puts before a
// message.
func stripMboxLine(data []byte) []byte {
	if bytes.HasPrefix(data, []byte("From ")) {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			return data[i+1:]
		}
	}
	return data
}
