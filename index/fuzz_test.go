package index

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"slices"
	"testing"
)

// FuzzDecodePostings decodes arbitrary postings blobs (as read from an
// index file) and checks that decoding never panics, that what decodes
// re-encodes to postings that decode the same, and that postings built
// from the input (increasing ids, as segmentBuilder writes them) survive
// encode then decode unchanged.
func FuzzDecodePostings(f *testing.F) {
	var good []byte
	prev := int64(0)
	for _, p := range []posting{{id: 1, tf: 2, length: 120}, {id: 7, tf: 1, length: 80}, {id: 300, tf: 9, length: 4000}} {
		good = appendPosting(good, prev, p)
		prev = p.id
	}
	f.Add(good)
	f.Add([]byte{})
	f.Add([]byte{0x80})
	f.Add([]byte{1, 1})
	f.Add([]byte{0x80, 0x00, 0x01, 0x01})
	f.Add(bytes.Repeat([]byte{0xff}, 11))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []posting
		err := decodePostings(data, func(p posting) { got = append(got, p) })
		if err == nil {
			if again := roundTrip(t, got); !reflect.DeepEqual(again, got) {
				t.Fatalf("postings %v re-encode as %v", got, again)
			}
		}
		// Postings made from the input: every 9 bytes give an id step, a
		// term frequency and a section length.
		var made []posting
		id := int64(0)
		for b := data; len(b) >= 9; b = b[9:] {
			id += int64(binary.LittleEndian.Uint16(b)) + 1
			made = append(made, posting{id: id, tf: binary.LittleEndian.Uint32(b[1:]), length: binary.LittleEndian.Uint32(b[5:])})
		}
		if again := roundTrip(t, made); !reflect.DeepEqual(again, made) {
			t.Fatalf("postings %v decode as %v", made, again)
		}
	})
}

func roundTrip(t *testing.T, ps []posting) []posting {
	t.Helper()
	var buf []byte
	prev := int64(0)
	for _, p := range ps {
		buf = appendPosting(buf, prev, p)
		prev = p.id
	}
	var out []posting
	if err := decodePostings(buf, func(p posting) { out = append(out, p) }); err != nil {
		t.Fatalf("encoded postings %v do not decode: %v", ps, err)
	}
	return out
}

// FuzzDecodeBlock decodes arbitrary postings blocks (a segment's row as
// read from an index file): decoding either fails or yields entries whose
// postings alias the block, and which encodeBlock writes back to a block
// that decodes to the same entries.
func FuzzDecodeBlock(f *testing.F) {
	var data []byte
	data = appendPosting(data, 0, posting{id: 3, tf: 1, length: 50})
	f.Add(encodeBlock([]blockEntry{{term: "fee", df: 1, data: data}, {term: "late", df: 0, data: nil}}))
	f.Add(encodeBlock(nil))
	f.Add([]byte{})
	f.Add([]byte{1, 3, 'f', 'e', 'e', 1, 2, 0x03, 0x01})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, block []byte) {
		var got []blockEntry
		err := decodeBlock(block, func(e blockEntry) bool {
			if len(e.data) > len(block) {
				t.Fatalf("entry %q holds %d bytes of a %d-byte block", e.term, len(e.data), len(block))
			}
			got = append(got, blockEntry{term: e.term, df: e.df, data: slices.Clone(e.data)})
			return true
		})
		if err != nil {
			return
		}
		var again []blockEntry
		if err := decodeBlock(encodeBlock(got), func(e blockEntry) bool {
			again = append(again, blockEntry{term: e.term, df: e.df, data: slices.Clone(e.data)})
			return true
		}); err != nil {
			t.Fatalf("re-encoded block does not decode: %v", err)
		}
		if len(again) != len(got) {
			t.Fatalf("%d entries re-encode as %d", len(got), len(again))
		}
		for i := range got {
			if got[i].term != again[i].term || got[i].df != again[i].df || !bytes.Equal(got[i].data, again[i].data) {
				t.Fatalf("entry %d %+v re-encodes as %+v", i, got[i], again[i])
			}
		}
		// Stopping early is allowed.
		n := 0
		_ = decodeBlock(block, func(blockEntry) bool { n++; return false })
		if len(got) > 0 && n != 1 {
			t.Fatalf("decodeBlock went on after fn returned false (%d calls)", n)
		}
	})
}
