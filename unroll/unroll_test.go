package unroll

import (
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/optim"
	"github.com/greedyl2o/greedyl2o/problem"
	"gonum.org/v1/gonum/optimize"
)

// perturbed returns the reference parameters plus a random perturbation of
// relative size s, so that every θt, φt differs.
func perturbed(l *Loss, s float64, seed uint64) []float64 {
	u := l.Reference()
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range u {
		u[i] += s * r.NormFloat64() * (0.1 + math.Abs(u[i]))
	}
	return u
}

func TestGradientMatchesFiniteDifferences(t *testing.T) {
	hub := deblurSet(t, 2, 8, 3)
	for _, tc := range []struct {
		name string
		obj  func() *Loss
		tol  float64
	}{
		{"least-squares m-pc", func() *Loss { return mustLoss(t, "m-pc", leastSquares(hub), 3, 2) }, 1e-7},
		{"huber-tv m-pc", func() *Loss { return mustLoss(t, "m-pc", hub, 3, 2) }, 1e-5},
		{"huber-tv m-pc3", func() *Loss { return mustLoss(t, "m-pc3", hub, 3, 2) }, 1e-5},
	} {
		l := tc.obj()
		u := perturbed(l, 0.05, 9)
		grad := make([]float64, l.Dim())
		if _, err := l.Eval(u, grad); err != nil {
			t.Fatal(err)
		}
		var gmax float64
		for _, g := range grad {
			gmax = math.Max(gmax, math.Abs(g))
		}
		// Check every coordinate of θ1, φ1, θ2, φ2 and some of step 0.
		blk := l.ThetaLen() + l.PhiLen()
		var idx []int
		for i := 0; i < l.Dim(); i++ {
			if i >= blk || i%7 == 0 {
				idx = append(idx, i)
			}
		}
		const h = 1e-5
		worst := 0.0
		for _, i := range idx {
			orig := u[i]
			u[i] = orig + h
			fp, err := l.Eval(u, nil)
			if err != nil {
				t.Fatal(err)
			}
			u[i] = orig - h
			fm, err := l.Eval(u, nil)
			if err != nil {
				t.Fatal(err)
			}
			u[i] = orig
			fd := (fp - fm) / (2 * h)
			worst = math.Max(worst, math.Abs(fd-grad[i])/gmax)
		}
		t.Logf("%s: %d coordinates, worst |fd − grad|/max|grad| = %.2e (max |grad| %.3g)", tc.name, len(idx), worst, gmax)
		if worst > tc.tol {
			t.Errorf("%s: gradient differs from central finite differences by %.2e (relative to max |grad|), want ≤ %g", tc.name, worst, tc.tol)
		}
		// φ0 multiplies x^0 − x^{−1} = 0: its gradient must be exactly zero.
		for i := l.ThetaLen(); i < blk; i++ {
			if grad[i] != 0 {
				t.Fatalf("%s: gradient of φ0[%d] = %g, want 0", tc.name, i-l.ThetaLen(), grad[i])
			}
		}
		l.Close()
	}
}

func mustLoss(t testing.TB, name string, o *problem.Objective, steps, batch int) *Loss {
	t.Helper()
	l, err := NewLoss(method(t, name), o, steps, batch, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLossMatchesNaiveTrajectory compares the graph's unrolled loss with a
// plain loop over Objective.Eval for scalar G and H (M-PS), weights included.
func TestLossMatchesNaiveTrajectory(t *testing.T) {
	o := deblurSet(t, 3, 12, 5)
	weights := []float64{0.5, 1, 0, 2}
	l, err := NewLoss(method(t, "m-ps"), o, 4, 3, 0, weights)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	u := []float64{0.7, 0.3, 0.9, 0.2, 0.5, -0.1, 1.1, 0.4} // (θt, φt) pairs
	got, err := l.Eval(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := l.StepValues()
	if err != nil {
		t.Fatal(err)
	}
	x := append([]float64(nil), o.X0...)
	prev := append([]float64(nil), o.X0...)
	grad := make([]float64, len(x))
	want := 0.0
	for k := 0; k < 4; k++ {
		if err := o.Eval(nil, grad, x, nil); err != nil {
			t.Fatal(err)
		}
		next := make([]float64, len(x))
		for i := range x {
			next[i] = x[i] - u[2*k]*grad[i] + u[2*k+1]*(x[i]-prev[i])
		}
		prev, x = x, next
		f, err := o.Mean(x)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(steps[k]-f) > 1e-12*math.Abs(f) {
			t.Errorf("step %d: graph mean f %.15g, naive %.15g", k+1, steps[k], f)
		}
		want += weights[k] * f
	}
	if math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("unrolled loss %.15g, naive trajectory %.15g", got, want)
	}
	last, err := l.Iterate(4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range last {
		if math.Abs(last[i]-x[i]) > 1e-12 {
			t.Fatalf("iterate x^4[%d] = %g, naive %g", i, last[i], x[i])
		}
	}
}

// TestAdamLowersUnrolledLoss runs a few hundred Adam steps on a tiny problem.
func TestAdamLowersUnrolledLoss(t *testing.T) {
	o := deblurSet(t, 4, 12, 7)
	l := mustLoss(t, "m-pc", o, 4, 4)
	defer l.Close()
	u := l.Reference()
	grad := make([]float64, l.Dim())
	first, err := l.Eval(u, grad)
	if err != nil {
		t.Fatal(err)
	}
	adam := optim.NewAdam(l.Dim(), 1e-3)
	last := first
	for i := 0; i < 300; i++ {
		if err := adam.Update(u, grad); err != nil {
			t.Fatal(err)
		}
		if last, err = l.Eval(u, grad); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("unrolled loss %.8g → %.8g after 300 Adam steps", first, last)
	if !(last < 0.9*first) {
		t.Errorf("300 Adam steps took the unrolled loss from %g to %g; want a decrease of at least 10%%", first, last)
	}
}

// TestT1EqualsGreedyStep: with T = 1 and the whole training set as the batch,
// the unrolled loss is the greedy loss of step 0 (λ = μ = 0); minimising it
// tightly gives the greedy parameters θ0. (M-PC5: with an image-sized kernel
// on 8×8 images some frequencies of θ are barely determined by 3 functions.)
func TestT1EqualsGreedyStep(t *testing.T) {
	o := deblurSet(t, 3, 8, 11)
	m := method(t, "m-pc5")
	res, err := greedy.Train(o, greedy.Config{
		Method: greedy.Method{Param: m},
		Solver: greedy.Solver{Inner: greedy.LBFGS{RelTol: 1e-10, MaxEvaluations: 3000}},
		Stop:   greedy.Stop{MaxSteps: 1},
		Store:  greedy.Store{KeepParams: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	l := mustLoss(t, "m-pc5", o, 1, 3)
	defer l.Close()
	var evalErr error
	prob := optimize.Problem{
		Func: func(u []float64) float64 {
			v, err := l.Eval(u, nil)
			if err != nil {
				evalErr = err
			}
			return v
		},
		Grad: func(g, u []float64) {
			if _, err := l.Eval(u, g); err != nil {
				evalErr = err
			}
		},
	}
	u0 := l.Reference()
	g0 := make([]float64, len(u0))
	if _, err := l.Eval(u0, g0); err != nil {
		t.Fatal(err)
	}
	gmax := 0.0
	for _, v := range g0 {
		gmax = math.Max(gmax, math.Abs(v))
	}
	opt, err := optimize.Minimize(prob, u0, &optimize.Settings{GradientThreshold: 1e-10 * gmax, FuncEvaluations: 3000,
		Converger: &optimize.FunctionConverge{Relative: 1e-16, Iterations: 100}}, &optimize.LBFGS{Store: 20})
	if evalErr != nil {
		t.Fatal(evalErr)
	}
	if opt == nil {
		t.Fatal(err)
	}
	unrolledLoss := opt.F
	theta := opt.X[:l.ThetaLen()]
	gTheta := res.Theta[0]
	var diff, scale float64
	for i := range theta {
		diff = math.Max(diff, math.Abs(theta[i]-gTheta[i]))
		scale = math.Max(scale, math.Abs(gTheta[i]))
	}
	t.Logf("unrolled T=1 loss %.12g, greedy step loss %.12g; max |θ diff| = %.2e (max |θ| %.3g); %s", unrolledLoss, res.Steps[0].Loss, diff, scale, opt.Status)
	if math.Abs(unrolledLoss-res.Steps[0].Loss) > 1e-9*math.Abs(unrolledLoss) {
		t.Errorf("unrolled T=1 loss %.12g differs from the greedy step loss %.12g", unrolledLoss, res.Steps[0].Loss)
	}
	if diff > 1e-4*scale {
		t.Errorf("θ0 of unrolled T=1 and greedy step 0 differ by %.2e (max |θ| %.3g), want ≤ 1e-4 relative", diff, scale)
	}
}

func TestHeldBytesGrowLinearlyInT(t *testing.T) {
	o := deblurSet(t, 2, 16, 2)
	held := map[int]int64{}
	for _, steps := range []int{1, 2, 4} {
		l := mustLoss(t, "m-pc", o, steps, 2)
		if _, err := l.Eval(l.Reference(), nil); err != nil {
			t.Fatal(err)
		}
		held[steps] = l.HeldBytes()
		l.Close()
	}
	d1, d2 := held[2]-held[1], held[4]-held[2]
	t.Logf("held bytes: T=1 %d, T=2 %d, T=4 %d", held[1], held[2], held[4])
	if d1 <= 0 || math.Abs(float64(d2-2*d1)) > 0.05*float64(d2) {
		t.Errorf("held bytes not linear in T: %v (increments %d then %d, want the second twice the first)", held, d1, d2)
	}
}

// TestResumeRefusesOtherObservations: functions with the same images but
// other data y (noise, blur, angles) do not resume a run; the same ones do.
func TestResumeRefusesOtherObservations(t *testing.T) {
	o := deblurSet(t, 2, 8, 13)
	cfg := Config{Problem: Problem{Name: "deblur", Seed: 4}, Method: Method{Param: method(t, "m-ps"), T: 2},
		Solver: Solver{LearningRate: 1e-3, Batch: 1, Epochs: 1}, Run: Run{Dir: t.TempDir()}}
	if _, err := Train(o, cfg); err != nil {
		t.Fatal(err)
	}
	other, err := o.Subset([]int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	other.Y[3] += 1e-3
	cfg.Solver.Epochs, cfg.Run.Resume = 2, true
	if _, err := Train(other, cfg); err == nil || !strings.Contains(err.Error(), "observations") {
		t.Errorf("resume on other observations: %v", err)
	}
	if _, err := Train(o, cfg); err != nil {
		t.Errorf("resume on the same observations: %v", err)
	}
}

func TestResumeIsBitwiseAndLoadsIntoGreedy(t *testing.T) {
	o := deblurSet(t, 5, 8, 13)
	cfg := Config{Problem: Problem{Name: "deblur", Seed: 4}, Method: Method{Param: method(t, "m-pc"), T: 3},
		Solver: Solver{LearningRate: 1e-3, Batch: 2, Epochs: 3}}
	straight := cfg
	straight.Run.Dir = filepath.Join(t.TempDir(), "straight")
	want, err := Train(o, straight)
	if err != nil {
		t.Fatal(err)
	}
	split := cfg
	split.Run.Dir = filepath.Join(t.TempDir(), "split")
	split.Solver.Epochs = 1
	if _, err := Train(o, split); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(o, split); err == nil {
		t.Fatal("training again into a checkpoint directory without Resume succeeded")
	}
	split.Solver.Epochs, split.Run.Resume = 3, true
	got, err := Train(o, split)
	if err != nil {
		t.Fatal(err)
	}
	if got.AdamSteps != want.AdamSteps || got.AdamSteps != 3*2 {
		t.Errorf("Adam steps: resumed %d, straight %d, want 6 (3 epochs of ⌊5/2⌋ batches)", got.AdamSteps, want.AdamSteps)
	}
	for tt := range want.Theta {
		for i := range want.Theta[tt] {
			if got.Theta[tt][i] != want.Theta[tt][i] || got.Phi[tt][i] != want.Phi[tt][i] {
				t.Fatalf("step %d parameter %d: resumed run differs from the uninterrupted one", tt, i)
			}
		}
	}
	bad := split
	bad.Method.T = 4
	if _, err := Train(o, bad); err == nil {
		t.Error("resuming with another T succeeded")
	}
	l, man, err := Load(split.Run.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if l.Steps != 3 || !IsUnrolled(man) || l.Label != "unrolled m-pc" || !man.Finished {
		t.Errorf("loaded %d steps, label %q, inner %q, finished %v", l.Steps, l.Label, man.Inner, man.Finished)
	}
	for tt := 0; tt < 3; tt++ {
		theta, phi, err := l.Params(tt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range theta {
			if theta[i] != want.Theta[tt][i] || phi[i] != want.Phi[tt][i] {
				t.Fatalf("step %d: learned.Load returns other parameters than training", tt)
			}
		}
	}
	// The manifest's per-step mean objective is that of the learned trajectory.
	it, err := l.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	for tt := 0; tt < 3; tt++ {
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
		f, _ := o.Mean(it.X())
		if math.Abs(f-man.Steps[tt].MeanF) > 1e-12*f {
			t.Errorf("manifest step %d mean f %g, applying the loaded optimizer gives %g", tt, man.Steps[tt].MeanF, f)
		}
	}
}

// TestBadInputIsRejected: Train refuses each invalid setting with a
// FieldError naming the part and field.
func TestBadInputIsRejected(t *testing.T) {
	o := deblurSet(t, 2, 8, 1)
	m := method(t, "m-pc")
	ok := func() Config { return Config{Method: Method{Param: m, T: 2}, Solver: Solver{Epochs: 1}} }
	for _, c := range []struct {
		field  string
		modify func(*Config)
	}{
		{"Method.Param", func(c *Config) { c.Method.Param = models.Method{} }},
		{"Method.T", func(c *Config) { c.Method.T = 0 }},
		{"Method.Tau", func(c *Config) { c.Method.Tau = -1 }},
		{"Method.Weights", func(c *Config) { c.Method.Weights = []float64{1} }},
		{"Method.Weights", func(c *Config) { c.Method.Weights = []float64{1, math.NaN()} }},
		{"Solver.Epochs", func(c *Config) { c.Solver.Epochs = 0 }},
		{"Solver.Batch", func(c *Config) { c.Solver.Batch = 3 }},
		{"Solver.LearningRate", func(c *Config) { c.Solver.LearningRate = -1 }},
		{"Run.Resume", func(c *Config) { c.Run.Resume = true }},
	} {
		cfg := ok()
		c.modify(&cfg)
		_, err := Train(o, cfg)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: got %v, want a FieldError naming it", c.field, err)
		}
	}
	if _, err := Train(o, ok()); err != nil {
		t.Fatalf("the valid configuration: %v", err)
	}
}

// A wall-clock budget ends training after the epoch that reaches it, and a
// resumed run with a larger budget continues from there.
func TestMaxSecondsStopsAfterAnEpoch(t *testing.T) {
	o := deblurSet(t, 4, 8, 3)
	cfg := Config{Problem: Problem{Seed: 1}, Method: Method{Param: method(t, "ps"), T: 2},
		Solver: Solver{LearningRate: 1e-3, Batch: 2, Epochs: 5}, Run: Run{Dir: filepath.Join(t.TempDir(), "budget"), MaxSeconds: 1e-9}}
	res, err := Train(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Epochs) != 1 || res.AdamSteps != 2 {
		t.Fatalf("budget of 1 ns: %d epochs, %d Adam steps; want 1 epoch of 2 steps", len(res.Epochs), res.AdamSteps)
	}
	cfg.Run.Resume, cfg.Run.MaxSeconds = true, 0
	res, err = Train(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Epochs) != 5 || res.AdamSteps != 10 {
		t.Errorf("resumed without budget: %d epochs, %d Adam steps; want 5 and 10", len(res.Epochs), res.AdamSteps)
	}
}

// TestFamilyOfOperatorsIsRefused: the unrolled graph holds one operator for
// every mini-batch, so a family (problem.PerFunction) is refused by name.
func TestFamilyOfOperatorsIsRefused(t *testing.T) {
	o := testproblems.BlurFamily(t, 2, 8, 1, 2, 1)
	if _, err := NewLoss(method(t, "m-pc"), o, 2, 1, 0, nil); err == nil || !strings.Contains(err.Error(), "family of operators") {
		t.Errorf("NewLoss on a family of operators: %v", err)
	}
	o = testproblems.AlphaFamily(t, 2, 8, 1e-4, 1e-3, 1)
	if _, err := NewLoss(method(t, "m-pc"), o, 2, 1, 0, nil); err == nil || !strings.Contains(err.Error(), "family of regularisation weights") {
		t.Errorf("NewLoss on a family of weights: %v", err)
	}
}
