//go:build amd64 && !purego

package mconv

import (
	"unsafe"

	"github.com/greedyl2o/greedyl2o/kernels/vec"
)

// rowCorrVec adds Σ_v t[v]·x[j+v] (summed in the order of v) to ys[j] for
// the whole vectors of four j from 0 (vec.CorrelateAdd3x64/5x64: each lane
// the scalar loop's operations, so bitwise its result) and returns how many
// it did: 0 without AVX2, or for other kernel sizes.
func rowCorrVec(ys, x, t []float64) int {
	whole := len(ys) / 4 * 4
	if !vectorRows || whole == 0 {
		return 0
	}
	_ = x[whole+len(t)-2]
	switch len(t) {
	case 3:
		vec.CorrelateAdd3x64(&ys[0], &x[0], 8*whole, &t[0])
	case 5:
		vec.CorrelateAdd5x64(&ys[0], &x[0], 8*whole, &t[0])
	default:
		return 0
	}
	return whole
}

// vectorRows is whether rowCorrVec runs (the CPU has AVX2).
var vectorRows = vec.AVX2

// rowDot4 sets a[v][l] = Σ_j y[j]·xt[4(j+v) + l] for v < k (3 or 5), each
// sum from zero in the order of j (vec.RowDot3x4/5x4).
func rowDot4(k int, y, xt []float64, a *[5][4]float64) {
	_ = xt[4*(len(y)+k-1)-1]
	if k == 3 {
		vec.RowDot3x4(&y[0], &xt[0], len(y), (*[3][4]float64)(unsafe.Pointer(a)))
		return
	}
	vec.RowDot5x4(&y[0], &xt[0], len(y), a)
}
