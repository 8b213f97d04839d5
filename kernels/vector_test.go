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

// TestVectorFFTMatchesScalar compares the float32 FFT with and without the
// vector butterflies and row packing and unpacking: spectra and inverse images bitwise equal, for sizes
// whose plans use radix 3, 4 and 8 stages and batches that are and are not
// multiples of four (and one below four, which runs the scalar code).
func TestVectorFFTMatchesScalar(t *testing.T) {
	if radix4f32 == nil {
		t.Skip("no vector kernels in this build: build with GOEXPERIMENT=simd on amd64 with AVX2 (make test-simd)")
	}
	r := rand.New(rand.NewPCG(8, 9))
	for _, hw := range [][2]int{{96, 96}, {48, 64}, {24, 27}, {40, 2}, {3, 96}, {256, 256}} {
		h, w := hw[0], hw[1]
		f := NewFFT2T[float32](h, w)
		x := make([]float32, h*w)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		sv, ss := make([]Complex[float32], f.SpectrumLen()), make([]Complex[float32], f.SpectrumLen())
		iv, is := make([]float32, h*w), make([]float32, h*w)
		f.Forward(sv, x)
		c3, c4, c8, up, pk := radix3f32, radix4f32, radix8f32, unpackRowTile32, packRowTile32
		off := func() { radix3f32, radix4f32, radix8f32, unpackRowTile32, packRowTile32 = nil, nil, nil, nil, nil }
		on := func() { radix3f32, radix4f32, radix8f32, unpackRowTile32, packRowTile32 = c3, c4, c8, up, pk }
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
