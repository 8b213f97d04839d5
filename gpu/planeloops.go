package gpu

import (
	"unsafe"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// The loops over one plane of the host NetOps. In float64 each is its
// scalar loop (the values bit for bit those of every earlier revision); in
// float32, where the CPU has AVX2 and FMA (planeVec), the kernels of
// kernels/vec run instead: their sums are float64 as the loops' are, in
// eight lanes rather than one, and their combinations fuse, so they agree
// with the loops to float32 rounding.

// is32 reports whether F is float32.
func is32[F kernels.Float]() bool { return unsafe.Sizeof(F(0)) == 4 }

// as32 is x as a []float32 (F must be float32).
func as32[F kernels.Float](x []F) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// planeSum returns Σ x, accumulated in float64.
func planeSum[F kernels.Float](x []F) float64 {
	if planeVec && is32[F]() {
		return planeSum32(as32(x))
	}
	return planeSumLoop(x)
}

func planeSumLoop[F kernels.Float](x []F) float64 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s
}

// planeDot returns Σ x·y, accumulated in float64.
func planeDot[F kernels.Float](x, y []F) float64 {
	if planeVec && is32[F]() {
		return planeDot32(as32(x), as32(y))
	}
	return planeDotLoop(x, y)
}

func planeDotLoop[F kernels.Float](x, y []F) float64 {
	y = y[:len(x)]
	var s float64
	for i, v := range x {
		s += float64(v) * float64(y[i])
	}
	return s
}

// planeSumDot returns Σ u and Σ u·z, accumulated in float64.
func planeSumDot[F kernels.Float](u, z []F) (su, suz float64) {
	if planeVec && is32[F]() {
		return planeSumDot32(as32(u), as32(z))
	}
	return planeSumDotLoop(u, z)
}

func planeSumDotLoop[F kernels.Float](u, z []F) (su, suz float64) {
	z = z[:len(u)]
	for i, v := range u {
		su += float64(v)
		suz += float64(v) * float64(z[i])
	}
	return su, suz
}

// shiftSquares writes z = x + c and returns Σ z², accumulated in float64.
func shiftSquares[F kernels.Float](z, x []F, c F) float64 {
	if planeVec && is32[F]() {
		return shiftSquares32(as32(z), as32(x), float32(c))
	}
	return shiftSquaresLoop(z, x, c)
}

func shiftSquaresLoop[F kernels.Float](z, x []F, c F) float64 {
	z = z[:len(x)]
	var q float64
	for i, v := range x {
		z[i] = 1*v + c
		q += float64(z[i]) * float64(z[i])
	}
	return q
}

// affine writes y = a·x + c.
func affine[F kernels.Float](y, x []F, a, c F) {
	if planeVec && is32[F]() {
		affine32(as32(y), as32(x), float32(a), float32(c))
		return
	}
	affineLoop(y, x, a, c)
}

func affineLoop[F kernels.Float](y, x []F, a, c F) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] = a*v + c
	}
}

// combine writes y = a·x + b·z + c.
func combine[F kernels.Float](y, x, z []F, a, b, c F) {
	if planeVec && is32[F]() {
		combine32(as32(y), as32(x), as32(z), float32(a), float32(b), float32(c))
		return
	}
	combineLoop(y, x, z, a, b, c)
}

func combineLoop[F kernels.Float](y, x, z []F, a, b, c F) {
	y, z = y[:len(x)], z[:len(x)]
	for i, v := range x {
		y[i] = a*v + b*z[i] + c
	}
}

// leaky writes dst = u where x > 0 and slope·u elsewhere.
func leaky[F kernels.Float](dst, x, u []F, slope F) {
	if planeVec && is32[F]() {
		leaky32(as32(dst), as32(x), as32(u), float32(slope))
		return
	}
	leakyLoop(dst, x, u, slope)
}

func leakyLoop[F kernels.Float](dst, x, u []F, slope F) {
	dst, u = dst[:len(x)], u[:len(x)]
	for i, v := range x {
		if v > 0 {
			dst[i] = u[i]
		} else {
			dst[i] = slope * u[i]
		}
	}
}
