//go:build amd64 && !purego

package mconv

import (
	"unsafe"

	"github.com/greedyl2o/greedyl2o/kernels/vec"
)

// convTiles is whether the 3×3 tile kernels run: the CPU has AVX2 and FMA
// (the float32 kernels fuse).
var convTiles = vec.AVX2 && vec.FMA

// convTile runs vec.ConvTile3x32 (see corrOp.runTiles): dst[q·ds + j] for
// the tileOut outputs q and tileCols columns j, from init[q] and nb inputs
// of nu filter rows; the strides are in elements. float32 only (float64
// runs convAcc).
func convTile[F Float](dst, src, w, init []F, nb, nu, ds, ps, rs int) {
	if unsafe.Sizeof(F(0)) != 4 {
		panic("mconv: convTile on float64")
	}
	_ = dst[(tileOut-1)*ds+tileCols-1]
	_ = src[(nb-1)*ps+(nu-1)*rs+tileCols+1]
	_ = w[72*(nb-1)+24*nu-1]
	_ = init[tileOut-1]
	d, s, f, i := unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), unsafe.Pointer(&w[0]), unsafe.Pointer(&init[0])
	vec.ConvTile3x32((*float32)(d), (*float32)(s), (*float32)(f), (*float32)(i), nb, nu, 4*ds, 4*ps, 4*rs)
}

// accTiles is whether the K = 3 correlations with three outputs or more
// run vec.ConvAcc3x64 (float64) rather than vec.ConvTile3x32 (float32).
func accTiles[F Float]() bool { return unsafe.Sizeof(F(0)) == 8 }

// convWeightsRow runs vec.ConvWeightsRow3x: adds one row's K = 3 filter sums
// of tileOutW outputs (rows y + o·ys, ys in elements) and the lanes of the
// interleaved row xt to g[o][v][lane], for a row of n ≥ 3 columns.
func convWeightsRow[F Float](g, y []F, ys int, xt []F, n int) {
	lanes := vecLanes[F]()
	_ = g[tileOutW*3*lanes-1]
	_ = y[(tileOutW-1)*ys+n-1]
	_ = xt[n*lanes-1]
	size := int(unsafe.Sizeof(F(0)))
	gp, yp, xp := unsafe.Pointer(&g[0]), unsafe.Pointer(&y[0]), unsafe.Pointer(&xt[0])
	if size == 4 {
		vec.ConvWeightsRow3x32((*float32)(gp), (*float32)(yp), 4*ys, (*float32)(xp), n)
		return
	}
	vec.ConvWeightsRow3x64((*float64)(gp), (*float64)(yp), 8*ys, (*float64)(xp), n)
}

// convRow runs vec.ConvRow3x (see corrOp.runRows): dst[j] for rowVecs
// vectors of columns j, from init[0] and nb inputs of nu filter rows; the
// strides are in elements.
func convRow[F Float](dst, src, w, init []F, nb, nu, ps, rs int) {
	n := rowVecs * vecLanes[F]()
	_ = dst[n-1]
	_ = src[(nb-1)*ps+(nu-1)*rs+n+1]
	_ = w[9*(nb-1)+3*nu-1]
	_ = init[0]
	size := int(unsafe.Sizeof(F(0)))
	d, s, f, i := unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), unsafe.Pointer(&w[0]), unsafe.Pointer(&init[0])
	if size == 4 {
		vec.ConvRow3x32((*float32)(d), (*float32)(s), (*float32)(f), (*float32)(i), nb, nu, 4*ps, 4*rs)
		return
	}
	vec.ConvRow3x64((*float64)(d), (*float64)(s), (*float64)(f), (*float64)(i), nb, nu, 8*ps, 8*rs)
}

// convAcc runs vec.ConvAcc3x64 (see corrOp.runAcc): adds the correlations
// of nb inputs × nu filter rows with the taps w of 3·groups outputs to their
// rows in acc (n vectors each); the strides are in elements. float64 only.
func convAcc[F Float](acc, src, w []F, nb, nu, ps, rs, groups, n int) {
	if unsafe.Sizeof(F(0)) != 8 {
		panic("mconv: convAcc on float32")
	}
	_ = acc[3*groups*4*n-1]
	_ = src[(nb-1)*ps+(nu-1)*rs+4*n+1]
	_ = w[27*groups*(nb-1)+9*groups*nu-1]
	a, s, f := unsafe.Pointer(&acc[0]), unsafe.Pointer(&src[0]), unsafe.Pointer(&w[0])
	vec.ConvAcc3x64((*float64)(a), (*float64)(s), (*float64)(f), nb, nu, 8*ps, 8*rs, groups, n)
}

// planeSum returns Σ y in float64 (float32 only): vec.PlaneSum32 over
// whole vectors, its eight lanes added in a fixed order, then the rest.
func planeSum[F Float](y []F) float64 {
	if unsafe.Sizeof(F(0)) != 4 {
		panic("mconv: planeSum on float64")
	}
	whole := len(y) &^ 7
	var s [8]float64
	if whole > 0 {
		vec.PlaneSum32((*float32)(unsafe.Pointer(&y[0])), 4*whole, &s)
	}
	sum := ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]))
	for _, v := range y[whole:] {
		sum += float64(v)
	}
	return sum
}
