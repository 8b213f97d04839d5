package greedy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/problem"
)

// mpsStepData returns a step on o: x = X0, g = ∇f(x), and a momentum p that
// is not parallel to g (0.01 g plus noise of the size of 0.01 g).
func mpsStepData(t testing.TB, o *problem.Objective) (x, g, p []float64) {
	t.Helper()
	x = o.X0
	g = make([]float64, len(x))
	if err := o.Eval(nil, g, x, nil); err != nil {
		t.Fatal(err)
	}
	rms := math.Sqrt(kernels.DotT(g, g) / float64(len(g)))
	r := rand.New(rand.NewPCG(7, 7))
	p = make([]float64, len(x))
	for i := range p {
		p[i] = 0.01 * (g[i] + rms*r.NormFloat64())
	}
	return x, g, p
}

func newMPST[F kernels.Float](t testing.TB, o *problem.Objective, x, g, p []float64, lambda, mu float64) *StepLossMPST[F] {
	t.Helper()
	s, err := NewStepLossMPST[F](o, 1/o.L)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.SetStep(x, g, p, lambda, mu); err != nil {
		t.Fatal(err)
	}
	return s
}

func mpstRel(a, b, scale float64) float64 { return math.Abs(a-b) / scale }

// TestStepLossMPSTAgrees checks StepLossMPST: float64 against StepLoss
// ("m-ps", the affine path) to 1e-12, float32 against float64 to 1e-5, the
// gradient against central differences of the float64 value, and zero
// allocations per evaluation.
func TestStepLossMPSTAgrees(t *testing.T) {
	o := deblurSet(t, 3, 24, 2)
	x, g, p := mpsStepData(t, o)
	const lambda, mu = 0.05, 0.3
	ref, err := NewStepLoss(method(t, "m-ps"), o, 1/o.L)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if err := ref.SetStep(x, g, p, lambda, mu); err != nil {
		t.Fatal(err)
	}
	s64 := newMPST[float64](t, o, x, g, p, lambda, mu)
	s32 := newMPST[float32](t, o, x, g, p, lambda, mu)
	if r, w := s64.Reference(), ref.Reference(); r[0] != w[0] || r[1] != w[1] {
		t.Fatalf("reference %v, StepLoss has %v", r, w)
	}
	var worst64, worst32, worstFD float64
	for _, u := range [][]float64{{1 / o.L, 0}, {0.6 / o.L, 0.4}, {1.7 / o.L, -0.8}, {0.2 / o.L, 1.3}} {
		want := make([]float64, 2)
		vw, err := ref.Eval(u, want)
		if err != nil {
			t.Fatal(err)
		}
		g64, g32 := make([]float64, 2), make([]float64, 2)
		v64, err := s64.Eval(u, g64)
		if err != nil {
			t.Fatal(err)
		}
		v32, err := s32.Eval(u, g32)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := s64.Eval(u, nil); v != v64 {
			t.Errorf("u=%v: value without gradient %v, with %v", u, v, v64)
		}
		// Gradient entries are compared relative to the gradient's norm
		// (an entry may be near zero through cancellation).
		gs := math.Hypot(want[0], want[1])
		d64 := max(mpstRel(v64, vw, math.Abs(vw)), mpstRel(g64[0], want[0], gs), mpstRel(g64[1], want[1], gs))
		d32 := max(mpstRel(v32, v64, math.Abs(v64)), mpstRel(g32[0], g64[0], gs), mpstRel(g32[1], g64[1], gs))
		worst64, worst32 = max(worst64, d64), max(worst32, d32)
		if d64 > 1e-12 {
			t.Errorf("u=%v: float64 (%v, %v) vs StepLoss (%v, %v): %.2g relative", u, v64, g64, vw, want, d64)
		}
		if d32 > 1e-5 {
			t.Errorf("u=%v: float32 (%v, %v) vs float64 (%v, %v): %.2g relative", u, v32, g32, v64, g64, d32)
		}
		// Central differences of the float64 value, steps relative to the
		// parameters' scales (θ ~ 1/L, φ ~ 1).
		for i, h := range []float64{1e-4 / o.L, 1e-4} {
			up, um := append([]float64(nil), u...), append([]float64(nil), u...)
			up[i] += h
			um[i] -= h
			fp, err := s64.Eval(up, nil)
			if err != nil {
				t.Fatal(err)
			}
			fm, err := s64.Eval(um, nil)
			if err != nil {
				t.Fatal(err)
			}
			fd := (fp - fm) / (2 * h)
			scale := math.Hypot(g64[0], g64[1])
			if i == 0 {
				scale = math.Hypot(g64[0], g64[1]*o.L) // θ-derivatives are L times larger
			}
			d := mpstRel(fd, g64[i], scale)
			worstFD = max(worstFD, d)
			if d > 1e-6 {
				t.Errorf("u=%v: ∂%d = %v, central difference %v: %.2g relative", u, i, g64[i], fd, d)
			}
		}
	}
	t.Logf("largest relative differences: float64 vs StepLoss %.2g, float32 vs float64 %.2g, gradient vs central differences %.2g", worst64, worst32, worstFD)

	u, gr := []float64{0.9 / o.L, 0.2}, make([]float64, 2)
	for name, eval := range map[string]func(u, g []float64) (float64, error){"float64": s64.Eval, "float32": s32.Eval} {
		if a := testing.AllocsPerRun(20, func() {
			u[0] += 1e-9
			if _, err := eval(u, gr); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%s: %v allocations per evaluation, want 0", name, a)
		}
	}
}

// TestStepLossMPSTErrors checks the argument checks.
func TestStepLossMPSTErrors(t *testing.T) {
	o := deblurSet(t, 2, 16, 1)
	s, err := NewStepLossMPST[float32](o, 1/o.L)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Eval([]float64{0, 0}, nil); err == nil {
		t.Error("Eval before SetStep: no error")
	}
	if err := s.SetStep(o.X0, o.X0[:1], o.X0, 0, 0); err == nil {
		t.Error("SetStep with a short g: no error")
	}
	if err := s.SetStep(o.X0, o.X0, o.X0, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Eval([]float64{0}, nil); err == nil {
		t.Error("one parameter: no error")
	}
	if _, err := s.Eval([]float64{0, 0}, make([]float64, 3)); err == nil {
		t.Error("gradient of length 3: no error")
	}
}

// BenchmarkStepLossMPSPrecision times one evaluation of the M-PS step loss
// and its gradient (N = 25, 96×96, synthetic deblur data, zero boundary):
// /float64 and /float32 through StepLossMPST (fused f and ∇f at x⁺ in that
// precision), /fast64 through StepLoss "m-ps" (the affine path: residual and
// analysis directions precomputed per step, pointwise work per evaluation).
// cpu-ms/op is the process's CPU time per evaluation (all threads).
func BenchmarkStepLossMPSPrecision(b *testing.B) {
	o := deblurSet(b, 25, 96, 1)
	x, g, p := mpsStepData(b, o)
	bench := func(b *testing.B, eval func(u, g []float64) (float64, error)) {
		u, gr := []float64{1 / o.L, 0.1}, make([]float64, 2)
		if _, err := eval(u, gr); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		cpu := processCPUSeconds()
		for range b.N {
			u[0] += 1e-9 // defeat StepLoss's last-value cache
			if _, err := eval(u, gr); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((processCPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
	}
	b.Run("float64", func(b *testing.B) {
		bench(b, newMPST[float64](b, o, x, g, p, 0, 0).Eval)
	})
	b.Run("float32", func(b *testing.B) {
		bench(b, newMPST[float32](b, o, x, g, p, 0, 0).Eval)
	})
	b.Run("fast64", func(b *testing.B) {
		s, err := NewStepLoss(method(b, "m-ps"), o, 1/o.L)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		if err := s.SetStep(x, g, p, 0, 0); err != nil {
			b.Fatal(err)
		}
		bench(b, s.Eval)
	})
}
