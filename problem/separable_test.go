package problem

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
	"gorgonia.org/tensor"
)

func maxAbsDiff(a, b []float64) (diff, scale float64) {
	for i := range a {
		diff = math.Max(diff, math.Abs(a[i]-b[i]))
		scale = math.Max(scale, math.Abs(b[i]))
	}
	return diff, scale
}

// TestSeparableBlurMatchesConv compares the separable blur (and its adjoint)
// with the 2-D correlation of kernels.Conv for every boundary.
func TestSeparableBlurMatchesConv(t *testing.T) {
	const n, h, w = 2, 12, 10
	r := rand.New(rand.NewPCG(8, 9))
	a7, b7 := randVec(r, 7, 1), randVec(r, 7, 1)
	outer := make([]float64, 49)
	for u := range a7 {
		for v := range b7 {
			outer[u*7+v] = a7[u] * b7[v]
		}
	}
	cases := []struct {
		k      []float64
		kk     int
		bounds []kernels.Boundary
	}{
		{GaussianKernel(5, 1.5), 5, []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular}},
		{GaussianKernel(3, 0.7), 3, []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular}},
		{outer, 7, []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular}},
	}
	for _, c := range cases {
		for _, bd := range c.bounds {
			blur, err := NewBlur("b", c.k, c.kk, bd)
			if err != nil {
				t.Fatal(err)
			}
			if blur.sep == nil {
				t.Fatalf("K=%d %v: rank-one kernel not recognised as separable", c.kk, bd)
			}
			x, y := randVec(r, n*h*w, 1), randVec(r, n*h*w, 1)
			kc := kernels.Conv{N: n, H: h, W: w, K: c.kk, Boundary: bd}
			got, want := make([]float64, n*h*w), make([]float64, n*h*w)
			in := tensor.Shape{n, h, w}
			if err := blur.Apply(got, x, in); err != nil {
				t.Fatal(err)
			}
			if err := kc.Apply(want, x, c.k); err != nil {
				t.Fatal(err)
			}
			if d, s := maxAbsDiff(got, want); d > 1e-13*s {
				t.Errorf("K=%d %v: apply differs from kernels.Conv by %.3g (scale %.3g)", c.kk, bd, d, s)
			}
			if err := blur.Adjoint(got, y, in); err != nil {
				t.Fatal(err)
			}
			if err := kc.AdjointImage(want, y, c.k); err != nil {
				t.Fatal(err)
			}
			if d, s := maxAbsDiff(got, want); d > 1e-13*s {
				t.Errorf("K=%d %v: adjoint differs from kernels.Conv by %.3g (scale %.3g)", c.kk, bd, d, s)
			}
		}
	}
	if _, _, ok := factorRankOne(randVec(r, 25, 1), 5); ok {
		t.Error("a random 5×5 kernel was taken for rank one")
	}
}

// TestFusedEvalMatchesKernels compares the fused image-by-image evaluation
// with the batched kernels path (a blur without its separable factors).
func TestFusedEvalMatchesKernels(t *testing.T) {
	o := smallDeblur(t, 3, 14)
	if _, _, _, ok := o.fusedBlur(); !ok {
		t.Fatal("deblurring objective does not take the fused path")
	}
	sc := o.A.(*Scaled)
	plain := *o
	plain.A = &Scaled{Op: &Blur{FixedConv: sc.Op.(*Blur).FixedConv}, Scale: sc.Scale}
	if _, _, _, ok := plain.fusedBlur(); ok {
		t.Fatal("blur without factors takes the fused path")
	}
	r := rand.New(rand.NewPCG(2, 2))
	x := randVec(r, len(o.X0), 0.3)
	for _, ls := range []bool{false, true} {
		a, b := *o, plain
		if ls {
			a.Alpha, b.Alpha = 0, 0
		}
		va, vb := make([]float64, o.N), make([]float64, o.N)
		ga, gb := make([]float64, len(x)), make([]float64, len(x))
		if err := a.Eval(va, ga, x, nil); err != nil {
			t.Fatal(err)
		}
		if err := b.Eval(vb, gb, x, nil); err != nil {
			t.Fatal(err)
		}
		for k := range va {
			if relDiff(va[k], vb[k]) > 1e-13 {
				t.Errorf("least squares %v: f_%d fused %.17g, kernels %.17g", ls, k, va[k], vb[k])
			}
		}
		if d, s := maxAbsDiff(ga, gb); d > 1e-12*s {
			t.Errorf("least squares %v: ∇f differs by %.3g (scale %.3g)", ls, d, s)
		}
		// Value only.
		if err := a.Eval(va, nil, x, &Workspace{}); err != nil {
			t.Fatal(err)
		}
		for k := range va {
			if relDiff(va[k], vb[k]) > 1e-13 {
				t.Errorf("least squares %v, value only: f_%d fused %.17g, kernels %.17g", ls, k, va[k], vb[k])
			}
		}
	}
}

// BenchmarkSeparableBlur: the blur and its adjoint on 25 images of 96×96 for
// a 5×5 (Problem 1) and a 7×7 rank-one kernel, zero boundary.
func BenchmarkSeparableBlur(b *testing.B) {
	r := rand.New(rand.NewPCG(8, 9))
	a7, b7 := randVec(r, 7, 1), randVec(r, 7, 1)
	outer := make([]float64, 49)
	for u := range a7 {
		for v := range b7 {
			outer[u*7+v] = a7[u] * b7[v]
		}
	}
	for _, c := range []struct {
		name string
		k    []float64
		kk   int
	}{{"K=5", GaussianKernel(5, 1.5), 5}, {"K=7", outer, 7}} {
		b.Run(c.name, func(b *testing.B) {
			blur, err := NewBlur("b", c.k, c.kk, kernels.Zero)
			if err != nil {
				b.Fatal(err)
			}
			in := tensor.Shape{25, 96, 96}
			x, y := randVec(r, 25*96*96, 1), make([]float64, 25*96*96)
			b.ResetTimer()
			for range b.N {
				if err := blur.Apply(y, x, in); err != nil {
					b.Fatal(err)
				}
				if err := blur.Adjoint(x, y, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
