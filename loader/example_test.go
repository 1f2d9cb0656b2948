package loader_test

import (
	"context"
	"fmt"

	"github.com/docmind/docmind/loader"
)

func ExampleLoader_LoadDir() {
	l := loader.New(loader.WithChunking(1200, 200))
	sections, report, err := l.LoadDir(context.Background(), "../examples/contract")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(report.Files), "documents,", len(report.Skipped), "skipped")
	for _, s := range sections {
		if s.Title == "Late Payment Penalties" {
			fmt.Println(s.Citation())
		}
	}
	// Output:
	// 2 documents, 0 skipped
	// Late Payment Penalties, page 8
}

func ExampleSections() {
	doc := loader.ParseMarkdown("fees.md", `# Fees

<!-- page: 7 -->
## 9.3 Late Payment Penalties

A late fee of 1.5% per month applies.
`)
	for _, s := range loader.Sections(doc, loader.SectionOptions{}) {
		fmt.Printf("%s | %v | %s\n", s.Citation(), s.Path, s.Content)
	}
	// Output:
	// Late Payment Penalties, page 7 | [Fees 9.3 Late Payment Penalties] | A late fee of 1.5% per month applies.
}

func ExampleDetect() {
	fmt.Println(loader.Detect([]byte("%PDF-1.7"), "report.txt"))
	fmt.Println(loader.Detect([]byte("# Title\n\n## Part"), "notes.txt"))
	fmt.Println(loader.Detect([]byte("Plain words."), "notes.txt"))
	fmt.Println(loader.Detect([]byte{0x00, 0x01, 0x02}, "notes.md"))
	// Output:
	// pdf
	// markdown
	// text
	// binary
}
