package index

import (
	"math/rand/v2"
	"testing"
)

// TestDotInt8 compares the vector kernel with the portable loop on every
// length around the kernel's 32-code blocks and on extreme codes.
func TestDotInt8(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 200; n++ {
		a, b := make([]int8, n), make([]int8, n)
		for i := range a {
			a[i], b[i] = int8(rng.IntN(255)-127), int8(rng.IntN(255)-127)
		}
		if got, want := dotInt8(a, b), dotInt8Generic(a, b); got != want {
			t.Fatalf("n=%d: dotInt8 = %d, portable loop %d", n, got, want)
		}
	}
	a := make([]int8, 4096)
	for i := range a {
		a[i] = -127
	}
	if got, want := dotInt8(a, a), int32(4096*127*127); got != want {
		t.Fatalf("extreme codes: dotInt8 = %d, want %d", got, want)
	}
}

func TestQuantize(t *testing.T) {
	v := []float32{0.5, -0.25, 0, 0.125, -0.5}
	c := make([]int8, len(v))
	s := quantize(c, v)
	for i, f := range v {
		if d := float32(c[i])*s - f; d > s/2 || d < -s/2 {
			t.Errorf("component %d: %v decodes to %v", i, f, float32(c[i])*s)
		}
	}
	if c[0] != 127 || c[4] != -127 {
		t.Errorf("largest magnitudes map to ±127: %v", c)
	}
	if s := quantize(c, make([]float32, len(v))); s != 0 {
		t.Errorf("zero vector: scale %v, want 0", s)
	}
}
