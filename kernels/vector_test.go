package kernels

import (
	"math/rand/v2"
	"testing"
)

// TestVectorDotMatchesScalar compares DotT on float32 with and without the
// vector kernel (a GOEXPERIMENT=simd build on an AVX2 CPU): bitwise equal for
// lengths with and without a tail, and for operands of different lengths.
func TestVectorDotMatchesScalar(t *testing.T) {
	if dot32 == nil {
		t.Skip("no vector kernels in this build: build with GOEXPERIMENT=simd on amd64 with AVX2 (make test-simd)")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 3, 4, 7, 8, 9, 96, 9216, 230401} {
		a, b := make([]float32, n), make([]float32, n+2)
		for i := range a {
			a[i] = float32(r.NormFloat64())
		}
		for i := range b {
			b[i] = float32(r.NormFloat64() * 1e-3)
		}
		v := DotT(a, b)
		d := dot32
		dot32 = nil
		s := DotT(a, b)
		dot32 = d
		if v != s {
			t.Errorf("n = %d: vector %v, scalar %v", n, v, s)
		}
	}
}
