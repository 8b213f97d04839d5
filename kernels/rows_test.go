package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// spread returns n normal values scaled by 2^e for e uniform in [−30, 30], so
// that a sum of their products depends on its order in the last bits.
func spread(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Ldexp(r.NormFloat64(), r.IntN(61)-30)
	}
	return v
}

func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: element %d is %v, the plain loop gives %v", what, i, got[i], want[i])
		}
	}
}

// TestMatMulAddTIsThePlainLoop checks MatMulAddT bitwise against the triple
// loop it replaces (each sum from zero in the order of j, then scaled), for
// shapes with partial row blocks of four and partial column blocks of
// rowBlock, and operands whose sums change in the last bits when reordered.
func TestMatMulAddTIsThePlainLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, s := range [][3]int{{1, 1, 1}, {4, 3, 5}, {7, 19, 300}, {37, 64, 513}, {8, 1, 256}} {
		m, rr, n := s[0], s[1], s[2]
		a, b, d0 := spread(r, m*rr), spread(r, rr*n), spread(r, n*m)
		want := append([]float64(nil), d0...)
		for i := 0; i < m; i++ {
			for k := 0; k < n; k++ {
				var sum float64
				for j := 0; j < rr; j++ {
					sum += a[i*rr+j] * b[j*n+k]
				}
				want[k*m+i] += -0.75 * sum
			}
		}
		got := append([]float64(nil), d0...)
		MatMulAddT(got, a, b, m, rr, n, -0.75)
		sameBits(t, "MatMulAddT", got, want)
	}
}

// TestMatTMulAddIsThePlainLoop checks MatTMulAdd bitwise against the loop it
// replaces (each output accumulated in place in the order of k, skipping
// zero coefficients), without and with zeros among the coefficients, with
// partial blocks.
func TestMatTMulAddIsThePlainLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, s := range [][3]int{{1, 1, 1}, {4, 3, 5}, {7, 300, 19}, {37, 513, 64}, {9, 256, 2}} {
		m, rr, n := s[0], s[1], s[2]
		res, b, d0 := spread(r, n*m), spread(r, n*rr), spread(r, m*rr)
		for _, zeros := range []bool{false, true} {
			if zeros {
				for i := range res {
					if r.IntN(5) == 0 || i%m == 0 {
						res[i] = 0
					}
				}
				// Row 0 has only zero coefficients: skipped, its −0 stay −0
				// (adding the products 0·b would make some +0).
				for j := 0; j < rr; j++ {
					d0[j] = math.Copysign(0, -1)
				}
			}
			matTMulAddCase(t, res, b, d0, m, rr, n)
		}
	}
}

// matTMulAddCase compares MatTMulAdd(d0 + 3·resᵀ b) with the plain loop.
func matTMulAddCase(t *testing.T, res, b, d0 []float64, m, rr, n int) {
	t.Helper()
	want := append([]float64(nil), d0...)
	for i := 0; i < m; i++ {
		for k := 0; k < n; k++ {
			c := 3 * res[k*m+i]
			if c == 0 {
				continue
			}
			for j := 0; j < rr; j++ {
				want[i*rr+j] += c * b[k*rr+j]
			}
		}
	}
	got := append([]float64(nil), d0...)
	MatTMulAdd(got, res, b, m, rr, n, 3)
	sameBits(t, "MatTMulAdd", got, want)
}
