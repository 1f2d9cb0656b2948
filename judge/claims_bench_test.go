package judge

import (
	"fmt"
	"strings"
	"testing"
)

// longAnswer is n one-line paragraphs, every tenth with a citation: the
// shape of an oversized model reply.
func longAnswer(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "The provider shall keep record number %d for  seven years", i)
		if i%10 == 0 {
			b.WriteString(" (See Records, page 3)")
		}
		b.WriteString(".\n\n")
	}
	return b.String()
}

func BenchmarkSplitClaims(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		answer := longAnswer(n)
		b.Run(fmt.Sprintf("%dKB", len(answer)/1024), func(b *testing.B) {
			for b.Loop() {
				SplitClaims(answer)
			}
		})
	}
}
