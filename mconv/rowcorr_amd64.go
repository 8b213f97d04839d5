//go:build amd64 && !purego

package mconv

import (
	"unsafe"

	"github.com/greedyl2o/greedyl2o/kernels/vec"
)

// rowCorrVec adds Σ_v t[v]·x[j+v] (summed in the order of v) to ys[j] for
// the whole vectors of j from 0 (vec.CorrelateAdd3x/5x: each lane the scalar
// loop's operations, so bitwise its result) and returns how many it did: 0
// without AVX2, or for other kernel sizes.
func rowCorrVec[F Float](ys, x, t []F) int {
	lanes := vecLanes[F]()
	whole := len(ys) / lanes * lanes
	if !vectorRows || whole == 0 || (len(t) != 3 && len(t) != 5) {
		return 0
	}
	_ = x[whole+len(t)-2]
	size := int(unsafe.Sizeof(F(0)))
	o, i, r := unsafe.Pointer(&ys[0]), unsafe.Pointer(&x[0]), unsafe.Pointer(&t[0])
	switch {
	case size == 4 && len(t) == 3:
		vec.CorrelateAdd3x32((*float32)(o), (*float32)(i), 4*whole, (*float32)(r))
	case size == 4:
		vec.CorrelateAdd5x32((*float32)(o), (*float32)(i), 4*whole, (*float32)(r))
	case len(t) == 3:
		vec.CorrelateAdd3x64((*float64)(o), (*float64)(i), 8*whole, (*float64)(r))
	default:
		vec.CorrelateAdd5x64((*float64)(o), (*float64)(i), 8*whole, (*float64)(r))
	}
	return whole
}

// vectorRows is whether rowCorrVec and rowDotVec run (the CPU has AVX2).
var vectorRows = vec.AVX2

// vecLanes is the number of F in a 32-byte vector.
func vecLanes[F Float]() int { return 32 / int(unsafe.Sizeof(F(0))) }

// rowDotVec sets a[v·L + l] = Σ_j y[j]·xt[L(j+v) + l] for v < k (3 or 5)
// and the L = vecLanes lanes, each sum from zero in the order of j
// (vec.RowDot3x/5x).
func rowDotVec[F Float](k int, y, xt []F, a *[40]F) {
	lanes := vecLanes[F]()
	_ = xt[lanes*(len(y)+k-1)-1]
	yp, xp, ap := unsafe.Pointer(&y[0]), unsafe.Pointer(&xt[0]), unsafe.Pointer(&a[0])
	switch {
	case lanes == 8 && k == 3:
		vec.RowDot3x32((*float32)(yp), (*float32)(xp), len(y), (*float32)(ap))
	case lanes == 8:
		vec.RowDot5x32((*float32)(yp), (*float32)(xp), len(y), (*float32)(ap))
	case k == 3:
		vec.RowDot3x64((*float64)(yp), (*float64)(xp), len(y), (*float64)(ap))
	default:
		vec.RowDot5x64((*float64)(yp), (*float64)(xp), len(y), (*float64)(ap))
	}
}
