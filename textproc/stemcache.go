package textproc

import (
	"hash/maphash"
	"strings"
	"sync"
)

// Porter2 stemming is the costliest step of reading a question, a
// section or a claim: about a quarter of the answer path's CPU at 100,000
// sections went to english.Stem, which converts each word to runes and
// tries every suffix list. The words of a corpus and its questions repeat,
// so Stem keeps the stems it has computed in a bounded cache.

// stemShards and stemShardSize bound the cache: at most
// stemShards*stemShardSize words (131,072; a few MiB). A full shard is
// emptied and fills again with the words in use.
const (
	stemShards    = 16
	stemShardSize = 8192
)

type stemShard struct {
	mu sync.RWMutex
	m  map[string]string
}

var (
	stemSeed  = maphash.MakeSeed()
	stemCache [stemShards]stemShard
)

// cachedStem returns the stem of tok from the cache, computing it with
// stem on a miss.
func cachedStem(tok string, stem func(string) string) string {
	sh := &stemCache[maphash.String(stemSeed, tok)%stemShards]
	sh.mu.RLock()
	st, ok := sh.m[tok]
	sh.mu.RUnlock()
	if ok {
		return st
	}
	st = stem(tok)
	// tok may be a slice of a large document: keep a copy, not the text
	key := strings.Clone(tok)
	if st == tok {
		st = key
	} else {
		st = strings.Clone(st)
	}
	sh.mu.Lock()
	if sh.m == nil || len(sh.m) >= stemShardSize {
		sh.m = make(map[string]string, stemShardSize)
	}
	sh.m[key] = st
	sh.mu.Unlock()
	return st
}
