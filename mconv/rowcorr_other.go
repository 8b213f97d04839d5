//go:build !amd64 || purego

package mconv

// rowCorrVec does nothing without assembly: the scalar loops run.
func rowCorrVec(ys, x, t []float64) int { return 0 }

// vectorRows is false: this build has no assembly.
var vectorRows = false

func rowDot4(k int, y, xt []float64, a *[5][4]float64) { panic("mconv: rowDot4 without assembly") }
