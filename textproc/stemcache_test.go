package textproc

import (
	"fmt"
	"sync"
	"testing"
)

func TestStemCacheAgreesAndStaysBounded(t *testing.T) {
	words := []string{"running", "renewal", "renewing", "agreements", "hourly", "generously", "caresses", "ponies"}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 3; i++ { // a miss, then hits
				for _, w := range words {
					if got, want := Stem(w), stemUncached(w); got != want {
						t.Errorf("Stem(%q) = %q, want %q", w, got, want)
					}
				}
			}
		}()
	}
	wg.Wait()
	// more distinct words than the cache holds: it stays within bounds
	// and still stems right
	for i := 0; i < 2*stemShards*stemShardSize; i++ {
		w := fmt.Sprintf("word%c%dings", 'a'+rune(i%26), i) // has a digit: not cached
		Stem(w)
		w = fmt.Sprintf("x%sations", letters(i))
		if got, want := Stem(w), stemUncached(w); got != want {
			t.Fatalf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
	n := 0
	for i := range stemCache {
		sh := &stemCache[i]
		sh.mu.RLock()
		if len(sh.m) > stemShardSize {
			t.Errorf("shard %d holds %d words, more than %d", i, len(sh.m), stemShardSize)
		}
		n += len(sh.m)
		sh.mu.RUnlock()
	}
	if n == 0 || n > stemShards*stemShardSize {
		t.Errorf("cache holds %d words, want 1..%d", n, stemShards*stemShardSize)
	}
}

// letters writes i in base 26 with the letters a-z.
func letters(i int) string {
	b := []byte{byte('a' + i%26)}
	for i /= 26; i > 0; i /= 26 {
		b = append(b, byte('a'+i%26))
	}
	return string(b)
}

func BenchmarkStem(b *testing.B) {
	words := Tokens("Client shall pay a late fee of one and a half percent per month on amounts not received within thirty days of the invoice date, and Provider may suspend the Services after written notice")
	b.Run("cached", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, w := range words {
				Stem(w)
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, w := range words {
				stemUncached(w)
			}
		}
	})
}
