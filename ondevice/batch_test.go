package ondevice

import (
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/problem"
)

// The batch evaluator's values and gradients equal problem.Objective.Eval's
// on the CPU device (float64) for every blur boundary and without a
// regularizer, and within float32 rounding on the float32 host device.
func TestBatchEvaluatorMatchesEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, c := range []struct {
		boundary string
		alpha    float64
	}{{"zero", -1}, {"reflect", -1}, {"circular", -1}, {"zero", 0}} {
		o := deblur(t, 3, 12, c.boundary, c.alpha)
		x := randn(rng, len(o.X0), 0.5)
		want, wantG := make([]float64, o.N), make([]float64, len(x))
		if err := o.Eval(want, wantG, x, nil); err != nil {
			t.Fatal(err)
		}
		for _, d := range []struct {
			ops gpu.Ops
			tol float64
		}{{gpu.CPU(), 1e-12}, {gpu.Host32(), 1e-5}} {
			be, err := NewBatchEvaluator(d.ops, o)
			if err != nil {
				t.Fatal(err)
			}
			vals, grad := make([]float64, o.N), make([]float64, len(x))
			err = o.OnEvaluator(be).Eval(vals, grad, x, nil)
			be.Close()
			if err != nil {
				t.Fatal(err)
			}
			if e := relDiff(vals, want); e > d.tol {
				t.Errorf("%s, α %g, %s: values differ by %.3g", c.boundary, o.Alpha, d.ops.Name(), e)
			}
			if e := relDiff(grad, wantG); e > d.tol {
				t.Errorf("%s, α %g, %s: gradients differ by %.3g", c.boundary, o.Alpha, d.ops.Name(), e)
			}
		}
	}
}

// A classical method (L-BFGS with its line search) on the device's ∇f
// follows its CPU run: after 15 iterations the iterates agree to 1e-9.
func TestBaselineOnDeviceEvaluator(t *testing.T) {
	o := deblur(t, 2, 12, "zero", -1)
	be, err := NewBatchEvaluator(gpu.CPU(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	run := func(o2 *problem.Objective) []float64 {
		it, err := baselines.LBFGS{}.Start(o2)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 15; i++ {
			if err := it.Next(); err != nil {
				t.Fatal(err)
			}
		}
		return append([]float64(nil), it.X()...)
	}
	want, got := run(o), run(o.OnEvaluator(be))
	if e := relDiff(got, want); e > 1e-9 {
		t.Errorf("L-BFGS on the device evaluator differs from the CPU's by %.3g after 15 iterations", e)
	}
	if o.OnEvaluator(be).Setting()["evaluator"] != "cpu" {
		t.Errorf("setting %v does not record the evaluator", o.OnEvaluator(be).Setting())
	}
}
