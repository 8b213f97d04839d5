//go:build !amd64 || purego

package mconv

// convTiles is false: this build has no assembly.
var convTiles = false

func convTile[F Float](dst, src, w, init []F, nb, nu, ds, ps, rs int) {
	panic("mconv: convTile without assembly")
}

func convWeightsRow[F Float](g, y []F, ys int, xt []F, n int) {
	panic("mconv: convWeightsRow without assembly")
}

func convRow[F Float](dst, src, w, init []F, nb, nu, ps, rs int) {
	panic("mconv: convRow without assembly")
}

func accTiles[F Float]() bool { return false }

func convAcc[F Float](acc, src, w []F, nb, nu, ps, rs, groups, n int) {
	panic("mconv: convAcc without assembly")
}

func planeSum[F Float](y []F) float64 { panic("mconv: planeSum without assembly") }
