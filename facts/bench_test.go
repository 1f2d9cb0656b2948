package facts

import (
	"strings"
	"testing"
)

func BenchmarkExtract(b *testing.B) {
	text := strings.Repeat("If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on $10,000 from January 15, 2024. ", 20)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		Extract(text)
	}
}

func BenchmarkExtractDigits(b *testing.B) {
	text := strings.Repeat("1 2 3 4 5 ", 1000)
	for i := 0; i < b.N; i++ {
		Extract(text)
	}
}
