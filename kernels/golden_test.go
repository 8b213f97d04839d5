package kernels

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testsupport"
)

// The float64 kernels must give bitwise the results they gave before they
// were made generic over float32 and float64. goldenKernels lists FNV-1a
// hashes of the bits of their outputs on fixed-seed data, computed with the
// float64-only code (commit a1086c6). GOLDEN_PRINT=1 prints the current hashes.
var goldenKernels = map[string]string{
	"cfft/12/inverse=false":      "cdd8b7be941233a2",
	"cfft/12/inverse=true":       "d608af51af097471",
	"cfft/121/inverse=false":     "175b9ec545637212",
	"cfft/121/inverse=true":      "e000f4d3c1128759",
	"cfft/128/inverse=false":     "a8aab4b0084312ae",
	"cfft/128/inverse=true":      "d7324aa3ba40ed3e",
	"cfft/60/inverse=false":      "db9c5efb1b9dee4f",
	"cfft/60/inverse=true":       "f4e92d7a804a304b",
	"cfft/7/inverse=false":       "6bdd962365d5c3b7",
	"cfft/7/inverse=true":        "5e387468d3bdc733",
	"cfft/77/inverse=false":      "c24b0fb1948035e8",
	"cfft/77/inverse=true":       "3ab0cc43449c25c5",
	"conv/circular/K3/adjimage":  "5c2df2f0f43dd241",
	"conv/circular/K3/adjkernel": "bb7c26c78591f408",
	"conv/circular/K3/apply":     "78d879b66583bafd",
	"conv/circular/K5/adjimage":  "c9602aaa8bb70be1",
	"conv/circular/K5/adjkernel": "998eeacd240f0c98",
	"conv/circular/K5/apply":     "d1c0c713dcdd5817",
	"conv/circular/K7/adjimage":  "c4408557c9229741",
	"conv/circular/K7/adjkernel": "b2b358f6a017e25f",
	"conv/circular/K7/apply":     "9aea39379a98f9a1",
	"conv/reflect/K3/adjimage":   "d8ec5764f7a71654",
	"conv/reflect/K3/adjkernel":  "65d409dbe3eeb9d6",
	"conv/reflect/K3/apply":      "eb92d21189dcff48",
	"conv/reflect/K5/adjimage":   "8a6e884f789ecaa4",
	"conv/reflect/K5/adjkernel":  "3c06568e7ecc2fd2",
	"conv/reflect/K5/apply":      "b5c2daa447d992ef",
	"conv/reflect/K7/adjimage":   "ffebd945bb6add4d",
	"conv/reflect/K7/adjkernel":  "a658f2e3fb65e592",
	"conv/reflect/K7/apply":      "587a5f454217d4c2",
	"conv/zero/K3/adjimage":      "0cd15bb795e43379",
	"conv/zero/K3/adjkernel":     "1ee3312f800cf614",
	"conv/zero/K3/apply":         "c16564ea9c453d5e",
	"conv/zero/K5/adjimage":      "704ecf32d5dc43d8",
	"conv/zero/K5/adjkernel":     "549799e83557811b",
	"conv/zero/K5/apply":         "1397a7f86b965ed1",
	"conv/zero/K7/adjimage":      "d51cb02d413f9d50",
	"conv/zero/K7/adjkernel":     "1dd165d95ce42c45",
	"conv/zero/K7/apply":         "44cd9a7f612d0d88",
	"dot/1000":                   "3f989a2ebc03cc5c",
	"dot/1003":                   "6909d7579340dfff",
	"fft2/14x22/forward":         "e2673c4fb13375f8",
	"fft2/14x22/inverse":         "aae4faebc30b776a",
	"fft2/16x7/forward":          "390a32b9e2f923a5",
	"fft2/16x7/inverse":          "4e222487990a698e",
	"fft2/1x1/forward":           "b02a5468165dae36",
	"fft2/1x1/inverse":           "2843146666f7ac2c",
	"fft2/1x2/forward":           "279df91e092cfb25",
	"fft2/1x2/inverse":           "b39a275ccc31e07f",
	"fft2/256x256/forward":       "57bad6abbc9323ff",
	"fft2/256x256/inverse":       "05350222f81f5bac",
	"fft2/35x21/forward":         "f0813c129cf603e6",
	"fft2/35x21/inverse":         "e7e6c626c912d818",
	"fft2/40x40/forward":         "32caa4a33a20b15c",
	"fft2/40x40/inverse":         "8ab99d5747c9c887",
	"fft2/49x98/forward":         "a169987c5f3ed1b6",
	"fft2/49x98/inverse":         "e0ba4a810c418b41",
	"fft2/96x96/forward":         "b556483d6d6fd318",
	"fft2/96x96/inverse":         "2220118713b418c2",
	"fft2/9x15/forward":          "dde23039d84467b6",
	"fft2/9x15/inverse":          "1e68f0195f4ecd3b",
	"fftconv/adjimage":           "1d255cfa518651bb",
	"fftconv/adjkernel":          "e27070abb96890a0",
	"fftconv/apply":              "2980c9f69ee4df3c",
	"fftpool/forward":            "46fb5ad8acc0c964",
	"grad":                       "53bc22e4019fbe75",
	"gradadjoint":                "e8e983dc2dee84aa",
	"huber/derivative":           "d0d92ee0fe854369",
	"huber/hessvec":              "f9f409ad1cf86958",
	"huber/value":                "aa42ce6e77456f37",
	"power/DtD":                  "5515912a436ba23b",
}

// bitsHash is the FNV-1a hash of the IEEE bits of v (float64 or complex128
// slices, or a float64).
func bitsHash(v any) string {
	h := fnv.New64a()
	var buf [8]byte
	put := func(f float64) {
		b := math.Float64bits(f)
		for i := range buf {
			buf[i] = byte(b >> (8 * i))
		}
		h.Write(buf[:])
	}
	switch v := v.(type) {
	case float64:
		put(v)
	case []float64:
		for _, f := range v {
			put(f)
		}
	case []complex128:
		for _, c := range v {
			put(real(c))
			put(imag(c))
		}
	default:
		panic(fmt.Sprintf("bitsHash: %T", v))
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// goldenOutputs computes the hashes of the float64 kernels' outputs.
func goldenOutputs(t *testing.T) map[string]string {
	out := map[string]string{}
	r := rand.New(rand.NewPCG(2026, 18))
	rv := func(n int, s float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = s * r.NormFloat64()
		}
		return v
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// Dot, with and without a tail.
	a, b := rv(1003, 1), rv(1003, 1)
	out["dot/1003"] = bitsHash(Dot(a, b))
	out["dot/1000"] = bitsHash(Dot(a[:1000], b[:1000]))
	// Small convolutions.
	for _, bd := range []Boundary{Zero, Reflect, Circular} {
		for _, kk := range []int{3, 5, 7} {
			c := Conv{N: 3, H: 13, W: 11, K: kk, Boundary: bd}
			n := c.N * c.H * c.W
			x, y, k := rv(n, 1), rv(n, 1), rv(kk*kk, 1)
			ax, aty, g := make([]float64, n), make([]float64, n), make([]float64, kk*kk)
			must(c.Apply(ax, x, k))
			must(c.AdjointImage(aty, y, k))
			must(c.AdjointKernel(g, x, y))
			name := fmt.Sprintf("conv/%v/K%d/", bd, kk)
			out[name+"apply"] = bitsHash(ax)
			out[name+"adjimage"] = bitsHash(aty)
			out[name+"adjkernel"] = bitsHash(g)
		}
	}
	// Finite differences and Huber.
	const n, h, w = 3, 13, 11
	x := rv(n*h*w, 0.02)
	d := make([]float64, 2*n*h*w)
	must(Grad(d, x, n, h, w))
	out["grad"] = bitsHash(d)
	dt := make([]float64, n*h*w)
	must(GradAdjoint(dt, d, n, h, w))
	out["gradadjoint"] = bitsHash(dt)
	hb := Huber{Eps: 0.02}
	vals := make([]float64, n)
	must(hb.Value(vals, d, n, h*w))
	out["huber/value"] = bitsHash(vals)
	g := make([]float64, len(d))
	must(hb.Derivative(g, d, n, h*w))
	out["huber/derivative"] = bitsHash(g)
	u := rv(len(d), 1)
	must(hb.HessVec(g, d, u, n, h*w))
	out["huber/hessvec"] = bitsHash(g)
	// FFT2 on every code path: radix 2, 3, 4, 5, 8, generic; odd and even W;
	// padded row batches (H a multiple of 8).
	for _, sz := range [][2]int{{96, 96}, {40, 40}, {256, 256}, {35, 21}, {14, 22}, {9, 15}, {1, 1}, {1, 2}, {16, 7}, {49, 98}} {
		f := NewFFT2(sz[0], sz[1])
		img := rv(sz[0]*sz[1], 1)
		s := make([]complex128, f.SpectrumLen())
		f.Forward(s, img)
		name := fmt.Sprintf("fft2/%dx%d/", sz[0], sz[1])
		out[name+"forward"] = bitsHash(s)
		// An arbitrary (non-Hermitian-consistent) spectrum, too.
		for i := range s {
			s[i] += complex(0.1*r.NormFloat64(), 0.1*r.NormFloat64())
		}
		back := make([]float64, len(img))
		f.Inverse(back, s)
		out[name+"inverse"] = bitsHash(back)
	}
	// cfftPlan directly, for lengths with a generic-radix stage.
	for _, m := range []int{7, 12, 60, 77, 121, 128} {
		const batch = 3
		xc := make([]complex128, m*batch)
		for i := range xc {
			xc[i] = complex(r.NormFloat64(), r.NormFloat64())
		}
		for _, inv := range []bool{false, true} {
			in := append([]complex128(nil), xc...)
			got := AsComplex128(newCFFTPlan[float64](m).exec(Complex128s(in), Complex128s(make([]complex128, len(in))), batch, inv))
			out[fmt.Sprintf("cfft/%d/inverse=%v", m, inv)] = bitsHash(append([]complex128(nil), got...))
		}
	}
	// FFT convolution.
	fc, err := NewFFTConv(3, 24, 20)
	must(err)
	fk, fx, fy := rv(24*20, 1), rv(3*24*20, 1), rv(3*24*20, 1)
	fo := make([]float64, 3*24*20)
	must(fc.Apply(fo, fk, fx))
	out["fftconv/apply"] = bitsHash(fo)
	must(fc.AdjointImage(fo, fk, fy))
	out["fftconv/adjimage"] = bitsHash(fo)
	fg := make([]float64, 24*20)
	must(fc.AdjointKernel(fg, fx, fy))
	out["fftconv/adjkernel"] = bitsHash(fg)
	// FFT pool.
	p := NewFFTPool(24, 20)
	ps := make([]complex128, 3*p.SpectrumLen())
	p.Forward(ps, fx)
	out["fftpool/forward"] = bitsHash(ps)
	// Power iteration on x ↦ Dᵀ D x.
	pi := PowerIteration{Seed: [2]uint64{1, 2}, MaxIter: 50, MinIter: 3, RelTol: 1e-9}
	lam, _, err := pi.Largest(h*w, func(v []float64) error {
		dd := make([]float64, 2*h*w)
		if err := Grad(dd, v, 1, h, w); err != nil {
			return err
		}
		return GradAdjoint(v, dd, 1, h, w)
	})
	must(err)
	out["power/DtD"] = bitsHash(lam)
	return out
}

// TestFloat64BitwiseGolden checks the float64 kernels against goldenKernels.
func TestFloat64BitwiseGolden(t *testing.T) {
	got := goldenOutputs(t)
	testsupport.CheckGolden(t, got, goldenKernels)
}
