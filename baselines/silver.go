package baselines

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/greedyl2o/greedyl2o/problem"
)

// SilverRatio is ρ = 1 + √2, the ratio of the silver step-size schedule.
var SilverRatio = 1 + math.Sqrt2

// SilverStep returns the normalised step h_t = 1 + ρ^(ν(t)−1) of iteration
// t ≥ 1 of the silver step-size schedule, where ν(t) is the 2-adic valuation
// of t (the number of trailing zero bits) and ρ = 1 + √2: √2, 2, √2, 2 + √2,
// √2, 2, √2, 4 + 2√2 = 1 + ρ², √2, … (Altschuler and Parrilo 2023,
// arXiv:2309.16530). It returns NaN for t < 1.
func SilverStep(t int) float64 {
	if t < 1 {
		return math.NaN()
	}
	nu := bits.TrailingZeros64(uint64(t))
	return 1 + math.Pow(SilverRatio, float64(nu-1))
}

// SilverGD is gradient descent with the silver step-size schedule of
// Altschuler and Parrilo,
//
//	x^t = x^(t−1) − (h_t/L) ∇f(x^(t−1)),   h_t = 1 + ρ^(ν(t)−1),
//
// t = 1, 2, …, with ρ = 1 + √2 and ν(t) the 2-adic valuation of t (see
// SilverStep), the same steps for every function. Reference: J. M.
// Altschuler and P. A. Parrilo, "Acceleration by stepsize hedging II: Silver
// stepsize schedule for smooth convex optimization", arXiv:2309.16530 (2023),
// Mathematical Programming (2024). For convex L-smooth f it guarantees
// f(x^n) − f* ≤ L‖x⁰ − x*‖²/(1 + √(4ρ^(2k) − 3)) = O(n^(−log₂ρ)) =
// O(n^(−1.2716)) at the horizons n = 2^k − 1; the schedule is the same
// infinite sequence whatever the horizon, so one run serves every n.
//
// The schedule is not monotone: the step of iteration 2^j is 1 + ρ^(j−1)
// times 1/L (6.8/L at t = 8, 199/L at t = 128), and f may rise far above
// its earlier values right after such a step before the short steps that
// follow bring it down again. Compare it with other methods at t = 2^k − 1
// (7, 15, 31, 63, 127, …) to see its guarantee. The schedule is made for
// the worst case over convex functions: on a well-conditioned strongly convex
// function, where gradient descent with step 1/L converges linearly, the
// long steps make it far slower (on the well-conditioned quadratic of the
// package's tests GD reaches optimality 3e-20 at t = 100, silver 3e-6 at
// t = 127).
type SilverGD struct {
	// L is the smoothness constant the normalised steps are divided by; 0
	// means the objective's L.
	L float64
}

// Name implements Method.
func (SilverGD) Name() string { return "silver" }

// Start implements Method.
func (m SilverGD) Start(o *problem.Objective) (Iterator, error) {
	b, err := newBatch(m.Name(), o)
	if err != nil {
		return nil, err
	}
	l := m.L
	if l == 0 {
		if l, err = b.lipschitz("L"); err != nil {
			return nil, err
		}
	}
	if !(l > 0) || math.IsInf(l, 0) {
		return nil, fmt.Errorf("silver: smoothness constant L = %g is not a positive finite number", m.L)
	}
	return &silverIterator{batch: b, invL: 1 / l, x: append([]float64(nil), o.X0...), g: make([]float64, len(o.X0))}, nil
}

type silverIterator struct {
	*batch
	invL float64
	x, g []float64
}

func (it *silverIterator) X() []float64 { return it.x }

// Step returns the step h_t/L of the next iteration t.
func (it *silverIterator) Step() float64 { return SilverStep(it.iter+1) * it.invL }

func (it *silverIterator) Next() error {
	if err := it.eval(nil, it.g, it.x); err != nil {
		return err
	}
	step := it.Step()
	for i, g := range it.g {
		it.x[i] -= step * g
	}
	if err := it.checkX(it.x); err != nil {
		return err
	}
	it.iter++
	return nil
}
