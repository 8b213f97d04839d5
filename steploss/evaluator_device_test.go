package steploss

import (
	"math"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// deblurWith is deblurSet with a blur boundary.
func deblurWith(t testing.TB, n, size int, boundary string) *problem.Objective {
	t.Helper()
	return testproblems.Deblur(t, n, size, boundary, -1, 4)
}

// TestDeviceStepAgrees checks the step loss computed with the CPU device's
// array operations (the engine's device pass on gpu.CPU(), float64) against the fast
// evaluators: value and gradient to 1e-12 relative for every term kind (PS,
// PP, PC-k with each boundary, PC and mixes), the block gradients against
// the full one, the next iterates, and the objective with each blur
// boundary (the device evaluates the blur as a 2-D correlation, the CPU
// path as two separable passes).
func TestDeviceStepAgrees(t *testing.T) {
	const lambda, mu = 0.05, 0.3
	for _, boundary := range []string{"zero", "reflect", "circular"} {
		o := deblurWith(t, 3, 20, boundary)
		x, g, p := testproblems.StepData(t, o, 5)
		for _, name := range []string{"ps", "pp", "pc3", "pc3-zero", "pc5-reflect", "pc", "m-ps", "m-pp", "m-pc", "m-pc3", "pc:ps", "pp:pc"} {
			ref := loadedLoss(t, name, o, stepPaths{}, x, g, p, lambda, mu)
			dev := loadedLoss(t, name, o, stepPaths{device: gpu.CPU()}, x, g, p, lambda, mu)
			if k := dev.ev.kind(); k != "device" {
				t.Fatalf("%s: evaluator %q, want device", name, k)
			}
			for seed := range uint64(2) {
				u := testPoint(ref, seed)
				want, got := make([]float64, len(u)), make([]float64, len(u))
				vw, err := ref.Eval(u, want)
				if err != nil {
					t.Fatal(err)
				}
				vg, err := dev.Eval(u, got)
				if err != nil {
					t.Fatal(err)
				}
				if d := max(math.Abs(vg-vw)/math.Abs(vw), testsupport.NormDiff(got, want)); d > 1e-12 || math.IsNaN(d) {
					t.Errorf("%s, %s blur, seed %d: device vs fast evaluator: value %.17g vs %.17g, %.2g relative", name, boundary, seed, vg, vw, d)
				}
				nt := dev.ThetaLen()
				for b, blk := range [][]float64{got[:nt], got[nt:]} {
					if len(blk) == 0 {
						continue
					}
					gb := make([]float64, len(blk))
					vb, err := dev.EvalBlock(b, u, gb)
					if err != nil {
						t.Fatal(err)
					}
					if vb != vg || testsupport.NormDiff(gb, blk) > 1e-15 {
						t.Errorf("%s seed %d block %d: value %v vs %v, gradient %.2g from the full one", name, seed, b, vb, vg, testsupport.NormDiff(gb, blk))
					}
				}
				nr, nd := make([]float64, len(x)), make([]float64, len(x))
				if err := ref.Next(nr, u); err != nil {
					t.Fatal(err)
				}
				if err := dev.Next(nd, u); err != nil {
					t.Fatal(err)
				}
				if d := testsupport.NormDiff(nd, nr); d > 1e-13 {
					t.Errorf("%s seed %d: device x⁺ differs by %.2g", name, seed, d)
				}
			}
		}
	}
}

// stepLossDiff evaluates two step losses at testPoint(ref, seed) and returns
// the larger of the value's relative difference and the gradient's.
func stepLossDiff(t *testing.T, ref, dev *StepLoss, seed uint64) float64 {
	t.Helper()
	u := testPoint(ref, seed)
	gr, gd := make([]float64, len(u)), make([]float64, len(u))
	vr, err := ref.Eval(u, gr)
	if err != nil {
		t.Fatal(err)
	}
	vd, err := dev.Eval(u, gd)
	if err != nil {
		t.Fatal(err)
	}
	return max(math.Abs(vd-vr)/vr, testsupport.NormDiff(gd, gr))
}

func TestDeviceStepRefuses(t *testing.T) {
	o := testproblems.DeblurSet(t, 2, 12, 1)
	if err := CheckDevice(testproblems.Method(t, "m-pf"), o); err != nil {
		t.Errorf("m-pf on a device (the graph path): %v", err)
	}
	objs := affineObjectives(t)
	// A regularizer without device operations (here WCRR behind a wrapper
	// type) is refused.
	hidden := *objs["wcrr"]
	hidden.Reg = noAnalysis{hidden.Reg}
	for _, m := range []string{"m-ps", "m-pf"} {
		if err := CheckDevice(testproblems.Method(t, m), &hidden); err == nil || !strings.Contains(err.Error(), "--device cpu") {
			t.Errorf("an unknown regularizer, %s on a device: %v, want an error naming --device cpu", m, err)
		}
	}
	// CT (the ray transform, scaled) and WCRR run on the device: the step
	// loss agrees with the CPU's paths for device terms and the graph path.
	for _, obj := range []string{"ct-small", "wcrr"} {
		ct := objs[obj]
		xc, gc, pc := testproblems.StepData(t, ct, 3)
		for _, name := range []string{"m-ps", "m-pc", "m-pf"} {
			ref := loadedLoss(t, name, ct, stepPaths{noReduce: true}, xc, gc, pc, 0.1, 0.1)
			dev := loadedLoss(t, name, ct, stepPaths{device: gpu.CPU()}, xc, gc, pc, 0.1, 0.1)
			if d := stepLossDiff(t, ref, dev, 2); d > 1e-11 {
				t.Errorf("%s, %s (%s): device differs by %.2g", obj, name, dev.ev.kind(), d)
			}
		}
	}
	// Least squares (α = 0) runs on the device.
	ls := objs["least-squares"]
	x, g, p := testproblems.StepData(t, ls, 2)
	ref := loadedLoss(t, "m-pc", ls, stepPaths{}, x, g, p, 0.1, 0.1)
	dev := loadedLoss(t, "m-pc", ls, stepPaths{device: gpu.CPU()}, x, g, p, 0.1, 0.1)
	if d := stepLossDiff(t, ref, dev, 4); d > 1e-12 {
		t.Errorf("least squares: device differs by %.2g", d)
	}
}

// TestDeviceStepFloat32 runs the step loss on the float32 host device
// (gpu.Host32: float32 arithmetic with float64 sums, as the CUDA device) at
// the paper's size, N = 25 images of 96×96, against the float64 fast
// evaluators: value and gradient within 1e-4 relative, the tolerance the
// CUDA test at this size uses.
func TestDeviceStepFloat32(t *testing.T) {
	if testing.Short() {
		t.Skip("paper-size float32 device test skipped in -short mode")
	}
	o := testproblems.DeblurSet(t, 25, 96, 3)
	x, g, p := testproblems.StepData(t, o, 1)
	for _, name := range []string{"ps", "pp", "pc5", "pc", "m-ps", "m-pc", "m-pc5-reflect"} {
		ref := loadedLoss(t, name, o, stepPaths{}, x, g, p, 0.01, 0.01)
		dev := loadedLoss(t, name, o, stepPaths{device: gpu.Host32()}, x, g, p, 0.01, 0.01)
		// Near the reference (a point where the data term dominates):
		// 0.9·(θ̃, φ̃) plus noise of 1e-3/L per parameter.
		u := perturbed(ref.Reference(), 1e-3/o.L, 2)
		for i, r := range ref.Reference() {
			u[i] -= 0.1 * r
		}
		gr, gd := make([]float64, len(u)), make([]float64, len(u))
		vr, err := ref.Eval(u, gr)
		if err != nil {
			t.Fatal(err)
		}
		vd, err := dev.Eval(u, gd)
		if err != nil {
			t.Fatal(err)
		}
		dv, dg := math.Abs(vd-vr)/math.Abs(vr), testsupport.NormDiff(gd, gr)
		t.Logf("%s: float32 device vs float64: value %.2g, gradient %.2g relative", name, dv, dg)
		if dv > 1e-4 || !(dg <= 1e-4) {
			t.Errorf("%s: float32 device differs from float64: value %.3g, gradient %.3g relative", name, dv, dg)
		}
	}
}

// TestDeviceGraphStepAgrees checks the device's graph path: terms without a
// device kind (PF, and a user parametrization known only by its forward
// expression) run their graphs on the host with the objective on the
// device, and agree with the CPU's graph evaluator to 1e-12 (value and
// gradient, block gradients included). (greedy's TestDeviceGraphTrains
// checks that a greedy training run on a device (Config.Target) follows the CPU's.)
func TestDeviceGraphStepAgrees(t *testing.T) {
	const lambda, mu = 0.05, 0.3
	o := deblurWith(t, 3, 12, "zero")
	x, g, p := testproblems.StepData(t, o, 5)
	for _, m := range []models.Method{
		testproblems.Method(t, "pf"), // a device kind (gpu.MatOps): the device step loss
		{G: testproblems.OuterWeights{}},
		{G: testproblems.OuterWeights{}, H: models.Pointwise{}},
	} {
		mk := func(paths stepPaths) *StepLoss {
			s, err := newStepLoss(m, o, 1/o.L, paths)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			if err := s.SetStep(x, g, p, lambda, mu); err != nil {
				t.Fatal(err)
			}
			return s
		}
		ref, dev := mk(stepPaths{graphOnly: true}), mk(stepPaths{device: gpu.CPU()})
		wantKind := "device-graph"
		if m.Name() == "pf" {
			wantKind = "device"
		}
		if k := dev.ev.kind(); k != wantKind {
			t.Fatalf("%s: evaluator %q, want %s", m.Name(), k, wantKind)
		}
		u := testPoint(ref, 1)
		want, got := make([]float64, len(u)), make([]float64, len(u))
		vw, err := ref.Eval(u, want)
		if err != nil {
			t.Fatal(err)
		}
		vg, err := dev.Eval(u, got)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(vg-vw) > 1e-12*math.Abs(vw) || testsupport.RelDiff(got, want) > 1e-12 {
			t.Errorf("%s: value %.15g vs %.15g, gradient %.2g relative", m.Name(), vg, vw, testsupport.RelDiff(got, want))
		}
	}
}
