package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVectorDotMatchesScalar compares DotT on float32 with and without the
// vector kernel (package vec): bitwise equal for
// lengths with and without a tail, and for operands of different lengths.
func TestVectorDotMatchesScalar(t *testing.T) {
	if dot32 == nil {
		t.Skip("no vector kernels: this is a purego build, not amd64, or the CPU lacks AVX2")
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

// TestVectorDot64MatchesScalar compares DotT on float64 with and without the
// vector kernel: bitwise equal, for lengths with and without a tail, on
// values whose sums depend on their order in the last bits.
func TestVectorDot64MatchesScalar(t *testing.T) {
	if dot64 == nil {
		t.Skip("no vector kernels: this is a purego build, not amd64, or the CPU lacks AVX2")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 3, 4, 7, 8, 9, 96, 9216, 230401} {
		a, b := spread(r, n), spread(r, n+3)
		v := DotT(a, b)
		d := dot64
		dot64 = nil
		s := DotT(a, b)
		dot64 = d
		if math.Float64bits(v) != math.Float64bits(s) {
			t.Errorf("n = %d: vector %v, scalar %v", n, v, s)
		}
	}
}

// TestVectorFFTMatchesScalar compares the FFT with and without the vector
// butterflies (package vec): spectra and inverse images bitwise equal in
// both precisions, for sizes whose plans use radix 3, 4 and 8 stages and
// batches that are and are not multiples of the vector (and below it, which
// runs the scalar code).
func TestVectorFFTMatchesScalar(t *testing.T) {
	if !vectorFFT {
		t.Skip("no vector kernels: this is a purego build, not amd64, or the CPU lacks AVX2")
	}
	t.Run("float32", func(t *testing.T) { vectorFFTCase[float32](t) })
	t.Run("float64", func(t *testing.T) { vectorFFTCase[float64](t) })
}

func vectorFFTCase[F Float](t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for _, hw := range [][2]int{{96, 96}, {48, 64}, {24, 27}, {40, 2}, {3, 96}, {5, 24}, {7, 40}, {256, 256}} {
		h, w := hw[0], hw[1]
		f := NewFFT2T[F](h, w)
		x := make([]F, h*w)
		for i := range x {
			x[i] = F(r.NormFloat64())
		}
		sv, ss := make([]Complex[F], f.SpectrumLen()), make([]Complex[F], f.SpectrumLen())
		iv, is := make([]F, h*w), make([]F, h*w)
		f.Forward(sv, x)
		off := func() { vectorFFT = false }
		on := func() { vectorFFT = true }
		off()
		f.Forward(ss, x)
		on()
		for i := range sv {
			if sv[i] != ss[i] {
				t.Fatalf("%d×%d: spectrum[%d] = %v with vector butterflies, %v without", h, w, i, sv[i], ss[i])
			}
		}
		f.Inverse(iv, sv)
		off()
		f.Inverse(is, ss)
		on()
		for i := range iv {
			if iv[i] != is[i] {
				t.Fatalf("%d×%d: inverse[%d] = %v with vector butterflies, %v without", h, w, i, iv[i], is[i])
			}
		}
	}
}
