package problem

import (
	"unsafe"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// Vector kernels. On amd64 without the purego tag, vector_amd64.go sets them
// (Go assembly, package kernels/vec) when the CPU has AVX2; otherwise they
// stay nil and the generic scalar loops run. Each computes what its scalar
// loop computes, with the same operations in the same order in every lane
// (no fused multiply-add), so pixels and gradients are bitwise equal; float32
// sums accumulated in float64 (residual) are added in another order.
var (
	// combineRows32 and combineRows64 are combineRows for 3 or 5
	// coefficients (false: not done).
	combineRows32 func(out, src []float32, stride int, c []float32) bool
	combineRows64 func(out, src []float64, stride int, c []float64) bool
	// correlateRow32 and correlateRow64 are correlateRow for 3 or 5
	// coefficients.
	correlateRow32 func(out, in, r []float32) bool
	correlateRow64 func(out, in, r []float64) bool
	// residual32 replaces res by res − y and returns Σ res², in float64.
	residual32 func(res, y []float32) float64
	// huberTVRow32 is one row i of huberTVImage with a gradient, for the
	// columns j < w−1: given row, next (row i+1, or row itself for the last
	// row), the gradient row gr, up (Ψ1 of row i−1, overwritten by row i's)
	// and scratch of 2w values, it returns their Σ h_ε in float64 and the
	// number of columns done (w−1, or 0 for rows it leaves to the scalar
	// loop), with Ψ2[i, done−1] in scratch[done] (0 for done = 0).
	huberTVRow32 func(gr, row, next, up, scratch []float32, half, inv2, eps2, eps, alpha float32) (float64, int)
	// huberTVRow64 is huberTVRow32 for float64 with scratch of 3w values:
	// it leaves the per-pixel values of the columns it did (the count it
	// returns) in scratch[2w:], for the caller to add in order.
	huberTVRow64 func(gr, row, next, up, scratch []float64, half, inv2, eps2, eps, alpha float64) int
)

// VectorKernels reports whether the evaluations run vector kernels (amd64
// with AVX2, without the purego build tag).
func VectorKernels() bool { return combineRows32 != nil }

// is32 reports whether F is a 4-byte float (float32 or a type defined on it);
// it is a constant in each instantiation.
func is32[F kernels.Float]() bool {
	var z F
	return unsafe.Sizeof(z) == 4
}

// as32 views s as []float32 (same memory); only for F with is32[F]().
func as32[F kernels.Float](s []F) []float32 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&s[0])), len(s))
}

// as64 views s as []float64 (same memory); only for 8-byte F.
func as64[F kernels.Float](s []F) []float64 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&s[0])), len(s))
}
