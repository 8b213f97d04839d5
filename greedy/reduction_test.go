package greedy

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/kernels"
	"gorgonia.org/tensor"
)

// TestLossReductionSum checks the sum reduction against the closed-form
// minimiser of the summed least-squares step (M-PS, closed inner solver),
// and that it trains what the mean
// does with the absolute penalties divided by N (same parameters to
// rounding, the steps recording λt/N and μt/N), leaves relative schedules
// alone (bitwise), and that the manifest records it and a resume under the
// other reduction is refused.
func TestLossReductionSum(t *testing.T) {
	const n = 5
	o := deblurSet(t, n, 16, 2)
	train := func(red Reduction, lam, mu string) *Result {
		t.Helper()
		l, err := ParseSchedule(lam)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseSchedule(mu)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Train(o, Config{Method: Method{Param: method(t, "m-pc"), Lambda: l, Mu: m, LossReduction: red},
			Solver: Solver{Inner: NAG{Iters: 40, Rounds: 1}}, Stop: Stop{MaxSteps: 4}, Store: Store{KeepParams: true}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	sum, mean := train(ReduceSum, "1e-2", "5e-1"), train(ReduceMean, "2e-3", "1e-1")
	if sum.Manifest.LossReduction != "sum" || mean.Manifest.LossReduction != "" {
		t.Errorf("manifests record loss reductions %q (sum) and %q (mean), want \"sum\" and none", sum.Manifest.LossReduction, mean.Manifest.LossReduction)
	}
	for s := range sum.Steps {
		if got, want := sum.Steps[s].Lambda, 1e-2/n; math.Abs(got-want) > 1e-15 {
			t.Errorf("step %d: λt = %g, want λ/N = %g", s, got, want)
		}
		if got, want := sum.Steps[s].Mu, 0.5/n; s > 0 && math.Abs(got-want) > 1e-15 {
			t.Errorf("step %d: μt = %g, want μ/N = %g", s, got, want)
		}
		for i, v := range sum.Theta[s] {
			if w := mean.Theta[s][i]; math.Abs(v-w) > 1e-10*(1+math.Abs(w)) {
				t.Fatalf("step %d: θ[%d] = %.17g under the sum, %.17g under the mean with λ/N", s, i, v, w)
			}
		}
		for i, v := range sum.Phi[s] {
			if w := mean.Phi[s][i]; math.Abs(v-w) > 1e-10*(1+math.Abs(w)) {
				t.Fatalf("step %d: φ[%d] = %.17g under the sum, %.17g under the mean with μ/N", s, i, v, w)
			}
		}
	}
	// The sum with λ is not the mean with λ: the test above can fail.
	if plain := train(ReduceMean, "1e-2", "5e-1"); plain.Theta[1][0] == sum.Theta[1][0] {
		t.Error("the sum and the mean with the same weights trained the same θ")
	}

	relSum, relMean := train(ReduceSum, "rel:1e-2", "rel:1e-1"), train(ReduceMean, "rel:1e-2", "rel:1e-1")
	for s := range relSum.Steps {
		if relSum.Steps[s].Lambda != relMean.Steps[s].Lambda || relSum.Theta[s][0] != relMean.Theta[s][0] {
			t.Errorf("step %d: a relative schedule changed under the sum: λt %g against %g", s, relSum.Steps[s].Lambda, relMean.Steps[s].Lambda)
		}
	}

	// Independently of how the trainer implements it: on least squares
	// (fk = ½‖A xk − yk‖², gk = ∇fk(xk⁰)) M-PS's first step x⁺ = x − θ g
	// minimises Σk fk(xk⁺) + λ/2 (θ − τ)² at
	// θ = (Σk ‖gk‖² + λτ) / (Σk ‖A gk‖² + λ); the closed inner solver must
	// find it under the sum.
	ls := leastSquaresSet(t, 4, 12)
	const lam = 0.3
	res, err := Train(ls, Config{Method: Method{Param: method(t, "m-ps"), Lambda: Constant(lam), LossReduction: ReduceSum},
		Solver: Solver{Inner: Closed{}}, Stop: Stop{MaxSteps: 1}, Store: Store{KeepParams: true}})
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, len(ls.X0))
	if err := ls.Eval(nil, g, ls.X0, nil); err != nil {
		t.Fatal(err)
	}
	ag := make([]float64, ls.N*ls.DataLen())
	if err := ls.A.Apply(ag, g, tensor.Shape{ls.N, ls.H, ls.W}); err != nil {
		t.Fatal(err)
	}
	tau := res.Manifest.Tau
	want := (kernels.Dot(g, g) + lam*tau) / (kernels.Dot(ag, ag) + lam)
	meanWant := (kernels.Dot(g, g)/float64(ls.N) + lam*tau) / (kernels.Dot(ag, ag)/float64(ls.N) + lam)
	if got := res.Theta[0][0]; math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("M-PS θ0 under the sum = %.12g, the sum's minimiser %.12g (the mean's: %.12g)", got, want, meanWant)
	}
	if math.Abs(want-meanWant) < 1e-3*math.Abs(want) {
		t.Errorf("the sum's and the mean's minimisers are too close (%.6g, %.6g) for the check to tell them apart", want, meanWant)
	}

	if _, err := ParseReduction("avg"); err == nil {
		t.Error(`ParseReduction("avg") accepted`)
	}
	err = Method{Param: method(t, "m-pc"), LossReduction: "avg"}.Check(o, execution.Target{})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "Method.LossReduction" {
		t.Errorf("Method.Check with reduction avg: %v, want a FieldError naming Method.LossReduction", err)
	}
	if err := compatible(&checkpoint.Manifest{LossReduction: "sum"}, &checkpoint.Manifest{}); err == nil || !strings.Contains(err.Error(), "loss reduction sum") {
		t.Errorf("resuming a sum run under the mean: %v, want a refusal naming the loss reduction", err)
	}
	if err := compatible(&checkpoint.Manifest{}, &checkpoint.Manifest{LossReduction: ""}); err != nil {
		t.Errorf("a checkpoint without a recorded reduction resumed under the mean: %v", err)
	}
}

// TestReductionMootResume checks that where the loss reduction changes no
// weight (λ = μ = 0, as --protocol paper sets them, or relative weights) a
// checkpoint trained under the mean resumes under the sum, trains the steps
// the mean would have (bitwise) and keeps the mean in its record, while
// absolute nonzero weights are still refused.
func TestReductionMootResume(t *testing.T) {
	o := deblurSet(t, 3, 12, 5)
	cfg := func(red Reduction, steps int, dir string, resume bool) Config {
		return Config{Method: Method{Param: method(t, "m-pc"), LossReduction: red},
			Solver: Solver{Inner: NAG{Iters: 10, Rounds: 1}}, Stop: Stop{MaxSteps: steps}, Store: Store{KeepParams: true, Dir: dir, Resume: resume}}
	}
	straight, err := Train(o, cfg(ReduceMean, 3, "", false))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Train(o, cfg(ReduceMean, 1, dir, false)); err != nil {
		t.Fatal(err)
	}
	resumed, err := Train(o, cfg(ReduceSum, 3, dir, true))
	if err != nil {
		t.Fatalf("resuming a λ = μ = 0 checkpoint of the mean under the sum: %v", err)
	}
	if resumed.Manifest.LossReduction != "" {
		t.Errorf("the resumed record says loss reduction %q; its first step was trained under the mean", resumed.Manifest.LossReduction)
	}
	last := len(straight.Theta) - 1
	if len(resumed.Theta) == 0 || resumed.Theta[len(resumed.Theta)-1][0] != straight.Theta[last][0] {
		t.Errorf("the resumed run's last θ differs from the straight mean run's")
	}

	for _, c := range []struct {
		lam, mu string
		refused bool
	}{
		{"0", "0", false}, {"rel:1e-2", "0", false}, {"0", "rel:5e-2", false}, {"1e-4", "0", true}, {"0", "5e-2", true}, {"0@10,1e-4", "0", true},
	} {
		err := compatible(&checkpoint.Manifest{Lambda: c.lam, Mu: c.mu}, &checkpoint.Manifest{Lambda: c.lam, Mu: c.mu, LossReduction: "sum"})
		if (err != nil) != c.refused {
			t.Errorf("λ %s, μ %s: resuming a mean checkpoint under the sum: %v, want refused = %v", c.lam, c.mu, err, c.refused)
		}
	}
}
