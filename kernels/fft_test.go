package kernels

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"gonum.org/v1/gonum/dsp/fourier"
)

// fftTestSizes covers trivial sizes, odd and even widths, every dedicated
// radix, a generic prime radix (7, 31, 97) and the sizes used in practice.
var fftTestSizes = [][2]int{
	{1, 1}, {1, 7}, {7, 1}, {1, 2}, {2, 1}, {5, 3}, {3, 4}, {8, 8}, {12, 10},
	{6, 9}, {9, 14}, {25, 50}, {40, 40}, {49, 21}, {32, 32}, {96, 96}, {97, 31},
}

// naiveSpectrum is the O((HW)²) 2-D DFT of a real image, kept columns only.
func naiveSpectrum(x []float64, h, w int) []complex128 {
	wc := w/2 + 1
	s := make([]complex128, h*wc)
	// root[t] = exp(−2πi·t/(HW)); the phase u·i/H + k·j/W is reduced exactly
	// in integers to t/(HW).
	root := make([]complex128, h*w)
	for t := range root {
		sin, cos := math.Sincos(-2 * math.Pi * float64(t) / float64(h*w))
		root[t] = complex(cos, sin)
	}
	for u := 0; u < h; u++ {
		for k := 0; k < wc; k++ {
			var acc complex128
			for i := 0; i < h; i++ {
				for j := 0; j < w; j++ {
					e := root[((u*i%h)*w+(k*j%w)*h)%(h*w)]
					acc += complex(x[i*w+j]*real(e), x[i*w+j]*imag(e))
				}
			}
			s[u*wc+k] = acc
		}
	}
	return s
}

// gonumFFT2 is the previous FFT2, built on gonum's dsp/fourier: real
// transforms per row, complex transforms per gathered column. It is kept as an
// independent reference and as the baseline of the benchmarks.
type gonumFFT2 struct {
	h, w   int
	rows   *fourier.FFT
	cols   *fourier.CmplxFFT
	colBuf []complex128
	colOut []complex128
}

func newGonumFFT2(h, w int) *gonumFFT2 {
	return &gonumFFT2{h: h, w: w, rows: fourier.NewFFT(w), cols: fourier.NewCmplxFFT(h),
		colBuf: make([]complex128, h), colOut: make([]complex128, h)}
}

func (f *gonumFFT2) Forward(dst []complex128, x []float64) {
	wc := f.w/2 + 1
	for i := 0; i < f.h; i++ {
		f.rows.Coefficients(dst[i*wc:(i+1)*wc], x[i*f.w:(i+1)*f.w])
	}
	for j := 0; j < wc; j++ {
		for i := 0; i < f.h; i++ {
			f.colBuf[i] = dst[i*wc+j]
		}
		f.cols.Coefficients(f.colOut, f.colBuf)
		for i := 0; i < f.h; i++ {
			dst[i*wc+j] = f.colOut[i]
		}
	}
}

func (f *gonumFFT2) Inverse(x []float64, s []complex128) {
	wc := f.w/2 + 1
	for j := 0; j < wc; j++ {
		for i := 0; i < f.h; i++ {
			f.colBuf[i] = s[i*wc+j]
		}
		f.cols.Sequence(f.colOut, f.colBuf)
		for i := 0; i < f.h; i++ {
			s[i*wc+j] = f.colOut[i]
		}
	}
	scale := 1 / float64(f.h*f.w)
	for i := 0; i < f.h; i++ {
		row := x[i*f.w : (i+1)*f.w]
		f.rows.Sequence(row, s[i*wc:(i+1)*wc])
		for j := range row {
			row[j] *= scale
		}
	}
}

func maxAbs(s []complex128) float64 {
	var m float64
	for _, v := range s {
		m = math.Max(m, cmplx.Abs(v))
	}
	return m
}

func TestFFT2ForwardMatchesNaiveDFT(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, sz := range fftTestSizes {
		h, w := sz[0], sz[1]
		x := randVec(r, h*w)
		f := NewFFT2(h, w)
		got := make([]complex128, f.SpectrumLen())
		f.Forward(got, x)
		want := naiveSpectrum(x, h, w)
		tol := 1e-12 * maxAbs(want)
		for i := range want {
			if cmplx.Abs(got[i]-want[i]) > tol {
				t.Fatalf("%d×%d: S[%d,%d] = %v, naive DFT %v", h, w, i/(w/2+1), i%(w/2+1), got[i], want[i])
			}
		}
	}
}

func TestFFT2RoundTripSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, sz := range append(fftTestSizes, [2]int{256, 256}, [2]int{11, 13}, [2]int{121, 3}) {
		h, w := sz[0], sz[1]
		x := randVec(r, h*w)
		f := NewFFT2(h, w)
		s := make([]complex128, f.SpectrumLen())
		f.Forward(s, x)
		y := make([]float64, h*w)
		f.Inverse(y, s)
		for i := range x {
			if math.Abs(x[i]-y[i]) > 1e-12 {
				t.Fatalf("%d×%d: round trip [%d] = %g, want %g", h, w, i, y[i], x[i])
			}
		}
	}
}

// TestFFT2InverseMatchesNaiveDFT checks that Inverse(S) is the real image
// whose spectrum is S, for S the naive DFT of a random image (independent of
// Forward).
func TestFFT2InverseMatchesNaiveDFT(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, sz := range fftTestSizes {
		h, w := sz[0], sz[1]
		x := randVec(r, h*w)
		s := naiveSpectrum(x, h, w)
		f := NewFFT2(h, w)
		y := make([]float64, h*w)
		f.Inverse(y, s)
		for i := range x {
			if math.Abs(x[i]-y[i]) > 1e-12 {
				t.Fatalf("%d×%d: Inverse(naive DFT)[%d] = %g, want %g", h, w, i, y[i], x[i])
			}
		}
	}
}

// TestFFT2InverseMatchesGonumOnArbitrarySpectra feeds spectra that are not
// Hermitian-consistent (random imaginary parts in the k = 0 and k = W/2
// columns): the imaginary parts the real row transform ignores must be the
// same as in gonum's real inverse transform.
func TestFFT2InverseMatchesGonumOnArbitrarySpectra(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	for _, sz := range fftTestSizes {
		h, w := sz[0], sz[1]
		n := h * (w/2 + 1)
		s := make([]complex128, n)
		for i := range s {
			s[i] = complex(r.NormFloat64(), r.NormFloat64())
		}
		s2 := append([]complex128(nil), s...)
		got, want := make([]float64, h*w), make([]float64, h*w)
		NewFFT2(h, w).Inverse(got, s)
		newGonumFFT2(h, w).Inverse(want, s2)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Fatalf("%d×%d: Inverse[%d] = %g, gonum %g", h, w, i, got[i], want[i])
			}
		}
	}
}

// TestFFT2HermitianLayout checks the [H, W/2+1] layout against the full
// complex 2-D spectrum's symmetry S[u,k] = conj S[(H−u) mod H, (W−k) mod W]:
// column 0 (and column W/2 for even W) must be Hermitian along u, and the
// spectrum of the image reversed in both axes must be the conjugate.
func TestFFT2HermitianLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	for _, sz := range [][2]int{{8, 8}, {7, 10}, {12, 9}, {96, 96}} {
		h, w := sz[0], sz[1]
		wc := w/2 + 1
		f := NewFFT2(h, w)
		x := randVec(r, h*w)
		s := make([]complex128, f.SpectrumLen())
		f.Forward(s, x)
		tol := 1e-12 * maxAbs(s)
		cols := []int{0}
		if w%2 == 0 {
			cols = append(cols, w/2)
		}
		for _, k := range cols {
			for u := 0; u < h; u++ {
				a, b := s[u*wc+k], cmplx.Conj(s[((h-u)%h)*wc+k])
				if cmplx.Abs(a-b) > tol {
					t.Fatalf("%d×%d: S[%d,%d] = %v, conj S[−u,%d] = %v", h, w, u, k, a, k, b)
				}
			}
		}
		rev := make([]float64, h*w)
		for i := 0; i < h; i++ {
			for j := 0; j < w; j++ {
				rev[i*w+j] = x[((h-i)%h)*w+(w-j)%w]
			}
		}
		sr := make([]complex128, f.SpectrumLen())
		f.Forward(sr, rev)
		for i := range s {
			if cmplx.Abs(sr[i]-cmplx.Conj(s[i])) > tol {
				t.Fatalf("%d×%d: spectrum of reversed image [%d] = %v, want %v", h, w, i, sr[i], cmplx.Conj(s[i]))
			}
		}
	}
}

func TestCFFTPlanMatchesNaiveDFT(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 12, 15, 16, 20, 49, 60, 64, 96, 97, 121, 128} {
		const batch = 3
		x := make([]complex128, n*batch)
		for i := range x {
			x[i] = complex(r.NormFloat64(), r.NormFloat64())
		}
		for _, inverse := range []bool{false, true} {
			sign := -1.0
			if inverse {
				sign = 1
			}
			in := append([]complex128(nil), x...)
			got := AsComplex128(newCFFTPlan[float64](n).exec(Complex128s(in), Complex128s(make([]complex128, n*batch)), batch, inverse))
			for q := 0; q < batch; q++ {
				for k := 0; k < n; k++ {
					var want complex128
					for j := 0; j < n; j++ {
						sin, cos := math.Sincos(sign * 2 * math.Pi * float64(j*k%n) / float64(n))
						want += x[j*batch+q] * complex(cos, sin)
					}
					if cmplx.Abs(got[k*batch+q]-want) > 1e-12*float64(n) {
						t.Fatalf("n=%d inverse=%v: X[%d] of vector %d = %v, naive %v", n, inverse, k, q, got[k*batch+q], want)
					}
				}
			}
		}
	}
}

func TestFFT2DoesNotAllocate(t *testing.T) {
	f := NewFFT2(40, 40)
	x := randVec(rand.New(rand.NewPCG(1, 2)), 1600)
	s := make([]complex128, f.SpectrumLen())
	allocs := testing.AllocsPerRun(10, func() {
		f.Forward(s, x)
		f.Inverse(x, s)
	})
	if allocs != 0 {
		t.Errorf("Forward+Inverse allocate %v times per call", allocs)
	}
}

func ExampleFFT2() {
	// The spectrum of a unit impulse at the origin is 1 everywhere.
	f := NewFFT2(4, 6)
	x := make([]float64, 4*6)
	x[0] = 1
	s := make([]complex128, f.SpectrumLen())
	f.Forward(s, x)
	fmt.Println(len(s), s[0], s[len(s)-1])
	f.Inverse(x, s)
	fmt.Println(x[0], x[1])
	// Output:
	// 16 (1+0i) (1+0i)
	// 1 0
}

type fft2er interface {
	Forward(dst []complex128, x []float64)
	Inverse(x []float64, s []complex128)
}

func benchFFT2(b *testing.B, f fft2er, h, w int, inverse bool) {
	x := randVec(rand.New(rand.NewPCG(3, 4)), h*w)
	s := make([]complex128, h*(w/2+1))
	f.Forward(s, x)
	s0 := append([]complex128(nil), s...)
	b.ResetTimer()
	cpu := testsupport.CPUTime()
	for range b.N {
		if inverse {
			copy(s, s0)
			f.Inverse(x, s)
		} else {
			f.Forward(s, x)
		}
	}
	testsupport.ReportCPU(b, cpu)
}

func BenchmarkFFT2Forward96(b *testing.B)      { benchFFT2(b, NewFFT2(96, 96), 96, 96, false) }
func BenchmarkFFT2Inverse96(b *testing.B)      { benchFFT2(b, NewFFT2(96, 96), 96, 96, true) }
func BenchmarkFFT2Forward256(b *testing.B)     { benchFFT2(b, NewFFT2(256, 256), 256, 256, false) }
func BenchmarkFFT2Inverse256(b *testing.B)     { benchFFT2(b, NewFFT2(256, 256), 256, 256, true) }
func BenchmarkFFT2Forward40(b *testing.B)      { benchFFT2(b, NewFFT2(40, 40), 40, 40, false) }
func BenchmarkFFT2Inverse40(b *testing.B)      { benchFFT2(b, NewFFT2(40, 40), 40, 40, true) }
func BenchmarkGonumFFT2Forward96(b *testing.B) { benchFFT2(b, newGonumFFT2(96, 96), 96, 96, false) }
func BenchmarkGonumFFT2Inverse96(b *testing.B) { benchFFT2(b, newGonumFFT2(96, 96), 96, 96, true) }
func BenchmarkGonumFFT2Forward256(b *testing.B) {
	benchFFT2(b, newGonumFFT2(256, 256), 256, 256, false)
}
func BenchmarkGonumFFT2Inverse256(b *testing.B) { benchFFT2(b, newGonumFFT2(256, 256), 256, 256, true) }
