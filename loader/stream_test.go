package loader

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// streamed sections data with a TextStream read through r.
func streamed(name string, data []byte, opts SectionOptions, wrap func(io.Reader) io.Reader) ([]schema.Section, int, error) {
	ts := &TextStream{source: name, paged: bytes.Contains(data, []byte("\f")), opts: opts}
	var out []schema.Section
	pages, err := ts.Sections(context.Background(), wrap(bytes.NewReader(data)), func(s schema.Section) error {
		out = append(out, s)
		return nil
	})
	return out, pages, err
}

// whole sections data as Loader.Parse and Split do: decoded (less a byte
// order mark), parsed whole, split.
func whole(name string, data []byte, opts SectionOptions) ([]schema.Section, int) {
	doc := ParseText(name, string(bytes.TrimPrefix(data, utf8BOM)))
	return Sections(doc, opts), doc.Pages
}

var streamOpts = []SectionOptions{{}, {ChunkSize: 200, Overlap: 50}, {ChunkSize: 300, Overlap: -1, KeepNumbers: true}}

func checkStreamMatches(t *testing.T, name string, data []byte) {
	t.Helper()
	readers := map[string]func(io.Reader) io.Reader{
		"whole reads": func(r io.Reader) io.Reader { return r },
		"half reads":  iotest.HalfReader,
	}
	if len(data) < 16<<10 { // byte by byte: slow, under the race detector above all
		readers["one byte reads"] = iotest.OneByteReader
	}
	for _, o := range streamOpts {
		want, wantPages := whole(name, data, o)
		for rn, wrap := range readers {
			got, pages, err := streamed(name, data, o, wrap)
			if len(want) == 0 {
				if err == nil || err.Error() != "no text content" {
					t.Errorf("%s %+v %s: no sections whole, streamed %d, err %v", name, o, rn, len(got), err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s %+v %s: %v", name, o, rn, err)
			}
			if pages != wantPages {
				t.Errorf("%s %+v %s: %d pages streamed, %d whole", name, o, rn, pages, wantPages)
			}
			if !reflect.DeepEqual(got, want) {
				i := 0
				for i < min(len(got), len(want)) && reflect.DeepEqual(got[i], want[i]) {
					i++
				}
				t.Fatalf("%s %+v %s: %d sections streamed, %d whole; first difference at %d:\nstreamed %+v\nwhole    %+v", name, o, rn, len(got), len(want), i, at(got, i), at(want, i))
			}
		}
	}
}

func at(s []schema.Section, i int) any {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// Streaming a plain-text file gives exactly the sections (titles, ids,
// pages, content) of reading it whole: on the example contract and the
// policy read as text, the shared text fixtures, and generated text of
// every shape the parser knows (headings of each kind, form feeds,
// CRLF and CR line ends, byte order marks, long paragraphs and words).
// TestStreamMatchesLargeText does the same for more texts and for texts
// of 0.5 to 2 MiB.
func TestStreamMatchesWholeText(t *testing.T) {
	root := testenv.RepoRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "examples", "contract", "*.md"))
	files = append(files, filepath.Join(root, "loader", "testdata", "policy.md"))
	shared, _ := filepath.Glob(filepath.Join(root, "..", "shared", "fixtures", "docs", "enc", "*utf8*.txt"))
	files = append(files, shared...)
	if len(files) < 3 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkStreamMatches(t, f, data)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		checkStreamMatches(t, fmt.Sprintf("gen%d.txt", i), genText(rng, rng.Intn(6000)))
	}
	// lines the heading heuristics read as headings, and nothing else
	checkStreamMatches(t, "note.txt", []byte("Café – 5 €\n"))
	var heads strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&heads, "Item Number %d Alpha\n\n", i)
		if i == 2000 || i == 19999 {
			// under maxHeadingsOnly (read as paragraphs), then over it
			checkStreamMatches(t, fmt.Sprintf("headings-only-%d.txt", i), []byte(heads.String()))
		}
	}
}

// TestStreamMatchesLargeText: streaming gives the sections of reading
// whole for 80 more generated texts and for large ones: 2 MiB of
// generated text, and text without line breaks (one line of sentences,
// one of words without a sentence end, one of a single word in several
// scripts). A long test: 10 to 25 s alone, ten minutes under the race
// detector, so CI runs it without.
func TestStreamMatchesLargeText(t *testing.T) {
	testenv.Long(t, "streams 0.5 to 2 MiB texts")
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 80; i++ {
		checkStreamMatches(t, fmt.Sprintf("gen%d.txt", i), genText(rng, rng.Intn(6000)))
	}
	checkStreamMatches(t, "big.txt", genText(rng, 2<<20))
	oneLine := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\f", " ")
	checkStreamMatches(t, "one-line.txt", []byte(oneLine.Replace(string(genText(rng, 1<<20)))))
	checkStreamMatches(t, "no-sentences.txt", []byte(strings.Repeat("word and another ", 40<<10)))
	checkStreamMatches(t, "one-word.txt", []byte(strings.Repeat("xé日本語", 30<<10)))
}

// TestLongLinesAndParagraphsAreSplit: a line with no break and a
// paragraph with no blank line are cut into pieces of bounded size (at
// sentence ends where there are some), so that neither is ever held
// whole.
func TestLongLinesAndParagraphsAreSplit(t *testing.T) {
	sentence := "The late fee is 1.5% per month on overdue invoices. "
	text := strings.Repeat(sentence, (1<<20)/len(sentence))
	doc := ParseText("one-line.txt", text)
	if len(doc.Blocks) < 4 {
		t.Fatalf("a 1 MiB line gave %d blocks, want it split into paragraphs of at most %d bytes", len(doc.Blocks), maxParagraphBytes)
	}
	for i, b := range doc.Blocks {
		if len(b.Text) > maxParagraphBytes+maxLineBytes {
			t.Errorf("block %d is %d bytes", i, len(b.Text))
		}
		for _, line := range strings.Split(b.Text, "\n") {
			if len(line) > maxLineBytes || !strings.HasSuffix(line, ".") {
				t.Errorf("block %d: a line of %d bytes, ending %q: want lines cut after a sentence", i, len(line), line[max(0, len(line)-10):])
				break
			}
		}
	}
	if cut := cutLong(strings.Repeat("é", maxLineBytes)); !utf8.ValidString(strings.Repeat("é", maxLineBytes)[:cut]) {
		t.Errorf("cut at %d splits a rune", cut)
	}
}

// genText is random plain text of about size bytes.
func genText(rng *rand.Rand, size int) []byte {
	words := strings.Fields("the payment is due within 30 days. Late fees apply e.g. 1.5% per month; see Art. 7 and Mr. Smith's notice! Is it fair? “Quoted.” (a) item é 日本語 supercalifragilisticexpialidocious")
	ends := []string{"\n", "\n", "\n", "\r\n", "\r"}
	var b bytes.Buffer
	if rng.Intn(5) == 0 {
		b.WriteString("\uFEFF")
	}
	for b.Len() < size {
		end := ends[rng.Intn(len(ends))]
		switch rng.Intn(12) {
		case 0:
			fmt.Fprintf(&b, "%d.%d Payment Terms%s", rng.Intn(20), rng.Intn(5), end)
		case 1:
			b.WriteString("LATE FEES" + end + end)
		case 2:
			b.WriteString("Governing Law" + end + end)
		case 3:
			b.WriteString("\f")
		case 4:
			b.WriteString(end + "  " + end)
		case 5:
			b.WriteString("- a bullet item here" + end)
		case 6:
			b.WriteString(strings.Repeat("x", rng.Intn(3000)) + end)
		default:
			n := 1 + rng.Intn(80)
			for j := 0; j < n; j++ {
				b.WriteString(words[rng.Intn(len(words))])
				b.WriteByte(' ')
			}
			b.WriteString(end)
			if rng.Intn(3) == 0 {
				b.WriteString(end)
			}
		}
	}
	return b.Bytes()
}

// The packer gives the chunks of the all-at-once packing it replaced
// (refChunkGroup, the code before streaming).
func TestPackerMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 150; i++ {
		doc := ParseText("x.txt", string(genText(rng, rng.Intn(8000))))
		var blocks []document.Block
		for _, bl := range doc.Blocks {
			if bl.Kind == document.Heading {
				continue
			}
			if rng.Intn(6) == 0 {
				bl.Kind = document.Table
			}
			blocks = append(blocks, bl)
		}
		if len(blocks) == 0 {
			continue
		}
		for _, o := range streamOpts {
			o = o.normalised()
			g := group{blocks: blocks}
			if got, want := chunkGroup(g, o), refChunkGroup(g, o); !reflect.DeepEqual(got, want) {
				t.Fatalf("case %d %+v: %d chunks, reference %d", i, o, len(got), len(want))
			}
		}
	}
}

// refChunkGroup is chunkGroup as it was before streaming.
func refChunkGroup(g group, opts SectionOptions) []chunk {
	total := 0
	for i, bl := range g.blocks {
		if i > 0 {
			total += 2
		}
		total += utf8.RuneCountInString(bl.Text)
	}
	if total <= opts.ChunkSize {
		return []chunk{joinBlocks(g.blocks)}
	}
	var units []unit
	for bi, bl := range g.blocks {
		var parts []string
		if bl.Kind == document.Table {
			parts = strings.Split(bl.Text, "\n")
		} else {
			parts = textproc.Sentences(bl.Text)
		}
		for _, p := range parts {
			for _, piece := range splitLong(p, opts.ChunkSize) {
				units = append(units, unit{text: piece, runes: utf8.RuneCountInString(piece), page: bl.Page, block: bi, table: bl.Kind == document.Table})
			}
		}
	}
	var out []chunk
	for i := 0; i < len(units); {
		size := 0
		j := i
		for j < len(units) {
			n := utf8.RuneCountInString(units[j].text)
			if j > i {
				n += 2
			}
			if j > i && size+n > opts.ChunkSize {
				break
			}
			size += n
			j++
		}
		out = append(out, joinUnits(units[i:j]))
		if j >= len(units) {
			break
		}
		k, shared := j, 0
		for k > i+1 && shared < opts.Overlap {
			k--
			shared += utf8.RuneCountInString(units[k].text)
		}
		if opts.Overlap == 0 {
			k = j
		}
		i = k
	}
	return out
}

// A Probe streams plain UTF-8 text only: not Markdown, HTML, invalid
// UTF-8, or text with a replaced text parser.
func TestProbeStreamsPlainTextOnly(t *testing.T) {
	plain := []byte("PAYMENT TERMS\n\nThe fee is due in 30 days.\n")
	cases := []struct {
		name string
		data []byte
		l    *Loader
		want bool
	}{
		{"a.txt", plain, New(), true},
		{"a.txt", append([]byte("\uFEFF"), plain...), New(), true},
		{"a.md", plain, New(), false},
		{"a.txt", []byte("# Title\n\n## Two\n\ntext [x](y)\n"), New(), false},
		{"a.txt", []byte("<html><body>x</body></html>"), New(), false},
		{"a.txt", append(plain, 0xff), New(), false},
		{"a.txt", []byte(" \n\t\n"), New(), false},
		{"a.txt", plain, New(WithParser(formats.Text, ParserFunc(func(context.Context, string, []byte) (*document.Document, error) { return nil, nil }))), false},
		{"a.txt", plain, New(WithDecoder(TextDecoderFunc(DecodeUTF8))), false},
	}
	for _, c := range cases {
		p := c.l.NewProbe(c.name)
		for _, b := range c.data { // byte by byte: characters split between writes
			p.Write([]byte{b})
		}
		if _, ok := p.Stream(); ok != c.want {
			t.Errorf("%s %q: stream %v, want %v", c.name, c.data, ok, c.want)
		}
	}
}
