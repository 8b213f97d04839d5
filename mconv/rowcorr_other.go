//go:build !amd64 || purego

package mconv

// rowCorrVec does nothing without assembly: the scalar loops run.
func rowCorrVec[F Float](ys, x, t []F) int { return 0 }

// vectorRows is false: this build has no assembly.
var vectorRows = false

// vecLanes is 1: no vectors.
func vecLanes[F Float]() int { return 1 }

func rowDotVec[F Float](k int, y, xt []F, a *[40]F) { panic("mconv: rowDotVec without assembly") }
