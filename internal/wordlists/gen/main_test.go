package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Lines in WordNet's data-file format (wndb(5WN)): offset, lexicographer
// file, part of speech, word count (hex), words with lex ids, pointer
// count, pointers, gloss.
const adj = `  1 This software and database is being provided to you, the LICENSEE, by
00001740 00 a 01 able 0 003 = 05207437 n 0000 + 05207437 n 0101 ! 00002098 a 0101 | (usually followed by 'to') having the necessary means
00002098 00 a 01 unable 0 002 = 05207437 n 0000 ! 00001740 a 0101 | (usually followed by 'to') not having the necessary means
00003000 00 a 02 public 0 national(a) 0 001 ! 00003100 a 0101 | not private
00003100 00 s 02 private 0 semi-private 0 002 ! 00003000 a 0101 ! 00003000 a 0202 | not public
00003200 00 a 01 odd 0 001 ! 00003300 a 0000 | a pointer between synsets, not words
00003300 00 a 01 even 0 000 | no pointers
`

const verb = `00100000 29 v 01 increase 0 001 ! 00100100 v 0101 01 + 02 00 | become bigger
00100100 29 v 01 decrease 0 001 ! 00100000 v 0101 01 + 02 00 | become smaller
`

func TestAntonymPairs(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"data.adj": adj, "data.verb": verb, "data.adv": "", "data.noun": "",
		"index.adj": "", "index.verb": "", "index.adv": "", "index.noun": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	synsets := map[string]synset{}
	for _, f := range []string{"data.adj", "data.verb"} {
		r, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := read(r, synsets); err != nil {
			t.Fatal(f, err)
		}
		r.Close()
	}
	pairs, err := lexicalPairs(synsets, func(s synset) []pointer { return s.ants })
	if err != nil {
		t.Fatal(err)
	}
	// "national"/"semi-private" is a pair of words of the two synsets but
	// "semi-private" is not a plain word; "odd"/"even" is a pointer between
	// whole synsets
	want := "able | unable, decrease | increase, private | public"
	if got := joinPairs(pairs); got != want {
		t.Errorf("pairs %q, want %q", got, want)
	}
	// too few pairs: not WordNet's dictionary
	o := outputs{filepath.Join(dir, "ant.txt"), filepath.Join(dir, "syn.txt"), filepath.Join(dir, "der.txt"), filepath.Join(dir, "spell.txt"), 2}
	if err := run(dir, o); err == nil || !strings.Contains(err.Error(), "only 3 antonym pairs") {
		t.Errorf("run on a tiny dictionary: %v", err)
	}
}

// An index line: lemma, part of speech, synset count, pointer count,
// pointer symbols, sense count, tagged sense count, then the synsets, most
// frequent sense first.
const index = `  1 This software and database is being provided to you, the LICENSEE, by
public a 2 1 ! 2 1 00003000 00003200
national a 2 0 2 0 00003300 00003000
odd a 1 1 ! 1 1 00003200
`

func TestSynonymsInFrequentSenses(t *testing.T) {
	synsets := map[string]synset{}
	if err := read(strings.NewReader(adj+"00003300 00 a 01 national 0 000 | of a nation\n"), synsets); err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	if err := readIndex(strings.NewReader(index), rank); err != nil {
		t.Fatal(err)
	}
	// "public" and "national" share synset 00003000, the first sense of
	// "public" and the second of "national"
	if got := strings.Join(synonyms(synsets, rank, 2), ", "); got != "national public" {
		t.Errorf("two senses: %q", got)
	}
	if got := synonyms(synsets, rank, 1); len(got) != 0 {
		t.Errorf("one sense: %q, want none (the synset is national's second)", got)
	}
	for _, bad := range []string{"public a x 1 ! 2 1 00003000", "public a 3 0 3 0 00003000"} {
		if err := readIndex(strings.NewReader(bad+"\n"), map[string]int{}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestBadLine(t *testing.T) {
	for _, line := range []string{
		"00001740 00 a zz able 0 000 | bad word count",
		"00001740 00 a 01 able 0 009 ! 1 a | bad pointer count",
		"00001740 00 a 01 able 0 001 ! 00002098 a 01x1 | bad source/target",
	} {
		if err := read(strings.NewReader(line+"\n"), map[string]synset{}); err == nil {
			t.Errorf("%q: no error", line)
		}
	}
	bad := map[string]synset{"a1": {words: []string{"x"}, ants: []pointer{{"a2", 1, 1}}}}
	if _, err := lexicalPairs(bad, func(s synset) []pointer { return s.ants }); err == nil {
		t.Error("a pointer to a missing synset: no error")
	}
}

func TestDerivationPairs(t *testing.T) {
	synsets := map[string]synset{}
	noun := "05207437 07 n 01 ability 0 001 + 00001740 a 0101 | the quality of being able\n"
	adv := "00005948 02 r 01 ably 0 001 \\ 00001740 a 0101 | with competence\n"
	for _, text := range []string{adj, noun, adv} {
		if err := read(strings.NewReader(text), synsets); err != nil {
			t.Fatal(err)
		}
	}
	pairs, err := lexicalPairs(synsets, func(s synset) []pointer { return s.derivs })
	if err != nil {
		t.Fatal(err)
	}
	// "+" both ways is one pair; "\" links an adverb to its adjective;
	// antonym pointers are not derivations
	if got, want := joinPairs(pairs), "ability | able, able | ably"; got != want {
		t.Errorf("pairs %q, want %q", got, want)
	}
}

// joinPairs writes pairs as "a | b, c | d".
func joinPairs(pairs [][2]string) string {
	var out []string
	for _, p := range pairs {
		out = append(out, p[0]+" | "+p[1])
	}
	return strings.Join(out, ", ")
}

func TestSpellingVariants(t *testing.T) {
	synsets := map[string]synset{}
	for _, text := range []string{
		"04956594 07 n 02 color 0 colour 0 000 | a visual attribute\n",
		"01463963 35 v 04 colorise 0 colorize 0 colourise 0 colourize 0 000 | add color to\n",
		"06549661 10 n 02 license 0 licence 0 000 | a legal document\n",
		// one synset, two words that are not spellings of one another
		"00061203 04 n 02 stop 0 halt 0 000 | the event of something ending\n",
	} {
		if err := read(strings.NewReader(text), synsets); err != nil {
			t.Fatal(err)
		}
	}
	// every British spelling, and every other spelling of a group, maps
	// to the group's one American spelling
	got := joinPairs(spellings(synsets))
	if want := "colorise | colorize, colour | color, colourise | colorize, colourize | colorize, licence | license"; got != want {
		t.Errorf("spellings %q, want %q", got, want)
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{{"centre", "center", true}, {"analyse", "analyze", true}, {"programme", "program", true},
		{"travelled", "traveled", true}, {"color", "colour", false}, {"stop", "halt", false}, {"colour", "colors", false}} {
		if got := britishOf(c.a, c.b); got != c.want {
			t.Errorf("britishOf(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
