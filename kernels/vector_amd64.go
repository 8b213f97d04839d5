//go:build goexperiment.simd && amd64

package kernels

import "simd/archsimd"

func init() {
	if archsimd.X86.AVX2() {
		dot32 = dotAVX2
	}
}

// dotAVX2 is DotT for float32: the four accumulators s0…s3 of DotT are the
// lanes of one float64 vector, each adding the same products in the same
// order, so the result is DotT's bit for bit.
func dotAVX2(a, b []float32) float64 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var acc archsimd.Float64x4
	i := 0
	for ; i+4 <= n; i += 4 {
		x := archsimd.LoadFloat32x4((*[4]float32)(a[i : i+4])).ConvertToFloat64()
		y := archsimd.LoadFloat32x4((*[4]float32)(b[i : i+4])).ConvertToFloat64()
		acc = acc.Add(x.Mul(y))
	}
	var s [4]float64
	acc.Store(&s)
	for ; i < n; i++ {
		s[0] += float64(a[i]) * float64(b[i])
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}
