package index

import (
	"math"
	"unsafe"
)

// quantize writes v's int8 codes into dst (len(dst) == len(v)) and returns
// the vector's scale: v[i] ≈ scale * dst[i]. The scale maps the largest
// magnitude to 127, so codes lie in [-127, 127] and a dot product of two
// code vectors never overflows an int32 at any practical dimension.
func quantize(dst []int8, v []float32) float32 {
	var m float32
	for _, f := range v {
		m = max(m, float32(math.Abs(float64(f))))
	}
	if m == 0 || math.IsInf(float64(m), 0) || math.IsNaN(float64(m)) {
		clear(dst)
		return 0
	}
	inv := 127 / float64(m)
	for i, f := range v {
		c := math.Round(float64(f) * inv)
		dst[i] = int8(max(-127, min(127, c)))
	}
	return m / 127
}

// dotInt8Generic is the portable int8 dot product.
func dotInt8Generic(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// dotInt8 is the dot product of two equally long code vectors, by the
// platform's vector instructions where there are some (dotInt8Blocks).
func dotInt8(a, b []int8) int32 {
	n := len(a) &^ 31
	var s int32
	if n > 0 && haveDotInt8Blocks {
		s = dotInt8Blocks(&a[0], &b[0], n)
	} else {
		n = 0
	}
	if n < len(a) {
		s += dotInt8Generic(a[n:], b[n:len(a)])
	}
	return s
}

// bytesAsInt8 views b as int8 codes (no copy).
func bytesAsInt8(b []byte) []int8 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[0])), len(b))
}

// int8AsBytes views codes as bytes (no copy).
func int8AsBytes(c []int8) []byte {
	if len(c) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&c[0])), len(c))
}
