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

// TestInstanceNormVector compares instanceNorm and instanceNormBackward,
// whose sums run four planes at a time (in kernels/vec's PlaneSums4x64 and
// PlaneSquares4x64 where the CPU has AVX2), with the plane-by-plane loops
// (planeStats) bit for bit, for plane counts that are and are not whole
// blocks of four, plane sizes that are and are not whole vectors, split over
// goroutines or not.
func TestInstanceNormVector(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ planes, hw int }{{1, 9}, {3, 25}, {6, 40}, {8, 27}, {9, 9216}} {
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

// TestNormLayerVector compares normLayer and normLayerBackward (in
// kernels/vec's NormLayer kernels where the CPU has AVX2, the Go loops
// doing the rest) with the Go chain they fuse (addChannelBias,
// instanceNorm, channelAffine, leakyReLU and their backward kernels,
// channelDots and channelSums for γ, β and b) bit for bit: several images,
// channel counts that are and are not whole blocks of four, plane sizes
// that are and are not whole vectors, split over goroutines or not, with
// values whose biased sum is ±0 and gradients that are ±0, where a sign of
// zero could differ.
func TestNormLayerVector(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct{ n, c, hw int }{{1, 3, 9}, {2, 5, 25}, {3, 4, 40}, {2, 9, 9216}} {
		size := c.n * c.c * c.hw
		x, u := make([]float64, size), make([]float64, size)
		b, gamma, beta := make([]float64, c.c), make([]float64, c.c), make([]float64, c.c)
		for ch := range b {
			b[ch], gamma[ch], beta[ch] = r.NormFloat64(), r.NormFloat64(), 0.1*r.NormFloat64()
		}
		gamma[0] = 0 // γ·d = ±0 everywhere on channel 0
		for i := range x {
			x[i] = math.Ldexp(r.NormFloat64(), r.IntN(11)-5)
			u[i] = r.NormFloat64()
			switch r.IntN(8) {
			case 0:
				x[i] = -b[(i/c.hw)%c.c] // x + b = +0
			case 1:
				u[i] = math.Copysign(0, r.NormFloat64())
			}
		}
		y, dx, sums := make([]float64, size), make([]float64, size), make([]float64, 3*c.c)
		normLayer(y, x, b, gamma, beta, c.n, c.c, c.hw)
		normLayerBackward(dx, sums, x, u, b, gamma, beta, c.n, c.c, c.hw)

		planes := c.n * c.c
		z1, z2, z3, want := make([]float64, size), make([]float64, size), make([]float64, size), make([]float64, size)
		addChannelBias(z1, x, b, c.n, c.c, c.hw)
		instanceNorm(z2, z1, planes, c.hw)
		channelAffine(z3, z2, gamma, beta, c.n, c.c, c.hw)
		leakyReLU(want, z3)
		d3, dz2, dz1 := make([]float64, size), make([]float64, size), make([]float64, size)
		leakyReLUBackward(d3, z3, u)
		wantSums := make([]float64, 3*c.c)
		channelDots(wantSums[:c.c], d3, z2, c.n, c.c, c.hw)
		channelSums(wantSums[c.c:2*c.c], d3, c.n, c.c, c.hw)
		channelAffine(dz2, d3, gamma, nil, c.n, c.c, c.hw)
		instanceNormBackward(dz1, z1, dz2, planes, c.hw)
		channelSums(wantSums[2*c.c:], dz1, c.n, c.c, c.hw)

		for _, v := range []struct {
			name      string
			got, want []float64
		}{{"forward", y, want}, {"backward", dx, dz1}, {"parameter gradients", sums, wantSums}} {
			for i := range v.got {
				if math.Float64bits(v.got[i]) != math.Float64bits(v.want[i]) {
					t.Fatalf("%d×%d planes of %d: %s value %d: fused %v, chain %v", c.n, c.c, c.hw, v.name, i, v.got[i], v.want[i])
				}
			}
		}
	}
}
