package greedy

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/learned"
)

// The safeguard turns a divergent learned step (G = 50τI) into a monotone
// method, and leaves a step that always descends (G = τI, gradient descent)
// untouched.
func TestSafeguard(t *testing.T) {
	o := deblurSet(t, 3, 12, 9)
	m := method(t, "ps")
	tau := 1 / o.L
	run := func(scale, guard float64) ([]float64, int, error) {
		l, err := learned.New("test", m, o.H, o.W, [][]float64{m.G.Reference(scale*tau, o.H, o.W)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		l.Safeguard = guard
		it, err := l.Start(o)
		if err != nil {
			t.Fatal(err)
		}
		var means []float64
		for i := 0; i < 30; i++ {
			if err := it.Next(); err != nil {
				return means, 0, err
			}
			mf, err := o.Mean(it.X())
			if err != nil {
				t.Fatal(err)
			}
			means = append(means, mf)
		}
		return means, it.(interface{ Rejected() int }).Rejected(), nil
	}
	f0, _ := o.Mean(o.X0)
	if means, _, err := run(50, 0); err == nil && means[len(means)-1] < 10*f0 {
		t.Fatalf("G = 50τI did not diverge without the safeguard (mean f %g → %g); the test needs a divergent step", f0, means[len(means)-1])
	}
	means, rejected, err := run(50, tau)
	if err != nil {
		t.Fatalf("safeguarded: %v", err)
	}
	prev := f0
	for i, v := range means {
		if v > prev*(1+1e-14) {
			t.Fatalf("safeguarded mean f rose at iteration %d: %g → %g", i+1, prev, v)
		}
		prev = v
	}
	if rejected == 0 || !(prev < f0) {
		t.Errorf("safeguard rejected %d steps; mean f %g → %g", rejected, f0, prev)
	}
	plain, _, err := run(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	guarded, rejected, err := run(1, tau)
	if err != nil {
		t.Fatal(err)
	}
	if rejected != 0 {
		t.Errorf("the safeguard rejected %d gradient-descent steps", rejected)
	}
	for i := range plain {
		if plain[i] != guarded[i] {
			t.Fatalf("iteration %d: safeguarded GD %g differs from GD %g", i+1, guarded[i], plain[i])
		}
	}
}
