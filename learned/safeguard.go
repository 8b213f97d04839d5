package learned

import (
	"fmt"
	"math"
	"strings"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/problem"
)

// The rules a safeguarded learned optimizer (Optimizer.Safeguard > 0) applies
// to each function's learned step x_L, from the iterate x with gradient
// step x_g = x − τ∇f(x):
//
//   - SafeguardDecrease (the default, also ""): accept x_L if f(x_L) ≤ f(x),
//     else take x_g. Monotone; no extra evaluation while steps are accepted.
//   - SafeguardBGD: accept x_L if f(x_L) ≤ f(x_g), else take x_g. Every
//     iteration then decreases f at least as much as gradient descent does,
//     so ∇f(x^t) → 0 whatever θ was learned (see the package doc); it costs
//     one more f (not ∇f) per iteration, at x_g. With τ ≤ 1/L, f(x_g) ≤ f(x)
//     in exact arithmetic; where the computed f(x_g) exceeds f(x) all the
//     same (rounding, once (τ/2)‖∇f(x)‖² is below the rounding error of f;
//     or an L that is not a bound), the function keeps x (still
//     f(x⁺) ≤ f(x_g)), and x_L is accepted only if f(x_L) ≤ f(x) too: f
//     never rises.
//
// Either way a function whose step was rejected loses its momentum (x⁻ is set
// to the new iterate), and the gradient at the new iterate is evaluated anew
// (one more f and ∇f in an iteration in which some step was rejected).
const (
	SafeguardDecrease = "decrease"
	SafeguardBGD      = "bgd"
)

// SafeguardRules lists the rules, today's first.
var SafeguardRules = []string{SafeguardDecrease, SafeguardBGD}

// ParseSafeguardRule returns the rule named s (case-insensitive; "" is
// SafeguardDecrease).
func ParseSafeguardRule(s string) (string, error) {
	switch r := strings.ToLower(strings.TrimSpace(s)); r {
	case "", SafeguardDecrease:
		return SafeguardDecrease, nil
	case SafeguardBGD:
		return SafeguardBGD, nil
	default:
		return "", fmt.Errorf("unknown safeguard rule %q: use %s", s, strings.Join(SafeguardRules, " or "))
	}
}

// Rejected returns the number of learned steps the safeguard has replaced by
// gradient steps (summed over functions).
func (it *learnedIterator) Rejected() int { return it.rejected }

// Acceptance returns, for every iteration t = 1, 2, … taken so far, the
// fraction of functions whose learned step the safeguard accepted at
// iteration t (index t−1); nil without a safeguard.
func (it *learnedIterator) Acceptance() []float64 {
	if it.fx == nil {
		return nil
	}
	out := make([]float64, len(it.accepted))
	for i, a := range it.accepted {
		out[i] = float64(a) / float64(it.o.N)
	}
	return out
}

// guard applies the safeguard's rule to the learned step just taken: it.xk
// holds the learned iterates, it.fx and it.grad f and ∇f there, it.prev the
// previous iterates and it.fPrev, it.gradPrev f and ∇f at them. It replaces
// the rejected steps, leaves f and ∇f at the new it.xk in it.fx and it.grad,
// and records how many steps it accepted.
func (it *learnedIterator) guard() error {
	if it.rule == SafeguardBGD {
		return it.guardBGD()
	}
	hw := it.o.ImageLen()
	n := 0
	for k := range it.fx {
		if it.fx[k] <= it.fPrev[k] {
			n++
			continue
		}
		x, prev, g := it.xk[k*hw:(k+1)*hw], it.prev[k*hw:(k+1)*hw], it.gradPrev[k*hw:(k+1)*hw]
		for i := range x {
			x[i] = prev[i] - it.tau*g[i]
		}
		copy(prev, x) // no momentum after a rejection
		it.rejected++
	}
	it.accepted = append(it.accepted, n)
	if n < len(it.fx) {
		return it.o.Eval(it.fx, it.grad, it.xk, &it.ws)
	}
	return nil
}

// guardBGD is guard for SafeguardBGD. It evaluates f (not ∇f) at every
// gradient point x_g, and ∇f at those it takes: for the rejected functions
// only, as a smaller batch, when some steps were accepted.
func (it *learnedIterator) guardBGD() error {
	o, hw := it.o, it.o.ImageLen()
	for i := range it.xg {
		it.xg[i] = it.prev[i] - it.tau*it.gradPrev[i]
	}
	if err := o.Eval(it.fg, nil, it.xg, &it.ws); err != nil {
		return err
	}
	it.taken = it.taken[:0]
	n := 0
	for k, fg := range it.fg {
		if math.IsNaN(fg) || math.IsInf(fg, 0) {
			return fmt.Errorf("%s: iteration %d: the safeguard's gradient step gave a non-finite value (function %d): the functions are not L-smooth with the L given (%w)", it.l.Label, it.t, k, baselines.ErrDiverged)
		}
		if it.fx[k] <= min(fg, it.fPrev[k]) {
			n++
			continue
		}
		x, prev := it.xk[k*hw:(k+1)*hw], it.prev[k*hw:(k+1)*hw]
		if fg <= it.fPrev[k] {
			copy(x, it.xg[k*hw:(k+1)*hw])
			it.taken = append(it.taken, k)
		} else {
			// f(x_g) > f(x): rounding (or an L that is no bound). Keep x.
			copy(x, prev)
			it.fx[k] = it.fPrev[k]
			copy(it.grad[k*hw:(k+1)*hw], it.gradPrev[k*hw:(k+1)*hw])
		}
		copy(prev, x) // no momentum after a rejection
		it.rejected++
	}
	it.accepted = append(it.accepted, n)
	switch r := len(it.taken); {
	case r == 0:
		return nil
	case r == o.N:
		return o.Eval(it.fx, it.grad, it.xk, &it.ws)
	case o.WholeBatchOnly():
		// A device's evaluator or a float32 evaluation is bound to the
		// whole batch: evaluate it (x_k = x_g for the functions taken) and
		// keep the functions taken.
		if it.sub == nil {
			it.sub = &subBatch{grad: make([]float64, len(o.X0)), f: make([]float64, o.N)}
		}
		sb := it.sub
		if err := o.Eval(sb.f, sb.grad, it.xk, &sb.ws); err != nil {
			return err
		}
		for _, k := range it.taken {
			it.fx[k] = sb.f[k]
			copy(it.grad[k*hw:(k+1)*hw], sb.grad[k*hw:(k+1)*hw])
		}
		return nil
	default:
		// f and ∇f at the gradient points taken, as a batch of r functions.
		m := o.DataLen()
		if it.sub == nil || it.sub.x == nil {
			it.sub = &subBatch{x: make([]float64, len(o.X0)), y: make([]float64, len(o.Y)), grad: make([]float64, len(o.X0)), f: make([]float64, o.N)}
		}
		sb := it.sub
		for j, k := range it.taken {
			copy(sb.x[j*hw:(j+1)*hw], it.xg[k*hw:(k+1)*hw])
			copy(sb.y[j*m:(j+1)*m], o.Y[k*m:(k+1)*m])
		}
		view := *o
		view.N, view.Y, view.X0, view.Truth = r, sb.y[:r*m], sb.x[:r*hw], nil
		if err := view.Eval(sb.f[:r], sb.grad[:r*hw], sb.x[:r*hw], &sb.ws); err != nil {
			return err
		}
		for j, k := range it.taken {
			it.fx[k] = sb.f[j]
			copy(it.grad[k*hw:(k+1)*hw], sb.grad[j*hw:(j+1)*hw])
		}
		return nil
	}
}

// subBatch holds the rejected functions of guardBGD gathered into a smaller
// batch.
type subBatch struct {
	x, y, grad, f []float64
	ws            problem.Workspace
}
