package eval

import (
	"fmt"
	"math"
)

// BreakEven is the amortisation count of a learned optimizer against a
// baseline at a target mean optimality: training pays for itself once more
// than Problems problems have been solved, by the paper's
// M > C_train/(C_base − C_learned), where C is the wall-clock seconds one
// function takes to reach the target.
type BreakEven struct {
	Learned, Baseline string
	// Tol is the target mean optimality.
	Tol float64
	// TrainSeconds is C_train, the training's wall-clock time.
	TrainSeconds float64
	// LearnedSeconds and BaselineSeconds are C_learned and C_base: the
	// seconds per function to reach Tol (the curve's batch time divided by
	// its number of functions; NaN when the method never reaches Tol).
	LearnedSeconds, BaselineSeconds float64
	// Problems is C_train/(C_base − C_learned); +Inf when training never
	// pays (the learned method does not reach Tol, or is no faster), NaN
	// when the training time is unknown.
	Problems float64
	// AtMost is set when the baseline did not reach Tol within its
	// iterations: C_base is then at least its total time, so Problems is an
	// upper bound.
	AtMost bool
}

// BreakEvenOf computes the break-even count of the curve learned, whose
// training took trainSeconds (≤ 0 or NaN: unknown), against base at tol.
func BreakEvenOf(learned, base *Curve, trainSeconds, tol float64) BreakEven {
	b := BreakEven{Learned: learned.Method, Baseline: base.Method, Tol: tol, TrainSeconds: trainSeconds}
	b.LearnedSeconds = learned.SecondsPerFunctionTo(tol)
	b.BaselineSeconds = base.SecondsPerFunctionTo(tol)
	if math.IsNaN(b.BaselineSeconds) && !base.Diverged() && len(base.Seconds) > 0 {
		b.BaselineSeconds = perFunction(base, base.Seconds[len(base.Seconds)-1])
		b.AtMost = true
	}
	switch {
	case !(trainSeconds > 0):
		b.Problems = math.NaN()
	case math.IsNaN(b.LearnedSeconds):
		b.Problems = math.Inf(1)
	case math.IsNaN(b.BaselineSeconds): // the baseline diverged: any count pays
		b.Problems = 0
	case b.BaselineSeconds <= b.LearnedSeconds:
		b.Problems = math.Inf(1)
		if b.AtMost { // the baseline's true cost is unknown beyond its run
			b.Problems = math.NaN()
		}
	default:
		b.Problems = trainSeconds / (b.BaselineSeconds - b.LearnedSeconds)
	}
	return b
}

// SecondsPerFunctionTo is SecondsTo divided by the number of functions
// the curve ran on (the batch shares its time): the seconds one function
// takes to reach mean optimality tol, or NaN if the curve never does.
func (c *Curve) SecondsPerFunctionTo(tol float64) float64 {
	return perFunction(c, c.SecondsTo(tol))
}

func perFunction(c *Curve, seconds float64) float64 {
	n := 1
	if len(c.Optimality) > 0 && len(c.Optimality[0]) > 0 {
		n = len(c.Optimality[0])
	}
	return seconds / float64(n)
}

// String is the count as a table cell: "1.2e+03", "≤ 350", "never" (the
// learned method is no faster or does not reach the target), "?" (training
// time unknown, or the baseline, which did not reach the target in its run,
// was cheaper up to its end).
func (b BreakEven) String() string {
	switch {
	case math.IsNaN(b.Problems):
		return "?"
	case math.IsInf(b.Problems, 1):
		return "never"
	}
	s := fmt.Sprintf("%.3g", math.Ceil(b.Problems))
	if b.AtMost {
		s = "≤ " + s
	}
	return s
}
