package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotRunIsDot checks that a dot product taken in pieces of every
// split, continued through its running state, is bitwise Dot of the whole
// vectors, for lengths with and without a tail.
func TestDotRunIsDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, total := range []int{1, 3, 4, 6, 7, 10, 11, 15, 16, 31, 37, 256, 1001, 1003} {
		a, b := make([]float64, total), make([]float64, total)
		for i := range a {
			a[i], b[i] = rng.NormFloat64()*math.Exp(3*rng.NormFloat64()), rng.NormFloat64()
		}
		a[0], b[0] = 1e16, 1 // the small products round away where they join it
		want := Dot(a, b)
		for _, pieces := range [][]int{{total}, {1, total - 1}, {total / 3, total / 2}, {5, 6, 7, 8}} {
			run := make([]float64, DotRunLen)
			at := 0
			for _, p := range append(pieces, total) {
				end := min(at+max(p, 0), total)
				if p == total {
					end = total
				}
				DotRunAdd(run, a[at:end], b[at:end], total)
				at = end
			}
			if got := DotRunValue(run); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("total %d in pieces %v: %v, Dot %v", total, pieces, got, want)
			}
		}
	}
}
