package kernels

import "gonum.org/v1/gonum/floats"

// AxpyDot adds alpha·b to z, as floats.AddScaled(z, alpha, b) does
// (z[i] = b[i]·alpha + z[i]), and returns Dot(next, z) of the new z: one
// step of a Gram–Schmidt sweep and the coefficient of the next. The lengths
// of b and next must be at least len(z); next may be z itself (then it
// returns the new z·z). On an AVX2 CPU one pass over z does
// both, each element taking the same operations in the same order (the dot
// product in Dot's four lanes), so the result and z are those of the two
// calls bit for bit.
func AxpyDot(z []float64, alpha float64, b, next []float64) float64 {
	b, next = b[:len(z)], next[:len(z)]
	if axpyDot64 != nil {
		return axpyDot64(z, alpha, b, next)
	}
	return axpyDotTwoPass(z, alpha, b, next)
}

// axpyDotTwoPass is AxpyDot as the two calls it stands for.
func axpyDotTwoPass(z []float64, alpha float64, b, next []float64) float64 {
	floats.AddScaled(z, alpha, b)
	return Dot(next, z)
}

// axpyDot64 is AxpyDot in vector registers, set by vector_amd64.go on an
// AVX2 CPU (nil otherwise).
var axpyDot64 func(z []float64, alpha float64, b, next []float64) float64
