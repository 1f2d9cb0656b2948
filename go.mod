module github.com/docmind/docmind

go 1.25.0

require (
	github.com/klippa-app/go-pdfium v1.19.0
	github.com/kljensen/snowball v0.10.0
	github.com/tetratelabs/wazero v1.11.0
	golang.org/x/net v0.53.0
	golang.org/x/text v0.36.0
)

require (
	github.com/google/uuid v1.6.0 // indirect
	github.com/jolestar/go-commons-pool/v2 v2.1.2 // indirect
	golang.org/x/sys v0.43.0 // indirect
)
