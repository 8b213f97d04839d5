package greedy

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// TestLossReductionSum checks that the sum reduction trains what the mean
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
			Solver: Solver{Inner: NAG{Iters: 40, Rounds: 1}}, Run: Run{MaxSteps: 4, KeepParams: true}})
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

	if _, err := ParseReduction("avg"); err == nil {
		t.Error(`ParseReduction("avg") accepted`)
	}
	err := Method{Param: method(t, "m-pc"), LossReduction: "avg"}.Check(o)
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
