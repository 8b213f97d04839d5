package greedy

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/problem"
)

// identityObjective is n denoising least-squares functions ½‖x − y_k‖² on
// size×size images: ∇f = x − y, so a PS step x ← x − θ∇f(x) multiplies every
// gradient by 1 − θ.
func identityObjective(n, size int) *problem.Objective {
	r := rand.New(rand.NewPCG(3, 4))
	y := make([]float64, n*size*size)
	for i := range y {
		y[i] = r.NormFloat64()
	}
	return &problem.Objective{A: problem.Identity{}, Reg: problem.HuberTV{Eps: 0.01}, Alpha: 0, N: n, H: size, W: size,
		Y: y, X0: make([]float64, len(y)), L: 1, NormA: 1}
}

// TestRepeatGrowthIsTheClosedForm: PS with step θ repeated K times on
// ½‖x − y‖² scales every gradient by |1 − θ|^K.
func TestRepeatGrowthIsTheClosedForm(t *testing.T) {
	o := identityObjective(3, 8)
	v, err := newValidator(method(t, "ps"), o, world{hi: o.N, n: o.N}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer v.close()
	x := make([]float64, len(o.Y))
	for i := range x {
		x[i] = float64(i%7) / 7
	}
	for _, theta := range []float64{0.5, 1.7, 2.5} {
		const k = 5
		got, err := v.repeat(x, x, []float64{theta}, k)
		if err != nil {
			t.Fatal(err)
		}
		want := math.Pow(math.Abs(1-theta), k)
		if math.Abs(got-want) > 1e-12*want {
			t.Errorf("θ = %g: growth %.15g, want |1 − θ|^%d = %.15g", theta, got, k, want)
		}
	}
}

// TestRepeatStopGoesOnAfterAnUnstableStep: with a repeat check the
// tolerance stops the run only at a step that passes it; a failed check is
// recorded and training goes on.
func TestRepeatStopGoesOnAfterAnUnstableStep(t *testing.T) {
	o := identityObjective(2, 8)
	cfg := Config{Method: Method{Param: method(t, "ps")}, Stop: Stop{MaxSteps: 5, RepeatCheck: 4}}
	tr, err := newTrainer(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.close()
	for i := range tr.x {
		tr.x[i] = 0.5 * o.Y[i]
	}
	tr.last = []float64{2.5} // |1 − θ| = 1.5: unstable
	if stop, err := tr.repeatStop(3, "tolerance reached"); err != nil || stop != "" {
		t.Fatalf("an unstable step stopped the run: %q, %v", stop, err)
	}
	tr.last = []float64{0.9}
	stop, err := tr.repeatStop(4, "tolerance reached")
	if err != nil || !strings.HasPrefix(stop, "tolerance reached; step 3 repeated 4 times") {
		t.Fatalf("a stable step gave %q, %v", stop, err)
	}
	c := tr.man.RepeatChecks
	if len(c) != 2 || c[0].Stable || c[0].T != 2 || math.Abs(c[0].Growth-math.Pow(1.5, 4)) > 1e-12 || !c[1].Stable || c[1].Functions != "training" {
		t.Errorf("recorded checks %+v", c)
	}
	if stop, _ := (&trainer{cfg: Config{}}).repeatStop(4, "tolerance reached"); stop != "tolerance reached" {
		t.Errorf("without a repeat check the tolerance gave %q", stop)
	}
}

// TestRepeatCheckIsAlgorithm2: every check a training run records is the
// growth of the training functions' ‖∇f‖ when Algorithm 2 runs the trained
// steps to T and repeats step T K more times; M-PS stops at a step that
// passes, M-PC (λ = 0 on 16×16) fails every check and trains on past the
// tolerance to the step cap.
func TestRepeatCheckIsAlgorithm2(t *testing.T) {
	o := deblurSet(t, 3, 16, 11)
	for _, c := range []struct {
		param  string
		tolRel float64
		k, cap int
		stable bool
		rtol   float64 // M-PC's trajectories amplify rounding (each step repeated grows ‖∇f‖ 100×): the verdict and the size
	}{{"m-ps", 1e4, 6, 40, true, 1e-9}, {"m-pc", 1e6, 3, 14, false, 0.5}} {
		cfg := Config{Method: Method{Param: method(t, c.param)}, Solver: Solver{Inner: LBFGS{MaxEvaluations: 60}},
			Stop:  Stop{MaxSteps: c.cap, TolRel: c.tolRel, RepeatCheck: c.k},
			Store: Store{KeepParams: true}}
		res, err := Train(o, cfg)
		if err != nil {
			t.Fatal(err)
		}
		checks := res.Manifest.RepeatChecks
		if len(checks) == 0 || res.Manifest.RepeatCheck != c.k {
			t.Fatalf("%s: no repeat check recorded (stop: %s)", c.param, res.StopCause)
		}
		for _, ch := range checks {
			if g := algorithm2Growth(t, cfg, o, res, ch.T, c.k); math.Abs(g-ch.Growth) > c.rtol*g || ch.Stable != (g <= 1) {
				t.Errorf("%s, step %d: recorded growth %.12g (stable %v), Algorithm 2 gives %.12g", c.param, ch.T, ch.Growth, ch.Stable, g)
			}
		}
		last := checks[len(checks)-1]
		switch {
		case c.stable && (!last.Stable || last.T != len(res.Steps)-1 || !strings.Contains(res.StopCause, "raises no training function")):
			t.Errorf("%s: stopped (%s) after %d steps, last check %+v", c.param, res.StopCause, len(res.Steps), last)
		case !c.stable && (last.Stable || res.StopCause != "step cap reached" || len(res.Steps) != cfg.Stop.MaxSteps || checks[0].T+1 >= len(res.Steps)):
			t.Errorf("%s: stopped (%s) after %d steps, checks %+v", c.param, res.StopCause, len(res.Steps), checks)
		}
	}
}

// algorithm2Growth runs the trained steps 0…T on o and step T k times more,
// and returns the largest ratio of a function's ‖∇f‖ after and before the k.
func algorithm2Growth(t *testing.T, cfg Config, o *problem.Objective, res *Result, T, k int) float64 {
	t.Helper()
	l, err := learned.New("greedy", cfg.Method.Param, o.H, o.W, res.Theta[:T+1], res.Phi[:T+1])
	if err != nil {
		t.Fatal(err)
	}
	it, err := l.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	var before []float64
	g := make([]float64, len(o.X0))
	for i := 1; i <= T+1+k; i++ {
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
		if i == T+1 || i == T+1+k {
			if err := o.Eval(nil, g, it.X(), nil); err != nil {
				t.Fatal(err)
			}
			if i == T+1 {
				before = blockNorms(g, o.N)
			}
		}
	}
	after, growth := blockNorms(g, o.N), 0.0
	for i := range after {
		growth = max(growth, after[i]/before[i])
	}
	return growth
}

// TestRepeatCheckResumesAFinishedRun: a run the tolerance stopped without a
// repeat check goes on when resumed with one, from its last step, checks
// included; the steps it had stay bitwise.
func TestRepeatCheckResumesAFinishedRun(t *testing.T) {
	o := deblurSet(t, 3, 16, 11)
	cfg := Config{Method: Method{Param: method(t, "m-pc")}, Solver: Solver{Inner: LBFGS{MaxEvaluations: 60}},
		Stop:  Stop{MaxSteps: 14, TolRel: 1e6},
		Store: Store{Dir: t.TempDir(), KeepParams: true}}
	first, err := Train(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := len(first.Steps)
	if first.StopCause != "tolerance reached" || n >= 14 {
		t.Fatalf("the first run stopped (%s) after %d steps", first.StopCause, n)
	}
	cfg.Store.Resume, cfg.Stop.RepeatCheck = true, 3
	res, err := Train(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Manifest.RepeatChecks
	if len(res.Manifest.Steps) <= n || len(c) == 0 || c[0].T != n-1 {
		t.Fatalf("resumed with a repeat check: %d steps (had %d), checks %+v, stop %s", len(res.Manifest.Steps), n, c, res.StopCause)
	}
	for i := range n {
		if res.Manifest.Steps[i].Loss != first.Steps[i].Loss {
			t.Errorf("step %d changed on resume", i)
		}
	}
}
