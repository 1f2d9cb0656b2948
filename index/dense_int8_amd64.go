package index

import "golang.org/x/sys/cpu"

// haveDotInt8Blocks tells whether dotInt8Blocks runs here (AVX2).
var haveDotInt8Blocks = cpu.X86.HasAVX2

// dotInt8Blocks is the dot product of a[:n] and b[:n], n a multiple of 32,
// by AVX2 (dense_int8_amd64.s).
//
//go:noescape
func dotInt8Blocks(a, b *int8, n int) int32
