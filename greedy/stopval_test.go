package greedy

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/learned"
)

// TestStopOnValidation checks that training with Stop.OnValidation goes on
// after the training functions meet the tolerance, records when they did,
// and stops exactly when the validation functions, run by the learned
// optimizer (Algorithm 2) from their starting points, meet it: at the
// recorded T the tolerance holds for every validation function, and one
// step earlier it did not.
func TestStopOnValidation(t *testing.T) {
	all := deblurSet(t, 8, 16, 2)
	train, err := all.Subset([]int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	val, err := all.Subset([]int{2, 3, 4, 5, 6, 7})
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e4
	m := method(t, "m-ps")
	res, err := Train(train, Config{Problem: Problem{Validation: val}, Method: Method{Param: m}, Stop: Stop{MaxSteps: 200, TolRel: tol, OnValidation: true}, Store: Store{KeepParams: true}})
	if err != nil {
		t.Fatal(err)
	}
	T := len(res.Steps)
	if res.StopCause != "validation tolerance reached" {
		t.Fatalf("stopped: %s after %d steps", res.StopCause, T)
	}
	if tt := res.Manifest.TrainTolSteps; tt == 0 || tt >= T {
		t.Errorf("training functions met the tolerance after %d steps, the run made %d: want 0 < that < %d", tt, T, T)
	}
	l, err := learned.New("m-ps", m, 16, 16, res.Theta, res.Phi)
	if err != nil {
		t.Fatal(err)
	}
	it, err := l.Start(val)
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, len(val.X0))
	if err := val.Eval(nil, g, val.X0, nil); err != nil {
		t.Fatal(err)
	}
	n0 := blockNorms(g, val.N)
	met := func() bool {
		if err := val.Eval(nil, g, it.X(), nil); err != nil {
			t.Fatal(err)
		}
		for k, v := range blockNorms(g, val.N) {
			if v*v >= n0[k]*n0[k]/tol {
				return false
			}
		}
		return true
	}
	for i := 0; i < T; i++ {
		if met() {
			t.Fatalf("the validation functions met the tolerance after %d steps, training went on to %d", i, T)
		}
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if !met() {
		t.Errorf("after %d learned steps the validation functions do not meet the tolerance", T)
	}
	t.Logf("training functions met the tolerance after %d steps, validation functions after %d", res.Manifest.TrainTolSteps, T)
}
