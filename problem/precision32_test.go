package problem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// to32 rounds v to float32.
func to32(v []float64) []float32 {
	out := make([]float32, len(v))
	kernels.Convert(out, v)
	return out
}

// relInf32 returns max|a−b| / max|b|.
func relInf32[F kernels.Float](a []F, b []float64) float64 {
	var d, m float64
	for i, v := range b {
		d = math.Max(d, math.Abs(float64(a[i])-v))
		m = math.Max(m, math.Abs(v))
	}
	return d / m
}

// rel2 returns ‖a−b‖₂ / ‖b‖₂.
func rel2[F kernels.Float](a []F, b []float64) float64 {
	var d, m float64
	for i, v := range b {
		e := float64(a[i]) - v
		d += e * e
		m += v * v
	}
	return math.Sqrt(d / m)
}

// TestSeparableBlurFloat32 compares the float32 separable blur and its
// adjoint with float64 on the same inputs, and checks the float32 adjoint
// identity.
func TestSeparableBlurFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, c := range []struct {
		k  []float64
		kk int
	}{{GaussianKernel(5, 1.5), 5}, {GaussianKernel(3, 0.7), 3}} {
		for _, bd := range []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular} {
			for _, sz := range [][2]int{{96, 96}, {13, 10}} {
				h, w := sz[0], sz[1]
				blur, err := NewBlur("b", c.k, c.kk, bd)
				if err != nil {
					t.Fatal(err)
				}
				const s = 1.3
				sep32 := convertSeparable[float32](blur.sep, s)
				x32 := to32(randVec(r, h*w, 1))
				y32 := to32(randVec(r, h*w, 1))
				x64, y64 := make([]float64, h*w), make([]float64, h*w)
				kernels.Convert(x64, x32)
				kernels.Convert(y64, y32)
				var sc32 blurScratchT[float32]
				var sc64 blurScratch
				a32, a64 := make([]float32, h*w), make([]float64, h*w)
				sep32.applyImage(a32, x32, h, w, 1, &sc32)
				blur.sep.applyImage(a64, x64, h, w, s, &sc64)
				name := fmt.Sprintf("K=%d %v %d×%d", c.kk, bd, h, w)
				if d := relInf32(a32, a64); d > 1e-6 {
					t.Errorf("%s: float32 blur differs from float64 by %.3g relative", name, d)
				}
				t32, t64 := make([]float32, h*w), make([]float64, h*w)
				sep32.adjointImage(t32, y32, h, w, 1, &sc32)
				blur.sep.adjointImage(t64, y64, h, w, s, &sc64)
				if d := relInf32(t32, t64); d > 1e-6 {
					t.Errorf("%s: float32 adjoint blur differs from float64 by %.3g relative", name, d)
				}
				lhs, rhs := kernels.DotT(a32, y32), kernels.DotT(x32, t32)
				scale := math.Sqrt(kernels.DotT(a32, a32) * kernels.DotT(y32, y32))
				if d := math.Abs(lhs-rhs) / scale; d > 1e-6 {
					t.Errorf("%s: float32 ⟨Ax,y⟩ = %.9g, ⟨x,Aᵀy⟩ = %.9g (relative %.3g)", name, lhs, rhs, d)
				}
			}
		}
	}
}

// TestFusedObjectiveFloat64IsEval checks that FusedObjective[float64] gives
// Objective.Eval's values and gradients bit for bit (same generic kernels,
// the scale folded into the blur exactly).
func TestFusedObjectiveFloat64IsEval(t *testing.T) {
	for _, bd := range []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular} {
		o := p1Objective(t, 5, 40, 36, bd, 9)
		e, err := NewFusedObjective[float64](o)
		if err != nil {
			t.Fatal(err)
		}
		v1, g1 := make([]float64, o.N), make([]float64, len(o.X0))
		v2, g2 := make([]float64, o.N), make([]float64, len(o.X0))
		if err := o.Eval(v1, g1, o.X0, nil); err != nil {
			t.Fatal(err)
		}
		if err := e.Eval(v2, g2, o.X0); err != nil {
			t.Fatal(err)
		}
		if floatBitsHash(v1) != floatBitsHash(v2) || floatBitsHash(g1) != floatBitsHash(g2) {
			t.Errorf("%v: FusedObjective[float64] differs from Objective.Eval", bd)
		}
		e.Close()
	}
}

// TestGradP1Float32 compares the float32 batched f and ∇f of Problem 1
// (N = 25, 96×96, zero boundary) with the float64 ones at the same
// (float32-rounded) iterate.
func TestGradP1Float32(t *testing.T) {
	for _, bd := range []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular} {
		n := 25
		if bd != kernels.Zero {
			n = 4
		}
		o := p1Objective(t, n, 96, 96, bd, 5)
		e, err := NewFusedObjective[float32](o)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		// Iterates: the starting point (near y) and one with large
		// residuals and gradients beyond ε.
		r := rand.New(rand.NewPCG(23, 24))
		for _, x := range [][]float64{o.X0, randVec(r, len(o.X0), 0.3)} {
			x32 := to32(x)
			x64 := make([]float64, len(x))
			kernels.Convert(x64, x32)
			v64, g64 := make([]float64, o.N), make([]float64, len(x))
			if err := o.Eval(v64, g64, x64, nil); err != nil {
				t.Fatal(err)
			}
			v32, g32 := make([]float64, o.N), make([]float32, len(x))
			if err := e.Eval(v32, g32, x32); err != nil {
				t.Fatal(err)
			}
			g2, gInf, vInf := rel2(g32, g64), relInf32(g32, g64), relInf32(v32, v64)
			t.Logf("%v N=%d: ∇f relative difference %.2g (2-norm), %.2g (max); f %.2g", bd, n, g2, gInf, vInf)
			if g2 > 1e-5 || gInf > 1e-5 || vInf > 1e-6 {
				t.Errorf("%v: float32 ∇f differs from float64 by %.3g (2-norm) %.3g (max), f by %.3g", bd, g2, gInf, vInf)
			}
			// Value only, and gradient only.
			if err := e.Eval(v32, nil, x32); err != nil {
				t.Fatal(err)
			}
			if d := relInf32(v32, v64); d > 1e-6 {
				t.Errorf("%v: value-only f differs by %.3g", bd, d)
			}
			g32b := make([]float32, len(x))
			if err := e.Eval(nil, g32b, x32); err != nil {
				t.Fatal(err)
			}
			for i := range g32b {
				if g32b[i] != g32[i] {
					t.Fatalf("%v: gradient-only evaluation differs at %d", bd, i)
				}
			}
		}
	}
}

func TestFusedObjectiveErrors(t *testing.T) {
	o := p1Objective(t, 2, 12, 12, kernels.Zero, 1)
	e, err := NewFusedObjective[float32](o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Eval(nil, nil, make([]float32, 5)) == nil {
		t.Error("wrong iterate size accepted")
	}
	if e.Eval(make([]float64, 3), nil, make([]float32, 288)) == nil {
		t.Error("wrong value count accepted")
	}
	if e.Eval(nil, make([]float32, 3), make([]float32, 288)) == nil {
		t.Error("wrong gradient size accepted")
	}
	ct := *o
	ct.A = Identity{}
	if _, err := NewFusedObjective[float32](&ct); err == nil {
		t.Error("an objective without a blur accepted")
	}
}

// TestFusedObjectiveFloat32DoesNotAllocate: an evaluation allocates nothing
// once the scratch exists.
func TestFusedObjectiveFloat32DoesNotAllocate(t *testing.T) {
	o := p1Objective(t, 6, 32, 32, kernels.Zero, 2)
	e, err := NewFusedObjective[float32](o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	x, g, v := to32(o.X0), make([]float32, len(o.X0)), make([]float64, o.N)
	if a := testing.AllocsPerRun(10, func() { _ = e.Eval(v, g, x) }); a != 0 {
		t.Errorf("Eval allocates %v times per call", a)
	}
}

// TestInPrecision checks Objective.InPrecision: the float32 objective's
// Eval equals FusedObjective[float32] at the rounded iterate (bitwise), is
// within 1e-5 of float64, records its precision in Setting, keeps it in
// Subsets (which agree with the subsets of the values) and back to float64;
// objectives without a fused path are refused.
func TestInPrecision(t *testing.T) {
	o := p1Objective(t, 4, 24, 20, kernels.Zero, 3)
	s, err := o.InPrecision(Float32)
	if err != nil {
		t.Fatal(err)
	}
	if s.Precision() != Float32 || o.Precision() != Float64 || s.Setting()["precision"] != "float32" || o.Setting()["precision"] != "" {
		t.Fatalf("precisions %s, %s; settings %q, %q", s.Precision(), o.Precision(), s.Setting()["precision"], o.Setting()["precision"])
	}
	x := randVec(rand.New(rand.NewPCG(1, 2)), len(o.X0), 0.2)
	v, g := make([]float64, o.N), make([]float64, len(x))
	if err := s.Eval(v, g, x, nil); err != nil {
		t.Fatal(err)
	}
	e, err := NewFusedObjective[float32](o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	v32, g32 := make([]float64, o.N), make([]float32, len(x))
	if err := e.Eval(v32, g32, to32(x)); err != nil {
		t.Fatal(err)
	}
	for i := range g {
		if g[i] != float64(g32[i]) {
			t.Fatalf("∇f[%d] = %v, FusedObjective[float32] gives %v", i, g[i], g32[i])
		}
	}
	v64, g64 := make([]float64, o.N), make([]float64, len(x))
	if err := o.Eval(v64, g64, x, nil); err != nil {
		t.Fatal(err)
	}
	if d := rel2(g32, g64); d > 1e-5 {
		t.Errorf("float32 ∇f differs from float64 by %.2g", d)
	}
	sub, err := s.Subset([]int{2, 0})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Precision() != Float32 || sub.N != 2 {
		t.Fatalf("subset: precision %s, N = %d", sub.Precision(), sub.N)
	}
	hw := o.ImageLen()
	xs := append(append([]float64(nil), x[2*hw:3*hw]...), x[:hw]...)
	vs := make([]float64, 2)
	if err := sub.Eval(vs, nil, xs, nil); err != nil {
		t.Fatal(err)
	}
	if vs[0] != v[2] || vs[1] != v[0] {
		t.Errorf("subset values %v, want %v, %v", vs, v[2], v[0])
	}
	back, err := s.InPrecision(Float64)
	if err != nil {
		t.Fatal(err)
	}
	vb := make([]float64, o.N)
	if err := back.Eval(vb, nil, x, nil); err != nil {
		t.Fatal(err)
	}
	for k := range vb {
		if vb[k] != v64[k] {
			t.Fatalf("back in float64: f_%d = %v, want %v", k, vb[k], v64[k])
		}
	}
	ct := *o
	ct.A = Identity{}
	if _, err := ct.InPrecision(Float32); err == nil {
		t.Error("an objective without a blur accepted in float32")
	}
	if _, err := o.InPrecision("float16"); err == nil {
		t.Error("float16 accepted")
	}
}

// TestCTObjectiveFloat32 compares Problem 2's objective in float32
// (NewObjectiveT: the ray transform in float32, Huber-TV by the fused
// per-image kernel) with Objective.Eval at the same (float32) iterates: ∇f
// to 1e-5, f to 1e-6 relative, at x⁰ = 0 and at a random image; the float64
// instance agrees with Eval to 1e-12 (another Huber-TV kernel and order).
func TestCTObjectiveFloat32(t *testing.T) {
	p, err := CTSmall(Options{H: 20})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 5))
	truth := randVec(r, 5*400, 0.3)
	for i := range truth {
		truth[i] += 0.5
	}
	o, err := p.Instantiate(truth, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	e32, err := NewObjectiveT[float32](o)
	if err != nil {
		t.Fatal(err)
	}
	e64, err := NewObjectiveT[float64](o)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range [][]float64{o.X0, randVec(r, len(o.X0), 0.4)} {
		x32 := to32(x)
		x64 := make([]float64, len(x))
		kernels.Convert(x64, x32)
		v, g := make([]float64, o.N), make([]float64, len(x))
		if err := o.Eval(v, g, x64, nil); err != nil {
			t.Fatal(err)
		}
		v32, g32 := make([]float64, o.N), make([]float32, len(x))
		if err := e32.Eval(v32, g32, x32); err != nil {
			t.Fatal(err)
		}
		v64, g64 := make([]float64, o.N), make([]float64, len(x))
		if err := e64.Eval(v64, g64, x64); err != nil {
			t.Fatal(err)
		}
		gd, vd := rel2(g32, g), relInf32(v32, v)
		gd64 := rel2(g64, g)
		vd64 := relInf32(v64, v)
		t.Logf("float32: ∇f %.2g, f %.2g; float64 instance: ∇f %.2g, f %.2g", gd, vd, gd64, vd64)
		if gd > 1e-5 || vd > 1e-6 {
			t.Errorf("float32 CT objective: ∇f differs by %.2g, f by %.2g", gd, vd)
		}
		if gd64 > 1e-12 || vd64 > 1e-12 {
			t.Errorf("float64 CT objective: ∇f differs by %.2g, f by %.2g", gd64, vd64)
		}
	}
	ps, err := o.InPrecision(Float32)
	if err != nil {
		t.Fatal(err)
	}
	if ps.Setting()["precision"] != "float32" {
		t.Error("the float32 CT objective does not record its precision")
	}
}
