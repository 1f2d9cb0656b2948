package loader

import (
	"context"
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
