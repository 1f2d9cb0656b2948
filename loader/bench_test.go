package loader

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"
)

func BenchmarkParseMarkdownContract(b *testing.B) {
	data, err := os.ReadFile("../examples/contract/master-services-agreement.md")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Sections(ParseMarkdown("msa.md", string(data)), SectionOptions{})
	}
}

func BenchmarkLoadDirContract(b *testing.B) {
	l := New()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := l.LoadDir(context.Background(), "../examples/contract"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamTextContract: the sample services agreement, read as
// plain text twenty times over (about 550 KB), streamed into sections as
// ingest reads a .txt file.
func BenchmarkStreamTextContract(b *testing.B) {
	one, err := os.ReadFile("../examples/contract/master-services-agreement.md")
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat(append(one, '\n'), 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := streamed("msa.txt", data, SectionOptions{}, func(r io.Reader) io.Reader { return r }); err != nil {
			b.Fatal(err)
		}
	}
}
