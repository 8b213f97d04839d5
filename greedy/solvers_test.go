package greedy

import (
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/problem"
)

// leastSquaresSet returns n deblurring functions without regularizer (S = 0).
func leastSquaresSet(t testing.TB, n, size int) *problem.Objective {
	t.Helper()
	p, err := problem.Deblur(problem.Options{H: size})
	if err != nil {
		t.Fatal(err)
	}
	p.Reg, p.Alpha = problem.NoRegularizer{}, 0
	_, _, _, pix, _ := data.Stack(data.Synthetic(n, size, size, 3))
	o, err := p.Instantiate(pix, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func maxRelDiff(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num = math.Max(num, math.Abs(a[i]-b[i]))
		den = math.Max(den, math.Max(math.Abs(a[i]), math.Abs(b[i])))
	}
	return num / den
}

func TestInnerSolversAgreeOnLeastSquares(t *testing.T) {
	o := leastSquaresSet(t, 4, 12)
	cases := []struct {
		method string
		others []InnerSolver
	}{
		{"m-ps", []InnerSolver{LBFGS{RelTol: 1e-12, MaxEvaluations: 2000}, NAG{Iters: 2000, Rounds: 20}}},
		{"m-pp", []InnerSolver{LBFGS{RelTol: 1e-12, MaxEvaluations: 5000}}},
	}
	for _, c := range cases {
		cfg := Config{Method: Method{Param: method(t, c.method), Lambda: Constant(1e-3), Mu: Constant(1e-3)}, Stop: Stop{MaxSteps: 3}, Store: Store{KeepParams: true}}
		cfg.Solver.Inner = Closed{}
		ref, err := Train(o, cfg)
		if err != nil {
			t.Fatalf("%s closed: %v", c.method, err)
		}
		for _, s := range c.others {
			cfg.Solver.Inner = s
			res, err := Train(o, cfg)
			if err != nil {
				t.Fatalf("%s %s: %v", c.method, s.Name(), err)
			}
			for step := range ref.Theta {
				u0 := append(append([]float64(nil), ref.Theta[step]...), ref.Phi[step]...)
				u1 := append(append([]float64(nil), res.Theta[step]...), res.Phi[step]...)
				if d := maxRelDiff(u0, u1); d > 1e-6 {
					t.Errorf("%s step %d: %s differs from the closed form by %.3g (relative)", c.method, step, s.Name(), d)
				}
			}
		}
	}
}

func TestClosedFormRefusesRegularizedProblems(t *testing.T) {
	o := deblurSet(t, 2, 8, 1)
	if _, err := Train(o, Config{Method: Method{Param: method(t, "ps")}, Solver: Solver{Inner: Closed{}}, Stop: Stop{MaxSteps: 1}}); err == nil {
		t.Fatal("closed-form solver accepted a Huber-TV objective")
	}
}

// strongSet returns n strongly convex denoising functions ½‖x − y‖² + α HuberTV(x)
// and their minima f*, from a long L-BFGS solve of each.
func strongSet(t *testing.T, n, size int) (*problem.Objective, []float64) {
	t.Helper()
	p := &problem.Problem{Name: "denoise", H: size, W: size, A: problem.Identity{}, NormA: 1,
		Reg: problem.HuberTV{Eps: 0.05}, Alpha: 0.05, Noise: 0.05, Start: problem.FromObservation, Seed: 5}
	_, _, _, pix, _ := data.Stack(data.Synthetic(n, size, size, 9))
	o, err := p.Instantiate(pix, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Minimise each function by many gradient steps with step 1/L (strongly convex: linear rate).
	x := append([]float64(nil), o.X0...)
	g := make([]float64, len(x))
	for it := 0; it < 20000; it++ {
		if err := o.Eval(nil, g, x, nil); err != nil {
			t.Fatal(err)
		}
		for i := range x {
			x[i] -= g[i] / o.L
		}
	}
	fstar := make([]float64, n)
	if err := o.Eval(fstar, nil, x, nil); err != nil {
		t.Fatal(err)
	}
	return o, fstar
}

// Proposition 3.1: a pointwise G sends one strongly convex function to its
// minimiser in one step.
func TestPointwiseSolvesOneFunctionInOneStep(t *testing.T) {
	o, fstar := strongSet(t, 1, 8)
	res, err := Train(o, Config{Method: Method{Param: method(t, "pp")}, Solver: Solver{Inner: LBFGS{RelTol: 1e-12, MaxEvaluations: 20000}}, Stop: Stop{MaxSteps: 1}})
	if err != nil {
		t.Fatal(err)
	}
	f0, _ := o.Mean(o.X0)
	f1 := res.Steps[0].MeanF
	if gap := (f1 - fstar[0]) / (f0 - fstar[0]); gap > 1e-6 {
		t.Errorf("one pointwise step left a relative gap %.3g (f0 %g, f1 %g, f* %g)", gap, f0, f1, fstar[0])
	}
	// A scalar step cannot do that.
	res, err = Train(o, Config{Method: Method{Param: method(t, "ps")}, Stop: Stop{MaxSteps: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if gap := (res.Steps[0].MeanF - fstar[0]) / (f0 - fstar[0]); gap < 1e-3 {
		t.Errorf("a scalar step reached gap %.3g: the test problem is too easy to tell", gap)
	}
}

// Proposition 3.2: a full matrix G sends N ≤ n strongly convex functions with
// independent gradients to their minimisers in one step.
func TestFullMatrixSolvesSeveralFunctionsInOneStep(t *testing.T) {
	o, fstar := strongSet(t, 4, 6)
	res, err := Train(o, Config{Method: Method{Param: method(t, "pf")}, Solver: Solver{Inner: LBFGS{RelTol: 1e-12, MaxEvaluations: 20000}}, Stop: Stop{MaxSteps: 1}, Store: Store{KeepParams: true}})
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]float64, o.N)
	if err := o.Eval(vals, nil, res.X, nil); err != nil {
		t.Fatal(err)
	}
	f0 := make([]float64, o.N)
	_ = o.Eval(f0, nil, o.X0, nil)
	for k := range vals {
		if gap := (vals[k] - fstar[k]) / (f0[k] - fstar[k]); gap > 1e-6 {
			t.Errorf("function %d: one PF step left a relative gap %.3g", k, gap)
		}
	}
}

func TestTrainingConvergesAndStopsAtTolerance(t *testing.T) {
	o := deblurSet(t, 4, 16, 2)
	res, err := Train(o, Config{Method: Method{Param: method(t, "m-ps")}, Stop: Stop{MaxSteps: 500, TolRel: 1e4}})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopCause != "tolerance reached" {
		t.Fatalf("training stopped by %q after %d steps, want the tolerance", res.StopCause, len(res.Steps))
	}
	first, last := res.Steps[0].MaxGradNorm, res.Steps[len(res.Steps)-1].MaxGradNorm
	if !(last < first/50) {
		t.Errorf("max‖∇fk‖ went from %g to %g; want a decrease by the tolerance factor √1e4 = 100", first, last)
	}
	t.Logf("%d steps to relative tolerance 1e4", len(res.Steps))
}
