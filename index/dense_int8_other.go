//go:build !amd64

package index

// haveDotInt8Blocks is false: this platform has no vector kernel, and
// dotInt8 runs the portable loop.
const haveDotInt8Blocks = false

func dotInt8Blocks(a, b *int8, n int) int32 {
	panic("dotInt8Blocks: no vector kernel on this platform")
}
