package loader

import (
	"maps"
	"sync"
)

// ParserFactory starts a parser for one format and returns it with a
// function that releases what it holds (such as a WebAssembly runtime).
// A factory should start nothing expensive until the parser's first
// Parse.
type ParserFactory func() (p Parser, release func())

var (
	registryMu sync.Mutex
	registry   = map[string]ParserFactory{}
)

// Register makes a parser for format available to the loaders that
// docmind.NewLoader (and so docmind.LoadDocuments, docmind ingest and
// the server) builds. A format package registers itself when it is
// imported, as image/png does for image.Decode:
//
//	import _ "github.com/docmind/docmind/formats/pdf"
//
// so that a program that never reads that format does not link its
// parser. Registering a format twice replaces the first factory.
func Register(format string, f ParserFactory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[format] = f
}

// Registered returns the factories registered with Register, by format.
func Registered() map[string]ParserFactory {
	registryMu.Lock()
	defer registryMu.Unlock()
	return maps.Clone(registry)
}
