package ondevice

import (
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/wcrr"
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

// checkBatchEvaluator compares the batch evaluator's values and gradients
// at x with o's own Eval on the CPU device (1e-12) and the float32 host
// device (1e-5), and returns the gradient.
func checkBatchEvaluator(t *testing.T, what string, o *problem.Objective, x []float64) []float64 {
	t.Helper()
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
		err = be.Eval(vals, grad, x)
		be.Close()
		if err != nil {
			t.Fatal(err)
		}
		if e := relDiff(vals, want); e > d.tol {
			t.Errorf("%s, %s: values differ by %.3g", what, d.ops.Name(), e)
		}
		if e := relDiff(grad, wantG); e > d.tol {
			t.Errorf("%s, %s: gradients differ by %.3g", what, d.ops.Name(), e)
		}
	}
	return wantG
}

// ctSmall returns n ct-small functions (the scaled ray transform with
// Huber-TV) on size×size phantoms.
func ctSmall(t *testing.T, n, size int) *problem.Objective {
	t.Helper()
	return testproblems.CTSmall(t, n, size, 3)
}

// On CT (the ray transform through tomo.NewDeviceRay), the objective's values,
// gradients and Hessian-vector products agree with problem.Objective's:
// values and gradients to 1e-12 (float64) and 1e-5 (float32), the Hessian
// with central differences of ∇F.
func TestObjectiveCT(t *testing.T) {
	o := ctSmall(t, 2, 12)
	if f, ok := o.DeviceForm(); !ok || f.Ray == nil {
		t.Fatalf("ct-small has no ray device form (%v)", ok)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	x := randn(rng, len(o.X0), 0.3)
	checkBatchEvaluator(t, "CT", o, x)
	ob, err := NewObjective(arena(t, gpu.CPU()), o, o.N)
	if err != nil {
		t.Fatal(err)
	}
	if err := ob.SetData(o.Y); err != nil {
		t.Fatal(err)
	}
	v := randn(rng, len(x), 1)
	hb := upload(t, make([]float64, len(x)))
	if err := ob.HessVec(hb, upload(t, x), upload(t, v)); err != nil {
		t.Fatal(err)
	}
	fd := gradDiff(t, o, x, v, 1e-6)
	if e := relDiff(read(hb), fd); e > 1e-5 {
		t.Errorf("CT Hessian-vector product differs from central differences by %.2g", e)
	}
}

// On WCRR deblurring (the ridge regularizer through mconv.NewDeviceConv and
// wcrr.NewDevicePotentials), the objective's values and gradients agree with
// problem.Objective's (1e-12 in float64, 1e-5 in float32), its regularizer
// gradient and Hessian parts add up, and its Hessian-vector product matches
// central differences of ∇F where ψ” is constant (small steps).
func TestObjectiveWCRR(t *testing.T) {
	o := deblur(t, 2, 12, "zero", -1)
	o.Reg = &problem.WCRR{Model: wcrr.Random(3, [3]int{2, 3, 4}, 9), Name: "random"}
	o.Alpha = 3e-3
	if f, ok := o.DeviceForm(); !ok || f.Ridge == nil {
		t.Fatalf("wcrr deblurring has no ridge device form (%v)", ok)
	}
	rng := rand.New(rand.NewPCG(6, 6))
	x := randn(rng, len(o.X0), 0.3)
	for i := range x {
		x[i] += o.X0[i]
	}
	wantG := checkBatchEvaluator(t, "WCRR", o, x)
	ob, err := NewObjective(arena(t, gpu.CPU()), o, o.N)
	if err != nil {
		t.Fatal(err)
	}
	if err := ob.SetData(o.Y); err != nil {
		t.Fatal(err)
	}
	v := randn(rng, len(x), 1)
	xb, vb := upload(t, x), upload(t, v)
	hb := upload(t, make([]float64, len(x)))
	if err := ob.HessVec(hb, xb, vb); err != nil {
		t.Fatal(err)
	}
	fd := gradDiff(t, o, x, v, 1e-7)
	if e := relDiff(read(hb), fd); e > 1e-4 {
		t.Errorf("WCRR Hessian-vector product differs from central differences by %.2g", e)
	}
	checkParts(t, "WCRR", ob, o, x, v, read(hb), wantG)
}
