module github.com/docmind/docmind

go 1.24.4

require (
	github.com/kljensen/snowball v0.10.0
	github.com/sashabaranov/go-openai v1.43.0
)
