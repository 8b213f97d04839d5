package learned

import (
	"errors"
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/problem"
)

// mpcOptimizer is an M-PC learned optimizer of three steps, G = c_t·I/L
// with c_t = scale·(0.8, 0.9, 1.0), H = 0.3·I.
func mpcOptimizer(t *testing.T, o *problem.Objective, scale float64) *Optimizer {
	t.Helper()
	m := testproblems.Method(t, "m-pc")
	var theta, phi [][]float64
	for _, c := range []float64{0.8, 0.9, 1.0} {
		theta = append(theta, m.G.Reference(scale*c/o.L, o.H, o.W))
		phi = append(phi, m.H.Reference(0.3, o.H, o.W))
	}
	l, err := New("m-pc", m, o.H, o.W, theta, phi)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestDeviceIteratorEvaluates runs Algorithm 2 on the CPU and on the host
// device (the iterates on the device, learned.Evaluated read back with each
// iteration): the iterates agree to rounding, Σ_k f_k and every ‖∇f_k‖² the
// device computed agree with f and ∇f evaluated on the host at its
// iterates, and a step too long for the functions stops both with
// baselines.ErrDiverged at the same iteration.
func TestDeviceIteratorEvaluates(t *testing.T) {
	o := testproblems.Deblur(t, 2, 12, "", -1, 5)
	start := func(l *Optimizer, on gpu.Ops) baselines.Iterator {
		l.Target = execution.Target{Device: on}
		it, err := l.Start(o)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	l := mpcOptimizer(t, o, 1)
	cpu, dev := start(l, nil), start(l, gpu.CPU())
	ev, ok := dev.(Evaluated)
	if !ok {
		t.Fatalf("the iterator on a device (%T) does not evaluate its iterates", dev)
	}
	vals, grad, sq := make([]float64, o.N), make([]float64, len(o.X0)), make([]float64, o.N)
	hw := o.ImageLen()
	for k := range 6 {
		for _, it := range []baselines.Iterator{cpu, dev} {
			if err := it.Next(); err != nil {
				t.Fatal(err)
			}
		}
		sum, err := ev.Evaluated(sq)
		if err != nil {
			t.Fatal(err)
		}
		x := dev.X()
		near(t, "the iterates", k, x, cpu.X(), 1e-12)
		if err := o.Eval(vals, grad, x, nil); err != nil {
			t.Fatal(err)
		}
		want, wantSq := 0.0, make([]float64, o.N)
		for i, v := range vals {
			want += v
			for _, g := range grad[i*hw : (i+1)*hw] {
				wantSq[i] += g * g
			}
		}
		near(t, "Σ f_k", k, []float64{sum}, []float64{want}, 1e-12)
		near(t, "‖∇f_k‖²", k, sq, wantSq, 1e-12)
	}
	// The CPU's iterations stop at a non-finite iterate; apply stops them
	// where f is no longer finite, which the device's iterations see.
	long := mpcOptimizer(t, o, 40)
	stops := [2]int{-1, -1}
	for i, it := range []baselines.Iterator{start(long, nil), start(long, gpu.CPU())} {
		for k := range 300 {
			err := it.Next()
			if err == nil && i == 0 {
				if err = o.Eval(vals, nil, it.X(), nil); err == nil {
					if f := vals[0] + vals[1]; math.IsNaN(f) || math.IsInf(f, 0) {
						err = baselines.ErrDiverged
					}
				}
			}
			if err != nil {
				if !errors.Is(err, baselines.ErrDiverged) {
					t.Fatal(err)
				}
				stops[i] = k
				break
			}
		}
	}
	if stops[0] < 0 || stops[1] != stops[0] {
		t.Errorf("a step 40 times too long made f non-finite on the CPU at iteration %d and stopped the device's iterations at %d, want the same (-1: never)", stops[0], stops[1])
	}
	t.Logf("a step 40 times too long diverged at iteration %d", stops[0])
}

// near fails the test when got and want differ by more than tol relative
// to want's largest magnitude.
func near(t *testing.T, what string, k int, got, want []float64, tol float64) {
	t.Helper()
	var diff, scale float64
	for i := range want {
		diff, scale = max(diff, math.Abs(got[i]-want[i])), max(scale, math.Abs(want[i]))
	}
	if !(diff <= tol*scale) {
		t.Errorf("iteration %d: %s differ by %.3g, %.3g relative", k, what, diff, diff/scale)
	}
}
