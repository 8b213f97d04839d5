//go:build amd64 && !purego

package banert

import "github.com/greedyl2o/greedyl2o/kernels/vec"

// The layer kernels' vector parts (kernels/vec, AVX2): each returns how many
// values of every plane it did, a multiple of 4 (0 without AVX2); the Go
// loops do the rest, continuing the sums in order. The four planes of a
// block are hw values apart.

// planeSums4 adds blockStats' sums to s: Σ (x + o) (p[1] unused), or
// Σ ((x + o) − m)² with squares, p = {o, m} a lane a plane.
func planeSums4(s *[4]float64, x []float64, hw int, p *[2][4]float64, squares bool) int {
	n := hw &^ 3
	if !vec.AVX2 || n == 0 {
		return 0
	}
	_ = x[3*hw+n-1]
	if squares {
		vec.PlaneSquares4x64(&x[0], 8*hw, 8*n, p, s)
	} else {
		vec.PlaneSums4x64(&x[0], 8*hw, 8*n, p, s)
	}
	return n
}

// normLayerRow is normLayer's loop on one plane (vec.NormLayerRow64).
func normLayerRow(ys, xs []float64, p *[8][4]float64) int {
	n := len(xs) &^ 3
	if !vec.AVX2 || n == 0 {
		return 0
	}
	_ = ys[n-1]
	vec.NormLayerRow64(&ys[0], &xs[0], 8*n, p)
	return n
}

// normLayerGradSums4 is normLayerBackward's first loop on four planes
// (vec.NormLayerGradSums4x64).
func normLayerGradSums4(s *[4][4]float64, x, u []float64, hw int, p *[16][4]float64) int {
	n := hw &^ 3
	if !vec.AVX2 || n == 0 {
		return 0
	}
	_, _ = x[3*hw+n-1], u[3*hw+n-1]
	vec.NormLayerGradSums4x64(&x[0], &u[0], 8*hw, 8*n, p, s)
	return n
}

// normLayerGrad4 is normLayerBackward's second loop on four planes
// (vec.NormLayerGrad4x64).
func normLayerGrad4(s *[4]float64, dx, x, u []float64, hw int, p *[31][4]float64) int {
	n := hw &^ 3
	if !vec.AVX2 || n == 0 {
		return 0
	}
	_, _, _ = dx[3*hw+n-1], x[3*hw+n-1], u[3*hw+n-1]
	vec.NormLayerGrad4x64(&dx[0], &x[0], &u[0], 8*hw, 8*n, p, s)
	return n
}
