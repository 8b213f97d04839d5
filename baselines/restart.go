package baselines

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/problem"
)

// RestartScheme is the test by which RestartNAG restarts the momentum of a
// function.
type RestartScheme int

const (
	restartNone RestartScheme = iota - 1
	// RestartGradient restarts function k when ⟨∇f_k(y), x⁺ − x⟩ > 0: the
	// gradient step from the extrapolated point y moves against the
	// direction of the last step (O'Donoghue and Candès's gradient scheme).
	RestartGradient
	// RestartFunction restarts function k when f_k(x⁺) > f_k(x) (their
	// function scheme).
	RestartFunction
)

// String returns "gradient" or "function".
func (s RestartScheme) String() string {
	switch s {
	case RestartGradient:
		return "gradient"
	case RestartFunction:
		return "function"
	case restartNone:
		return "none"
	}
	return fmt.Sprintf("RestartScheme(%d)", int(s))
}

// RestartNAG is NAG (Beck and Teboulle's backtracking FISTA without a
// proximal term, exactly as NAG) with the adaptive restart of O'Donoghue and
// Candès: after every iteration each function k tests its step, and when the
// test fires its momentum is reset, t_k = 1 and y_k = x_k⁺, as if the method
// started again from x_k⁺ (the step itself is kept, and so is the backtracked
// L_k). Reference: B. O'Donoghue and E. Candès, "Adaptive restart for
// accelerated gradient schemes", Foundations of Computational Mathematics
// 15(3), 715–732 (2015).
//
// The default test is the gradient scheme ⟨∇f_k(y_k), x_k⁺ − x_k⟩ > 0
// (RestartGradient), which uses only the gradient NAG has already computed;
// the function scheme f_k(x_k⁺) > f_k(x_k) (RestartFunction) costs no
// evaluation either here, because the backtracking evaluates f_k(x_k⁺) anyway.
// On strongly convex functions the restart gives, without knowing the
// strong-convexity constant μ, linear convergence close to that of NAG tuned
// with μ, where plain NAG oscillates and converges as O(1/t²) (a heuristic;
// the paper analyses it for quadratics).
type RestartNAG struct {
	// L0 and Eta are NAG's: the first estimate of the smoothness constant
	// (0 means L/10) and the factor by which it grows (0 means 2).
	L0, Eta float64
	// Scheme is the restart test; the zero value is RestartGradient.
	Scheme RestartScheme
}

// Name implements Method: "nag-restart" with the gradient scheme,
// "nag-restart(function)" with the function scheme.
func (m RestartNAG) Name() string {
	if m.Scheme == RestartGradient {
		return "nag-restart"
	}
	return "nag-restart(" + m.Scheme.String() + ")"
}

// Start implements Method.
func (m RestartNAG) Start(o *problem.Objective) (Iterator, error) {
	if m.Scheme != RestartGradient && m.Scheme != RestartFunction {
		return nil, fmt.Errorf("nag-restart: unknown restart scheme %v", m.Scheme)
	}
	b, err := newBatch(m.Name(), o)
	if err != nil {
		return nil, err
	}
	it, err := startNAG(b, m.L0, m.Eta, m.Scheme)
	if err != nil {
		return nil, err
	}
	return it, nil
}

// Restarts returns, for every function, the number of restarts so far (a
// view; always 0 for NAG).
func (it *nagIterator) Restarts() []int { return it.restarts }
