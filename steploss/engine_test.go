package steploss

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// loadedLoss returns the step loss of name on o on paths, loaded with the
// step (x, g, p) and weights λ, μ.
func loadedLoss(t testing.TB, name string, o *problem.Objective, paths stepPaths, x, g, p []float64, lambda, mu float64) *StepLoss {
	t.Helper()
	s, err := newStepLoss(testproblems.Method(t, name), o, 1/o.L, paths)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.SetStep(x, g, p, lambda, mu); err != nil {
		t.Fatal(err)
	}
	return s
}

// testPoint returns parameters near the reference: θ̃ + perturbations of
// relative size 0.3 (scalars) or 0.3 τ / √len (kernels, so that G stays a
// contraction), and φ likewise around 0.2.
func testPoint(s *StepLoss, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 3))
	u := s.Reference()
	tau := 0.0
	for _, v := range u[:s.ThetaLen()] {
		tau += v
	}
	for i := range u {
		n := s.ThetaLen()
		if i >= n {
			n = s.Dim() - s.ThetaLen()
		}
		sc := 0.3 * tau / math.Sqrt(float64(n))
		if i >= s.ThetaLen() {
			sc = 0.2 / math.Sqrt(float64(n))
		}
		u[i] += sc * r.NormFloat64()
	}
	return u
}

// TestPrecisionStepAgrees checks the float32 step loss of ps, pc, m-ps and
// m-pc (terms in float32) and of m-pp, pc3:pc and pf:ps (bound terms in
// float64 beside them): its code in float64 against the float64 evaluators
// (value and gradient to 1e-12 relative), float32 against float64 (1e-5),
// the block gradients against the full gradient's blocks (bitwise: the same
// operations run), the next iterates, and zero allocations per evaluation
// for the terms in float32.
func TestPrecisionStepAgrees(t *testing.T) {
	o := testproblems.DeblurSet(t, 3, 24, 2)
	x, g, p := testproblems.StepData(t, o, 7)
	const lambda, mu = 0.05, 0.3
	for _, name := range []string{"ps", "pc", "m-ps", "m-pc", "m-pp", "pc3:pc", "pf:ps"} {
		t.Run(name, func(t *testing.T) {
			ref := loadedLoss(t, name, o, stepPaths{noReduce: true}, x, g, p, lambda, mu)
			f64 := loadedLoss(t, name, o, stepPaths{fused64: true}, x, g, p, lambda, mu)
			f32 := loadedLoss(t, name, o, stepPaths{precision: Float32}, x, g, p, lambda, mu)
			if k := f32.ev.kind(); k != "fused-float32" {
				t.Fatalf("float32 evaluator %q", k)
			}
			var worst64, worst32 float64
			for seed := range uint64(3) {
				u := testPoint(ref, seed)
				want, g64, g32 := make([]float64, len(u)), make([]float64, len(u)), make([]float64, len(u))
				vw, err := ref.Eval(u, want)
				if err != nil {
					t.Fatal(err)
				}
				v64, err := f64.Eval(u, g64)
				if err != nil {
					t.Fatal(err)
				}
				v32, err := f32.Eval(u, g32)
				if err != nil {
					t.Fatal(err)
				}
				d64 := max(math.Abs(v64-vw)/math.Abs(vw), testsupport.NormDiff(g64, want))
				d32 := max(math.Abs(v32-vw)/math.Abs(vw), testsupport.NormDiff(g32, want))
				worst64, worst32 = max(worst64, d64), max(worst32, d32)
				if d64 > 1e-12 {
					t.Errorf("seed %d: float64 code path vs the float64 evaluators: %.2g relative", seed, d64)
				}
				if d32 > 1e-5 {
					t.Errorf("seed %d: float32 vs float64: %.2g relative", seed, d32)
				}
				// Block gradients: the blocks of the full float32 gradient.
				nt := f32.ThetaLen()
				for b, blk := range [][]float64{g32[:nt], g32[nt:]} {
					if len(blk) == 0 {
						continue
					}
					gb := make([]float64, len(blk))
					vb, err := f32.EvalBlock(b, u, gb)
					if err != nil {
						t.Fatal(err)
					}
					if vb != v32 || testsupport.NormDiff(gb, blk) != 0 {
						t.Errorf("seed %d block %d: value %v vs %v, gradient %.2g from the full one", seed, b, vb, v32, testsupport.NormDiff(gb, blk))
					}
				}
				// The next iterates: float32 values, close to float64's.
				n64, n32 := make([]float64, len(x)), make([]float64, len(x))
				if err := ref.Next(n64, u); err != nil {
					t.Fatal(err)
				}
				if err := f32.Next(n32, u); err != nil {
					t.Fatal(err)
				}
				for i, v := range n32 {
					if float64(float32(v)) != v {
						t.Fatalf("seed %d: x⁺[%d] = %v is not a float32 value", seed, i, v)
					}
				}
				if d := testsupport.NormDiff(n32, n64); d > 1e-6 {
					t.Errorf("seed %d: float32 x⁺ differs from float64 by %.2g", seed, d)
				}
			}
			t.Logf("%s: largest relative differences from the float64 evaluators: float64 code path %.2g, float32 %.2g", name, worst64, worst32)
			if f32.ev.(*engine[float32]).bounds[0] != nil || strings.HasPrefix(name, "m-pp") {
				return // bound terms allocate as they do on the float64 path
			}
			u := testPoint(ref, 9)
			gr := make([][]float64, len(terms(testproblems.Method(t, name))))
			nt := f32.ThetaLen()
			gr[0] = make([]float64, nt)
			if len(gr) > 1 {
				gr[1] = make([]float64, f32.Dim()-nt)
			}
			params := [][]float64{u[:nt], u[nt:]}[:len(gr)]
			if a := testing.AllocsPerRun(10, func() {
				if _, err := f32.ev.eval(params, gr); err != nil {
					t.Fatal(err)
				}
			}); a != 0 {
				t.Errorf("%v allocations per float32 evaluation, want 0", a)
			}
		})
	}
}

// TestPrecisionStepGradient checks the float64 instance of the float32 code
// path against central differences of its own values (m-pc: a few
// coordinates of θ and φ).
func TestPrecisionStepGradient(t *testing.T) {
	o := testproblems.DeblurSet(t, 2, 16, 3)
	x, g, p := testproblems.StepData(t, o, 7)
	s := loadedLoss(t, "m-pc", o, stepPaths{fused64: true}, x, g, p, 0.1, 0.2)
	u := testPoint(s, 4)
	grad := make([]float64, len(u))
	if _, err := s.Eval(u, grad); err != nil {
		t.Fatal(err)
	}
	scale := math.Sqrt(kernels.Dot(grad, grad))
	nt := s.ThetaLen()
	for _, i := range []int{0, 1, 17, nt - 1, nt, nt + 5, len(u) - 1} {
		h := 1e-5
		up, um := append([]float64(nil), u...), append([]float64(nil), u...)
		up[i] += h
		um[i] -= h
		fp, err := s.Eval(up, nil)
		if err != nil {
			t.Fatal(err)
		}
		fm, err := s.Eval(um, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs((fp-fm)/(2*h)-grad[i]) / scale; d > 1e-7 {
			t.Errorf("∂%d = %v, central difference %v: %.2g of ‖∇‖", i, grad[i], (fp-fm)/(2*h), d)
		}
	}
}

// TestPrecisionRefusals checks that float32 refuses what it cannot compute,
// naming the way out, and that an unknown precision is refused.
func TestPrecisionRefusals(t *testing.T) {
	o := testproblems.DeblurSet(t, 2, 16, 1)
	// An objective without a fused float32 evaluation: the identity operator.
	id := *o
	id.A = problem.Identity{}
	if _, err := NewStepLossIn(testproblems.Method(t, "m-pc"), &id, 1/o.L, Float32); err == nil || !strings.Contains(err.Error(), "float64") {
		t.Errorf("identity operator in float32: %v, want a refusal naming float64", err)
	}
	if _, err := NewStepLossIn(testproblems.Method(t, "m-ps"), o, 1/o.L, "float16"); err == nil {
		t.Error("float16: no error")
	}
	if _, err := ParsePrecision("double"); err == nil {
		t.Error(`ParsePrecision("double"): no error`)
	}
}

// BenchmarkStepLossPrecision times one evaluation of the M-PS and M-PC step
// losses and their gradients through StepLoss.Eval (N = 25, 96×96,
// synthetic deblur data, zero boundary): /float32 on the float32 path
// (NewStepLossIn with Float32), /fused64 the same code in float64, /default
// the float64 evaluators training uses by default (for M-PS the affine path:
// directions precomputed per step, pointwise work per evaluation; for M-PC
// the bound spectral path). cpu-ms/op is the process's CPU time per
// evaluation (all threads).
func BenchmarkStepLossPrecision(b *testing.B) {
	o := testproblems.DeblurSet(b, 25, 96, 1)
	x, g, p := testproblems.StepData(b, o, 7)
	for _, name := range []string{"m-ps", "m-pc"} {
		for _, path := range []struct {
			name  string
			paths stepPaths
		}{{"float32", stepPaths{precision: Float32}}, {"fused64", stepPaths{fused64: true}}, {"default", stepPaths{}}} {
			b.Run(name+"/"+path.name, func(b *testing.B) {
				s := loadedLoss(b, name, o, path.paths, x, g, p, 0, 0)
				u := testPoint(s, 1)
				gr := make([]float64, len(u))
				if _, err := s.Eval(u, gr); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				cpu := testsupport.CPUSeconds()
				for range b.N {
					u[0] += 1e-9 // defeat StepLoss's last-value cache
					if _, err := s.Eval(u, gr); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((testsupport.CPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// TestPrecisionVectorKernels compares the float32 M-PC and M-PS step losses
// with and without this package's vector kernels (assembly, on an AVX2
// CPU): values and gradients bitwise equal, on a size whose images and
// spectra are not multiples of the vector widths (so the scalar tails run).
func TestPrecisionVectorKernels(t *testing.T) {
	if addProduct32 == nil {
		t.Skip("no vector kernels: this is a purego build, not amd64, or the CPU lacks AVX2")
	}
	o := testproblems.DeblurSet(t, 3, 21, 5) // 441 pixels, spectra of 21·11 values
	x, g, p := testproblems.StepData(t, o, 3)
	for _, name := range []string{"m-pc", "m-ps"} {
		s := loadedLoss(t, name, o, stepPaths{precision: Float32}, x, g, p, 0, 0)
		u := testPoint(s, 2)
		gv, gs := make([]float64, len(u)), make([]float64, len(u))
		vv, err := s.Eval(u, gv)
		if err != nil {
			t.Fatal(err)
		}
		a, c, m, ai := addProduct32, accumulateConjProduct32, combineScalars32, addImages32
		addProduct32, accumulateConjProduct32, combineScalars32, addImages32 = nil, nil, nil, nil
		if err := s.SetStep(x, g, p, 0, 0); err != nil {
			t.Fatal(err)
		}
		vs, err := s.Eval(u, gs)
		addProduct32, accumulateConjProduct32, combineScalars32, addImages32 = a, c, m, ai
		if err != nil {
			t.Fatal(err)
		}
		if vv != vs {
			t.Errorf("%s: value %v with vector kernels, %v without", name, vv, vs)
		}
		for i := range gv {
			if gv[i] != gs[i] {
				t.Fatalf("%s: gradient[%d] = %v with vector kernels, %v without", name, i, gv[i], gs[i])
			}
		}
	}
}

// BenchmarkStepLossPrecisionBlock times EvalBlock of the M-PC step loss (the
// evaluation NAG's block mode makes) for the θ block: /float32 and /default
// as in BenchmarkStepLossPrecision, /float32-threepass with the float32
// evaluation in three passes over the batch instead of one per image.
func BenchmarkStepLossPrecisionBlock(b *testing.B) {
	o := testproblems.DeblurSet(b, 25, 96, 1)
	x, g, p := testproblems.StepData(b, o, 7)
	for _, path := range []struct {
		name  string
		paths stepPaths
	}{{"float32", stepPaths{precision: Float32}}, {"float32-threepass", stepPaths{precision: Float32}}, {"default", stepPaths{}}} {
		b.Run("m-pc/"+path.name, func(b *testing.B) {
			s := loadedLoss(b, "m-pc", o, path.paths, x, g, p, 0, 0)
			if path.name == "float32-threepass" {
				s.ev.(*engine[float32]).unfused = true
			}
			u := testPoint(s, 1)
			gr := make([]float64, s.ThetaLen())
			if _, err := s.EvalBlock(0, u, gr); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := testsupport.CPUSeconds()
			for range b.N {
				u[0] += 1e-9
				if _, err := s.EvalBlock(0, u, gr); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((testsupport.CPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}

// TestPrecisionFusedPass compares the one-pass evaluation (x⁺, f, ∇f and the
// adjoints image by image, for fused objectives) with the three passes over
// the batch: values, gradients (full and block) and next iterates bitwise
// equal, for M-PC and M-PS in float32.
func TestPrecisionFusedPass(t *testing.T) {
	o := testproblems.DeblurSet(t, 5, 20, 8)
	x, g, p := testproblems.StepData(t, o, 4)
	for _, name := range []string{"m-pc", "m-ps", "pc"} {
		one := loadedLoss(t, name, o, stepPaths{precision: Float32}, x, g, p, 0, 0)
		three := loadedLoss(t, name, o, stepPaths{precision: Float32}, x, g, p, 0, 0)
		three.ev.(*engine[float32]).unfused = true
		u := testPoint(one, 3)
		g1, g3 := make([]float64, len(u)), make([]float64, len(u))
		v1, err := one.Eval(u, g1)
		if err != nil {
			t.Fatal(err)
		}
		v3, err := three.Eval(u, g3)
		if err != nil {
			t.Fatal(err)
		}
		if v1 != v3 || testsupport.NormDiff(g1, g3) != 0 {
			t.Errorf("%s: one pass %v (gradient %.2g from three passes), three passes %v", name, v1, testsupport.NormDiff(g1, g3), v3)
		}
		if one.Dim() > one.ThetaLen() {
			b1, b3 := make([]float64, one.Dim()-one.ThetaLen()), make([]float64, one.Dim()-one.ThetaLen())
			w1, _ := one.EvalBlock(1, u, b1)
			w3, _ := three.EvalBlock(1, u, b3)
			if w1 != w3 || testsupport.NormDiff(b1, b3) != 0 {
				t.Errorf("%s block φ: one pass %v, three passes %v (gradient %.2g)", name, w1, w3, testsupport.NormDiff(b1, b3))
			}
		}
		n1, n3 := make([]float64, len(x)), make([]float64, len(x))
		if err := one.Next(n1, u); err != nil {
			t.Fatal(err)
		}
		if err := three.Next(n3, u); err != nil {
			t.Fatal(err)
		}
		if testsupport.NormDiff(n1, n3) != 0 {
			t.Errorf("%s: next iterates differ", name)
		}
	}
}

// TestFloat32GraphTerm checks a user family with no fast term (its graph is
// its term) in float32 against float64: value and gradient to 1e-5, the
// evaluator the float32 engine.
func TestFloat32GraphTerm(t *testing.T) {
	o := testproblems.DeblurSet(t, 3, 20, 4)
	x, g, p := testproblems.StepData(t, o, 5)
	m := models.Method{G: testproblems.OuterWeights{}, H: models.Scalar{}}
	var vals [2]float64
	var grads [2][]float64
	for i, paths := range []stepPaths{{}, {precision: Float32}} {
		s, err := newStepLoss(m, o, 1/o.L, paths)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.SetStep(x, g, p, 0.01, 0.02); err != nil {
			t.Fatal(err)
		}
		if want := [2]string{"graph", "fused-float32"}[i]; s.ev.kind() != want {
			t.Fatalf("evaluator %q, want %q", s.ev.kind(), want)
		}
		u := testPoint(s, 6)
		grads[i] = make([]float64, len(u))
		if vals[i], err = s.Eval(u, grads[i]); err != nil {
			t.Fatal(err)
		}
	}
	if d := max(math.Abs(vals[1]-vals[0])/math.Abs(vals[0]), testsupport.NormDiff(grads[1], grads[0])); !(d < 1e-5) {
		t.Errorf("float32 against float64 with a graph term: %.2g relative", d)
	}
}
