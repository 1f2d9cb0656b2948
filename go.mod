module github.com/docmind/docmind

go 1.24.4

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/tmc/langchaingo v0.1.14 // indirect
)
