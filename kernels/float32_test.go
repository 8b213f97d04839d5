package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testsupport"
)

// The float32 instances of the generic kernels against the float64 ones on
// the same (float32-representable) inputs: the differences are the float32
// rounding of the arithmetic alone, a few units of 2⁻²⁴ ≈ 6e-8 relative.

// tol32 bounds the relative differences of float32 results from float64.
const tol32 = 1e-5

// rand32 returns n normal values rounded to float32, as float32 and as the
// same values in float64.
func rand32(r *rand.Rand, n int, s float64) ([]float32, []float64) {
	a, b := make([]float32, n), make([]float64, n)
	for i := range a {
		a[i] = float32(s * r.NormFloat64())
		b[i] = float64(a[i])
	}
	return a, b
}

// relInf returns max|a−b| / max|b|.
func relInf[F Float](a []F, b []float64) float64 {
	var d, m float64
	for i, v := range b {
		d = math.Max(d, math.Abs(float64(a[i])-v))
		m = math.Max(m, math.Abs(v))
	}
	if m == 0 {
		return d
	}
	return d / m
}

func relInfC[F Float](a []Complex[F], b []Complex[float64]) float64 {
	var d, m float64
	for i, v := range b {
		d = math.Max(d, math.Hypot(float64(a[i].Re)-v.Re, float64(a[i].Im)-v.Im))
		m = math.Max(m, math.Hypot(v.Re, v.Im))
	}
	return d / m
}

func checkRel(t *testing.T, what string, rel, tol float64) {
	t.Helper()
	if !(rel <= tol) {
		t.Errorf("%s: float32 differs from float64 by %.3g relative (> %.0e)", what, rel, tol)
	}
}

// checkAdjoint32 checks ⟨Au, v⟩ = ⟨u, Aᵀv⟩ for float32 results, relative to
// ‖Au‖‖v‖ (the size of the terms; the sums are accumulated in float64).
func checkAdjoint32(t *testing.T, what string, au, v, u, atv []float32) {
	t.Helper()
	lhs, rhs := DotT(au, v), DotT(u, atv)
	scale := math.Sqrt(DotT(au, au) * DotT(v, v))
	if d := math.Abs(lhs-rhs) / scale; !(d <= tol32) {
		t.Errorf("%s: ⟨Au,v⟩ = %.9g, ⟨u,Aᵀv⟩ = %.9g: relative difference %.3g (> %.0e)", what, lhs, rhs, d, tol32)
	}
}

func TestDotTAccumulatesInFloat64(t *testing.T) {
	// 1 + 2⁻²⁴ + 2⁻²⁴ + … is lost in a float32 sum and kept in float64.
	a := make([]float32, 1001)
	b := make([]float32, 1001)
	a[0], b[0] = 1, 1
	for i := 1; i < len(a); i++ {
		a[i], b[i] = 1.0/(1<<12), 1.0/(1<<12)
	}
	want := 1 + 1000.0/(1<<24)
	if got := DotT(a, b); got != want {
		t.Errorf("DotT = %.17g, want %.17g", got, want)
	}
	r := rand.New(rand.NewPCG(5, 6))
	x32, x64 := rand32(r, 1003, 1)
	y32, y64 := rand32(r, 1003, 1)
	if d := math.Abs(DotT(x32, y32) - Dot(x64, y64)); d > 1e-12*math.Sqrt(Dot(x64, x64)*Dot(y64, y64)) {
		t.Errorf("DotT float32 vs float64 differ by %.3g", d)
	}
}

func TestAxpyConvert(t *testing.T) {
	d := []float32{1, 2, 3}
	Axpy(d, 2, []float32{1, 1, 1, 5})
	if d[0] != 3 || d[1] != 4 || d[2] != 5 {
		t.Errorf("Axpy: %v", d)
	}
	w := make([]float64, 3)
	Convert(w, d)
	if w[2] != 5 {
		t.Errorf("Convert: %v", w)
	}
}

func TestConvFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, bd := range []Boundary{Zero, Reflect, Circular} {
		for _, kk := range []int{3, 5, 7} {
			c64 := Conv{N: 3, H: 17, W: 14, K: kk, Boundary: bd}
			c32 := ConvT[float32]{N: 3, H: 17, W: 14, K: kk, Boundary: bd}
			n := c64.N * c64.H * c64.W
			x32, x64 := rand32(r, n, 1)
			y32, y64 := rand32(r, n, 1)
			k32, k64 := rand32(r, kk*kk, 1)
			name := fmt.Sprintf("conv %v K=%d", bd, kk)
			a32, a64 := make([]float32, n), make([]float64, n)
			if err := c32.Apply(a32, x32, k32); err != nil {
				t.Fatal(err)
			}
			if err := c64.Apply(a64, x64, k64); err != nil {
				t.Fatal(err)
			}
			checkRel(t, name+" apply", relInf(a32, a64), tol32)
			t32, t64 := make([]float32, n), make([]float64, n)
			if err := c32.AdjointImage(t32, y32, k32); err != nil {
				t.Fatal(err)
			}
			if err := c64.AdjointImage(t64, y64, k64); err != nil {
				t.Fatal(err)
			}
			checkRel(t, name+" adjoint", relInf(t32, t64), tol32)
			checkAdjoint32(t, name, a32, y32, x32, t32)
			g32, g64 := make([]float32, kk*kk), make([]float64, kk*kk)
			if err := c32.AdjointKernel(g32, x32, y32); err != nil {
				t.Fatal(err)
			}
			if err := c64.AdjointKernel(g64, x64, y64); err != nil {
				t.Fatal(err)
			}
			checkRel(t, name+" kernel adjoint", relInf(g32, g64), tol32)
			checkAdjoint32(t, name+" (kernel)", a32, y32, k32, g32)
		}
	}
}

func TestTVFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const n, h, w = 3, 31, 27
	x32, x64 := rand32(r, n*h*w, 0.01) // differences around ε: both Huber branches
	d32, d64 := make([]float32, 2*n*h*w), make([]float64, 2*n*h*w)
	if err := GradT(d32, x32, n, h, w); err != nil {
		t.Fatal(err)
	}
	if err := Grad(d64, x64, n, h, w); err != nil {
		t.Fatal(err)
	}
	checkRel(t, "grad", relInf(d32, d64), tol32)
	v32, v64 := rand32(r, 2*n*h*w, 1)
	a32, a64 := make([]float32, n*h*w), make([]float64, n*h*w)
	if err := GradAdjointT(a32, v32, n, h, w); err != nil {
		t.Fatal(err)
	}
	if err := GradAdjoint(a64, v64, n, h, w); err != nil {
		t.Fatal(err)
	}
	checkRel(t, "grad adjoint", relInf(a32, a64), tol32)
	checkAdjoint32(t, "finite differences", d32, v32, x32, a32)

	// Huber on the float32 differences, both precisions from the same field.
	for i, v := range d32 {
		d64[i] = float64(v)
	}
	const eps = 0.01
	h32, h64 := HuberT[float32]{Eps: eps}, Huber{Eps: eps}
	val32, val64 := make([]float64, n), make([]float64, n)
	if err := h32.Value(val32, d32, n, h*w); err != nil {
		t.Fatal(err)
	}
	if err := h64.Value(val64, d64, n, h*w); err != nil {
		t.Fatal(err)
	}
	checkRel(t, "huber value", relInf(val32, val64), tol32)
	g32, g64 := make([]float32, len(d32)), make([]float64, len(d64))
	if err := h32.Derivative(g32, d32, n, h*w); err != nil {
		t.Fatal(err)
	}
	if err := h64.Derivative(g64, d64, n, h*w); err != nil {
		t.Fatal(err)
	}
	checkRel(t, "huber derivative", relInf(g32, g64), tol32)
	// The TV gradient Dᵀ ψ(Dx).
	if err := GradAdjointT(a32, g32, n, h, w); err != nil {
		t.Fatal(err)
	}
	if err := GradAdjoint(a64, g64, n, h, w); err != nil {
		t.Fatal(err)
	}
	checkRel(t, "TV gradient", relInf(a32, a64), tol32)
	u32, u64 := rand32(r, len(d32), 1)
	if err := h32.HessVec(g32, d32, u32, n, h*w); err != nil {
		t.Fatal(err)
	}
	if err := h64.HessVec(g64, d64, u64, n, h*w); err != nil {
		t.Fatal(err)
	}
	checkRel(t, "huber second derivative", relInf(g32, g64), tol32)
}

func TestFFTFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, sz := range [][2]int{{96, 96}, {256, 256}, {40, 40}, {35, 21}, {14, 22}, {9, 15}, {1, 1}, {49, 98}} {
		h, w := sz[0], sz[1]
		f32, f64 := NewFFT2T[float32](h, w), NewFFT2(h, w)
		x32, x64 := rand32(r, h*w, 1)
		s32 := make([]Complex[float32], f32.SpectrumLen())
		s64 := make([]complex128, f64.SpectrumLen())
		f32.Forward(s32, x32)
		f64.Forward(s64, x64)
		name := fmt.Sprintf("FFT %d×%d", h, w)
		checkRel(t, name+" forward", relInfC(s32, Complex128s(s64)), tol32)
		back := make([]float32, h*w)
		f32.Inverse(back, s32)
		checkRel(t, name+" round trip", relInf(back, x64), tol32)
	}
}

func TestFFTConvFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	const n, h, w = 3, 24, 20
	c32, err := NewFFTConvT[float32](n, h, w)
	if err != nil {
		t.Fatal(err)
	}
	c64, err := NewFFTConv(n, h, w)
	if err != nil {
		t.Fatal(err)
	}
	k32, k64 := rand32(r, h*w, 1)
	x32, x64 := rand32(r, n*h*w, 1)
	y32, y64 := rand32(r, n*h*w, 1)
	a32, a64 := make([]float32, n*h*w), make([]float64, n*h*w)
	if err := c32.Apply(a32, k32, x32); err != nil {
		t.Fatal(err)
	}
	if err := c64.Apply(a64, k64, x64); err != nil {
		t.Fatal(err)
	}
	checkRel(t, "FFT convolution", relInf(a32, a64), tol32)
	t32, t64 := make([]float32, n*h*w), make([]float64, n*h*w)
	if err := c32.AdjointImage(t32, k32, y32); err != nil {
		t.Fatal(err)
	}
	if err := c64.AdjointImage(t64, k64, y64); err != nil {
		t.Fatal(err)
	}
	checkRel(t, "FFT convolution adjoint", relInf(t32, t64), tol32)
	checkAdjoint32(t, "FFT convolution", a32, y32, x32, t32)
	g32, g64 := make([]float32, h*w), make([]float64, h*w)
	if err := c32.AdjointKernel(g32, x32, y32); err != nil {
		t.Fatal(err)
	}
	if err := c64.AdjointKernel(g64, x64, y64); err != nil {
		t.Fatal(err)
	}
	checkRel(t, "FFT convolution kernel adjoint", relInf(g32, g64), tol32)
	checkAdjoint32(t, "FFT convolution (kernel)", a32, y32, k32, g32)
}

func TestComplexViews(t *testing.T) {
	c := []complex128{1 + 2i, -3 + 4i}
	v := Complex128s(c)
	if v[1] != (Complex[float64]{-3, 4}) {
		t.Errorf("Complex128s: %v", v)
	}
	v[0].Im = 7
	if c[0] != 1+7i || &AsComplex128(v)[0] != &c[0] {
		t.Errorf("Complex128s does not share memory: %v", c)
	}
	c64 := []complex64{5 - 6i}
	if w := Complex64s(c64); w[0] != (Complex[float32]{5, -6}) || &AsComplex64(w)[0] != &c64[0] {
		t.Errorf("Complex64s: %v", w)
	}
	if Complex128s(nil) != nil || Complex64s(nil) != nil {
		t.Error("views of nil are not nil")
	}
}

func TestTeamMatchesParallelChunks(t *testing.T) {
	for _, n := range []int{0, 1, 2, 5, 25} {
		got := make([]int, n)
		team := NewTeam(func(chunk, lo, hi int) {
			for i := lo; i < hi; i++ {
				got[i] = chunk + 1
			}
		})
		for range 3 {
			clear(got)
			if c, want := team.Run(n), ParallelChunks(n, nil); c != want {
				t.Fatalf("n=%d: %d chunks, ParallelChunks makes %d", n, c, want)
			}
			want := make([]int, n)
			ParallelChunks(n, func(chunk, lo, hi int) {
				for i := lo; i < hi; i++ {
					want[i] = chunk + 1
				}
			})
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("n=%d: index %d in chunk %d, ParallelChunks puts it in %d", n, i, got[i]-1, want[i]-1)
				}
			}
		}
		team.Close()
		if n > 0 && testing.AllocsPerRun(5, func() { team.Run(n) }) > 0 {
			t.Errorf("n=%d: Team.Run allocates", n)
		}
		team.Close()
	}
}

// BenchmarkFFT2Float32: the float32 transform, to compare with
// BenchmarkFFT2Forward96 and the others (float64).
func BenchmarkFFT2Float32(b *testing.B) {
	for _, n := range []int{96, 256} {
		for _, inverse := range []bool{false, true} {
			name := fmt.Sprintf("Forward%d", n)
			if inverse {
				name = fmt.Sprintf("Inverse%d", n)
			}
			b.Run(name, func(b *testing.B) {
				f := NewFFT2T[float32](n, n)
				x, _ := rand32(rand.New(rand.NewPCG(3, 4)), n*n, 1)
				s := make([]Complex[float32], f.SpectrumLen())
				f.Forward(s, x)
				s0 := append([]Complex[float32](nil), s...)
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
			})
		}
	}
}

// BenchmarkDot: DotT on 25·96² values in both precisions (float64 through
// Dot, the name the rest of the tool calls).
func BenchmarkDot(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	x32, x64 := rand32(r, 25*96*96, 1)
	y32, y64 := rand32(r, 25*96*96, 1)
	var sink float64
	b.Run("float64", func(b *testing.B) {
		cpu := testsupport.CPUTime()
		for range b.N {
			sink += Dot(x64, y64)
		}
		testsupport.ReportCPU(b, cpu)
	})
	b.Run("float32", func(b *testing.B) {
		cpu := testsupport.CPUTime()
		for range b.N {
			sink += DotT(x32, y32)
		}
		testsupport.ReportCPU(b, cpu)
	})
	_ = sink
}
