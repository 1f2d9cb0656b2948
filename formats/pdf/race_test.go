//go:build race

package pdf

// raceEnabled skips the tests that parse the ten real filings (about 1,070
// pages): under the race detector PDFium's WebAssembly runs many times
// slower. They run in a normal `go test`.
const raceEnabled = true
