package greedy

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// A repeat check (Stop.RepeatCheck) tests the last trained step as
// Algorithm 2 uses it beyond T: applied K times in a row from the iterates
// after it, it must raise no checked function's ‖∇f‖. Steps fitted to the
// training functions' last iterates can fail it (docs/operator-families.md:
// a blur family's step T = 44 grows ‖∇f‖ by 9 % an iteration when repeated,
// its steps 30 and 40 do not), so the tolerance stops the run only at a
// step that passes; the functions checked are the validation functions when
// the run has them, the training functions otherwise.

// repeatStop returns the stop cause once the tolerance holds before step t:
// "tolerance reached" without a repeat check; with one, the cause when step
// t−1 passes it, or "" (go on training) when it fails.
func (tr *trainer) repeatStop(t int, cause string) (string, error) {
	k := tr.cfg.Stop.RepeatCheck
	if k == 0 || t == 0 {
		return cause, nil
	}
	v, x, prev, which := tr.val, []float64(nil), []float64(nil), "validation"
	if v != nil {
		x, prev = v.x, v.prev
	} else {
		if tr.repeatVal == nil {
			var err error
			if tr.repeatVal, err = newValidator(tr.cfg.Method.Param, tr.o, tr.w, tr.tau, 1); err != nil {
				return "", fmt.Errorf("greedy: repeat check: %w", err)
			}
		}
		v, x, prev, which = tr.repeatVal, tr.x, tr.xprev, "training"
	}
	growth, err := v.repeat(x, prev, tr.last, k)
	if err != nil {
		return "", fmt.Errorf("greedy: repeat check of step %d: %w", t-1, err)
	}
	c := checkpoint.RepeatCheck{T: t - 1, Repeats: k, Growth: growth, Stable: growth <= 1, Functions: which}
	if math.IsInf(growth, 0) || math.IsNaN(growth) {
		c.Growth, c.Stable = math.MaxFloat64, false // JSON has no ∞: the largest float stands for it
	}
	tr.man.RepeatChecks = append(tr.man.RepeatChecks, c)
	if !c.Stable {
		return "", nil
	}
	return fmt.Sprintf("%s; step %d repeated %d times raises no %s function's ‖∇f‖ (largest ratio %.3g; %d steps checked)",
		cause, t-1, k, which, growth, len(tr.man.RepeatChecks)), nil
}

// repeat applies the step with full parameters u k times from the iterates
// (x, prev: this process's) and returns the largest ratio ‖∇f_k‖ after /
// before over every process's functions (+Inf when an iterate is not
// finite). x and prev are not changed.
func (v *validator) repeat(x, prev, u []float64, k int) (float64, error) {
	growth := 0.0 // a process that holds no function
	if v.o != nil {
		var err error
		if growth, err = v.repeatHeld(x, prev, u, k); err != nil {
			return 0, err
		}
	}
	return v.w.max(growth)
}

// repeatHeld is repeat's largest ratio over this process's functions.
func (v *validator) repeatHeld(x, prev, u []float64, k int) (float64, error) {
	n := len(x)
	for i := range v.ahead {
		if len(v.ahead[i]) != n {
			v.ahead[i] = make([]float64, n)
		}
	}
	before := blockNorms(v.gradAt(x), v.o.N)
	if before == nil {
		return math.Inf(1), nil
	}
	p, cur, nxt := v.ahead[0], v.ahead[1], v.ahead[2]
	copy(p, prev)
	copy(cur, x)
	for range k {
		if err := v.again(nxt, cur, p, u); err != nil {
			return 0, err
		}
		p, cur, nxt = cur, nxt, p
	}
	after := blockNorms(v.gradAt(cur), v.o.N)
	if after == nil {
		return math.Inf(1), nil
	}
	growth := 0.0
	for i := range after {
		r := after[i] / before[i]
		if math.IsNaN(r) {
			return math.Inf(1), nil
		}
		growth = max(growth, r)
	}
	return growth, nil
}

// gradAt returns ∇f at x in v.grad, or nil when it is not finite.
func (v *validator) gradAt(x []float64) []float64 {
	if err := v.o.Eval(nil, v.grad, x, &v.ws); err != nil {
		return nil
	}
	for _, g := range v.grad {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return nil
		}
	}
	return v.grad
}

// passedRepeat reports whether a checkpoint's run stopped at a step that
// passed a repeat check of at least k repetitions.
func passedRepeat(m *checkpoint.Manifest, k int) bool {
	n := len(m.RepeatChecks)
	return n > 0 && m.RepeatChecks[n-1].Stable && m.RepeatChecks[n-1].Repeats >= k && m.RepeatChecks[n-1].T == len(m.Steps)-1
}
