package kernels

import (
	"math/rand/v2"
	"testing"
)

// The two products of one PF step-loss evaluation at ct-small's paper size
// (40² = 1,600 pixels, 1,000 training functions, 1,000 reduced coordinates).
func benchRows(b *testing.B, adjoint bool) {
	const m, r, n = 1600, 1000, 1000
	rng := rand.New(rand.NewPCG(1, 2))
	a, x, dst := spread(rng, m*r), spread(rng, r*n), spread(rng, m*n)
	b.SetBytes(int64(8 * m * r * n / 1000))
	for b.Loop() {
		if adjoint {
			MatTMulAdd(a, dst, x, m, r, n, 0.5)
		} else {
			MatMulAddT(dst, a, x, m, r, n, 0.5)
		}
	}
}

func BenchmarkMatMulAddT(b *testing.B) { benchRows(b, false) }
func BenchmarkMatTMulAdd(b *testing.B) { benchRows(b, true) }
