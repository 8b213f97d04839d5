package banert

import (
	"math"
	"math/rand/v2"
	"testing"
)

// planeStats returns the mean of x and 1/√(var + ε).
func planeStats(x []float64) (mu, inv float64) {
	var s float64
	for _, v := range x {
		s += v
	}
	mu = s / float64(len(x))
	var q float64
	for _, v := range x {
		d := v - mu
		q += d * d
	}
	return mu, 1 / math.Sqrt(q/float64(len(x))+NormEps)
}

// TestInstanceNormBitwise compares instanceNorm and instanceNormBackward,
// whose sums run four planes at a time, with the plane-by-plane loops
// (planeStats) bit for bit, for plane counts that are and are not whole
// blocks of four, split over goroutines or not.
func TestInstanceNormBitwise(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ planes, hw int }{{1, 9}, {3, 25}, {6, 40}, {9, 9216}} {
		x, u := make([]float64, c.planes*c.hw), make([]float64, c.planes*c.hw)
		for i := range x {
			x[i] = math.Ldexp(r.NormFloat64(), r.IntN(21)-10) + 3
			u[i] = math.Ldexp(r.NormFloat64(), r.IntN(21)-10)
		}
		z, dz := make([]float64, len(x)), make([]float64, len(x))
		instanceNorm(z, x, c.planes, c.hw)
		instanceNormBackward(dz, x, u, c.planes, c.hw)
		n := float64(c.hw)
		for p := 0; p < c.planes; p++ {
			xs, us := x[p*c.hw:(p+1)*c.hw], u[p*c.hw:(p+1)*c.hw]
			mu, inv := planeStats(xs)
			var su, suz float64
			for i, v := range xs {
				su += us[i]
				suz += us[i] * (v - mu) * inv
			}
			for i, v := range xs {
				k := p*c.hw + i
				want := (v - mu) * inv
				dwant := inv * (us[i] - su/n - (v-mu)*inv*(suz/n))
				if math.Float64bits(z[k]) != math.Float64bits(want) || math.Float64bits(dz[k]) != math.Float64bits(dwant) {
					t.Fatalf("%d planes of %d: value %d: norm %v, backward %v; plane by plane %v, %v", c.planes, c.hw, k, z[k], dz[k], want, dwant)
				}
			}
		}
	}
}
