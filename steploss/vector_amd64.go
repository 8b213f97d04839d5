//go:build !purego

package steploss

import (
	"unsafe"

	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/kernels/vec"
)

// The float32 kernels of the engine in Go assembly (package kernels/vec) on
// AVX2 CPUs: whole vectors there, the rest by the scalar formulas.
func init() {
	if !vec.AVX2 {
		return
	}
	addProduct32 = addProductVec
	accumulateConjProduct32 = accumulateConjProductVec
	combineScalars32 = combineScalarsVec
	addImages32 = addImagesVec
}

// parts32 views c as its interleaved parts [re0, im0, re1, im1, …].
func parts32(c []kernels.Complex[float32]) *float32 {
	return (*float32)(unsafe.Pointer(&c[0]))
}

// addProductVec is addProduct for float32, four complex values a vector:
// with p = Re(t)·v and q = Im(t)·swap(v), dst += (p0 − q0, p1 + q1), the
// scalar formulas' operations.
func addProductVec(dst, t, v []kernels.Complex[float32]) {
	n := len(dst)
	t, v = t[:n], v[:n]
	whole := n / 4 * 4
	if whole > 0 {
		vec.AddProduct32(parts32(dst), parts32(t), parts32(v), 8*whole)
	}
	for q := whole; q < n; q++ {
		x, y := t[q], v[q]
		dst[q].Re += x.Re*y.Re - x.Im*y.Im
		dst[q].Im += x.Re*y.Im + x.Im*y.Re
	}
}

// accumulateConjProductVec is accumulateConjProduct for float32: with the
// products in float64 (exact for float32 factors), acc += (vr·zr + vi·zi,
// vr·zi − vi·zr), two complex values a vector.
func accumulateConjProductVec(acc []kernels.Complex[float64], v, z []kernels.Complex[float32]) {
	n := len(acc)
	v, z = v[:n], z[:n]
	whole := n / 2 * 2
	if whole > 0 {
		vec.AccumulateConjProduct32((*float64)(unsafe.Pointer(&acc[0])), parts32(v), parts32(z), 16*whole)
	}
	for q := whole; q < n; q++ {
		ar, ai := float64(v[q].Re), float64(v[q].Im)
		zr, zi := float64(z[q].Re), float64(z[q].Im)
		acc[q].Re += ar*zr + ai*zi
		acc[q].Im += ar*zi - ai*zr
	}
}

// combineScalarsVec is engineRun.combine for two scalar terms in float32:
// xp = float32((x + c0·v0) + c1·v1), each sum formed in float64 in the
// scalar loop's order, four pixels a vector.
func combineScalarsVec(xp, x, v0, v1 []float32, c0, c1 float64) {
	n := len(x)
	xp, v0, v1 = xp[:n], v0[:n], v1[:n]
	whole := n / 4 * 4
	if whole > 0 {
		vec.CombineScalars32(&xp[0], &x[0], &v0[0], &v1[0], 4*whole, c0, c1)
	}
	for j := whole; j < n; j++ {
		xp[j] = float32(float64(x[j]) + c0*float64(v0[j]) + c1*float64(v1[j]))
	}
}

// addImagesVec writes xp = x + img in float32, eight pixels a vector.
func addImagesVec(xp, x, img []float32) {
	n := len(x)
	xp, img = xp[:n], img[:n]
	whole := n / 8 * 8
	if whole > 0 {
		vec.AddImages32(&xp[0], &x[0], &img[0], 4*whole)
	}
	for j := whole; j < n; j++ {
		xp[j] = x[j] + img[j]
	}
}
