package greedy

import (
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
	"gorgonia.org/tensor"
)

// TestScalarStepIsTheExactLineSearch checks greedy steps against their
// closed form. For least-squares functions f_k(x) = ½‖Ax − y_k‖² and PS
// without momentum or penalty, step t minimises (1/N) Σk f_k(x_k − θ g_k),
// a quadratic in θ with minimiser θ* = Σk ‖g_k‖² / Σk ‖A g_k‖² (g_k =
// ∇f_k(x_k^t)). The iterative inner solvers (L-BFGS, NAG) must find it at
// every step of a run, and each step's iterates must be x − θ* g.
func TestScalarStepIsTheExactLineSearch(t *testing.T) {
	o := deblurSet(t, 4, 16, 3)
	o.Alpha = 0 // least squares
	for _, inner := range []InnerSolver{LBFGS{}, NAG{Iters: 400, Rounds: 1}} {
		res, err := Train(o, Config{Method: Method{Param: method(t, "ps")}, Solver: Solver{Inner: inner}, Stop: Stop{MaxSteps: 4}, Store: Store{KeepParams: true}})
		if err != nil {
			t.Fatal(err)
		}
		x := append([]float64(nil), o.X0...)
		g := make([]float64, len(x))
		ag := make([]float64, o.N*o.DataShape(1).TotalSize())
		for step, theta := range res.Theta {
			if err := o.Eval(nil, g, x, nil); err != nil {
				t.Fatal(err)
			}
			if err := o.A.Apply(ag, g, tensor.Shape{o.N, o.H, o.W}); err != nil {
				t.Fatal(err)
			}
			want := kernels.Dot(g, g) / kernels.Dot(ag, ag)
			if d := math.Abs(theta[0]-want) / want; d > 1e-6 {
				t.Errorf("%s step %d: θ = %.10g, the exact line search gives %.10g (rel %.2g)", inner.Name(), step, theta[0], want, d)
			}
			for i := range x {
				x[i] -= theta[0] * g[i]
			}
		}
		if d := maxAbsDiff(x, res.X); d > 1e-8 {
			t.Errorf("%s: iterates after %d steps differ from x − θ* g by %g", inner.Name(), len(res.Theta), d)
		}
	}
}

// TestTrainBeatsGradientDescent checks what greedy training is for, on
// functions it was trained on: after 8 learned steps the mean objective is
// far below that of 8 gradient steps with step 1/L (by a factor that the
// per-step comparison with a gradient step does not imply), and decreasing.
func TestTrainBeatsGradientDescent(t *testing.T) {
	o := deblurSet(t, 6, 24, 1)
	x := append([]float64(nil), o.X0...)
	g := make([]float64, len(x))
	const steps = 8
	for range steps {
		if err := o.Eval(nil, g, x, nil); err != nil {
			t.Fatal(err)
		}
		for i := range x {
			x[i] -= g[i] / o.L
		}
	}
	gd, err := o.Mean(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		factor float64 // learned F after 8 steps ≤ factor · gradient descent's
	}{{"m-ps", 0.6}, {"m-pc", 0.55}, {"pp", 0.7}} {
		res, err := Train(o, Config{Method: Method{Param: method(t, c.name)}, Stop: Stop{MaxSteps: steps}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		last := res.Steps[len(res.Steps)-1].MeanF
		if !(last <= c.factor*gd) {
			t.Errorf("%s: mean objective after %d steps %.6g, gradient descent %.6g: want at most %g times", c.name, steps, last, gd, c.factor)
		}
		t.Logf("%s: F after %d steps %.6g, gradient descent %.6g (ratio %.3f)", c.name, steps, last, gd, last/gd)
	}
}

func maxAbsDiff(a, b []float64) float64 {
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// TestInnerProgressCountsTheStep checks that the inner solver's progress
// reports count up to the evaluations the step records, against NAG's
// budget, with the loss of the step loss's last evaluation.
func TestInnerProgressCountsTheStep(t *testing.T) {
	o := deblurSet(t, 3, 12, 1)
	var seen []InnerProgress
	res, err := Train(o, Config{
		Method: Method{Param: method(t, "m-pc")},
		Solver: Solver{Inner: NAG{Iters: 20, Rounds: 1}},
		Stop:   Stop{MaxSteps: 2},
		Record: Record{InnerProgress: func(p InnerProgress) { seen = append(seen, p) }},
	})
	if err != nil {
		t.Fatal(err)
	}
	last := map[int]InnerProgress{}
	for i, p := range seen {
		if i > 0 && p.Step == seen[i-1].Step && p.Evaluations != seen[i-1].Evaluations+1 {
			t.Fatalf("step %d: evaluation %d follows %d", p.Step, p.Evaluations, seen[i-1].Evaluations)
		}
		last[p.Step] = p
	}
	for _, s := range res.Steps {
		p := last[s.T]
		if p.Evaluations != s.Evaluations || p.Budget != 40 || p.Loss < s.Loss-1e-12*math.Abs(s.Loss) {
			t.Errorf("step %d: last report %d of %d evaluations (loss %g); the step recorded %d evaluations, loss %g", s.T, p.Evaluations, p.Budget, p.Loss, s.Evaluations, s.Loss)
		}
	}
}
