package eval

import (
	"math"
	"testing"
)

// curveOf makes a curve of n functions with the given mean optimality and
// cumulative seconds per iteration.
func curveOf(name string, n int, mean, secs []float64) *Curve {
	c := &Curve{Method: name, Mean: mean, Seconds: secs}
	for i := range mean {
		c.Iter = append(c.Iter, i)
		c.Optimality = append(c.Optimality, make([]float64, n))
	}
	return c
}

func TestBreakEven(t *testing.T) {
	// 4 functions. The learned method reaches 1e-4 at iteration 2 after
	// 0.4 s (0.1 s a function); the baseline at iteration 3 after 2.4 s
	// (0.6 s a function). Training took 100 s: M = 100/(0.6 − 0.1) = 200.
	learned := curveOf("m-pc", 4, []float64{1, 1e-2, 1e-5, 1e-7}, []float64{0, 0.2, 0.4, 0.6})
	base := curveOf("lbfgs", 4, []float64{1, 1e-1, 1e-3, 1e-5}, []float64{0, 0.8, 1.6, 2.4})
	b := BreakEvenOf(learned, base, 100, 1e-4)
	if math.Abs(b.Problems-200) > 1e-9 || b.AtMost || b.String() != "200" {
		t.Errorf("break-even = %v (%s, at most %v), want 200", b.Problems, b, b.AtMost)
	}
	if math.Abs(b.LearnedSeconds-0.1) > 1e-12 || math.Abs(b.BaselineSeconds-0.6) > 1e-12 {
		t.Errorf("seconds per function %g and %g, want 0.1 and 0.6", b.LearnedSeconds, b.BaselineSeconds)
	}
	// At 1e-6 the baseline never gets there in 2.4 s: M ≤ 100/(0.6 − 0.15).
	b = BreakEvenOf(learned, base, 100, 1e-6)
	if want := 100 / (0.6 - 0.15); math.Abs(b.Problems-want) > 1e-9 || !b.AtMost || b.String() != "≤ 223" {
		t.Errorf("break-even at 1e-6 = %v (%s), want ≤ %v", b.Problems, b, want)
	}
	// A faster baseline never lets training pay.
	fast := curveOf("nag", 4, []float64{1, 1e-5}, []float64{0, 0.1})
	if b = BreakEvenOf(learned, fast, 100, 1e-4); !math.IsInf(b.Problems, 1) || b.String() != "never" {
		t.Errorf("against a faster baseline: %v (%s), want never", b.Problems, b)
	}
	// Unknown training time.
	if b = BreakEvenOf(learned, base, 0, 1e-4); !math.IsNaN(b.Problems) || b.String() != "?" {
		t.Errorf("unknown training time: %v (%s), want ?", b.Problems, b)
	}
}
