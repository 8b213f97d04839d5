package baselines

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/problem"
)

// GradientDescent is x⁺ = x − Step·∇f(x) with the same fixed step for every
// function.
type GradientDescent struct {
	// Step is the step size; 0 means 1/L with L the objective's smoothness
	// constant.
	Step float64
}

// Name implements Method.
func (GradientDescent) Name() string { return "gd" }

// Start implements Method.
func (m GradientDescent) Start(o *problem.Objective) (Iterator, error) {
	b, err := newBatch(m.Name(), o)
	if err != nil {
		return nil, err
	}
	step := m.Step
	if step == 0 {
		l, err := b.lipschitz("Step")
		if err != nil {
			return nil, err
		}
		step = 1 / l
	}
	if !(step > 0) || math.IsInf(step, 0) {
		return nil, fmt.Errorf("gd: step %g is not a positive finite number", m.Step)
	}
	return &gdIterator{batch: b, step: step, x: append([]float64(nil), o.X0...), g: make([]float64, len(o.X0))}, nil
}

type gdIterator struct {
	*batch
	step float64
	x, g []float64
}

func (it *gdIterator) X() []float64 { return it.x }

func (it *gdIterator) Next() error {
	if err := it.eval(nil, it.g, it.x); err != nil {
		return err
	}
	for i, g := range it.g {
		it.x[i] -= it.step * g
	}
	if err := it.checkX(it.x); err != nil {
		return err
	}
	it.iter++
	return nil
}

// HeavyBall is Polyak's heavy-ball method
//
//	x⁺ = x − Alpha·∇f(x) + Beta·(x − x⁻),
//
// with the same parameters for every function. Its classical tuning for
// μ-strongly convex, L-smooth functions is
//
//	α* = 4/(√L + √μ)²,  β* = ((√L − √μ)/(√L + √μ))².
//
// With μ = 0 this gives β = 1, which does not converge, so Mu defaults to the
// small positive value L/10⁴ (α ≈ 3.92/L, β ≈ 0.96).
type HeavyBall struct {
	// Alpha is the step size; 0 means α* above.
	Alpha float64
	// Beta is the momentum in [0, 1); 0 means β* above (set a tiny positive
	// value to get almost no momentum).
	Beta float64
	// Mu is the strong-convexity constant used by the defaults; 0 means L/10⁴.
	Mu float64
}

// Name implements Method.
func (HeavyBall) Name() string { return "heavy-ball" }

// Parameters returns the step α and momentum β used on o.
func (m HeavyBall) Parameters(o *problem.Objective) (alpha, beta float64, err error) {
	alpha, beta = m.Alpha, m.Beta
	if alpha == 0 || beta == 0 {
		if o == nil {
			return 0, 0, fmt.Errorf("heavy-ball: objective is nil")
		}
		l := o.L
		if !(l > 0) || math.IsInf(l, 0) {
			return 0, 0, fmt.Errorf("heavy-ball: objective's smoothness constant L = %g is not positive and finite; set Alpha and Beta explicitly", l)
		}
		mu := m.Mu
		if mu == 0 {
			mu = l / 1e4
		}
		if !(mu > 0) || mu >= l {
			return 0, 0, fmt.Errorf("heavy-ball: Mu = %g must lie in (0, L = %g)", mu, l)
		}
		sl, sm := math.Sqrt(l), math.Sqrt(mu)
		if alpha == 0 {
			alpha = 4 / ((sl + sm) * (sl + sm))
		}
		if beta == 0 {
			r := (sl - sm) / (sl + sm)
			beta = r * r
		}
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return 0, 0, fmt.Errorf("heavy-ball: step Alpha = %g is not a positive finite number", alpha)
	}
	if !(beta >= 0 && beta < 1) {
		return 0, 0, fmt.Errorf("heavy-ball: momentum Beta = %g is not in [0, 1)", beta)
	}
	return alpha, beta, nil
}

// Start implements Method.
func (m HeavyBall) Start(o *problem.Objective) (Iterator, error) {
	b, err := newBatch(m.Name(), o)
	if err != nil {
		return nil, err
	}
	alpha, beta, err := m.Parameters(o)
	if err != nil {
		return nil, err
	}
	return &heavyBallIterator{
		batch: b, alpha: alpha, beta: beta,
		x:     append([]float64(nil), o.X0...),
		xPrev: append([]float64(nil), o.X0...),
		g:     make([]float64, len(o.X0)),
	}, nil
}

type heavyBallIterator struct {
	*batch
	alpha, beta float64
	x, xPrev, g []float64
}

func (it *heavyBallIterator) X() []float64 { return it.x }

func (it *heavyBallIterator) Next() error {
	if err := it.eval(nil, it.g, it.x); err != nil {
		return err
	}
	for i, g := range it.g {
		xi := it.x[i]
		it.x[i] = xi - it.alpha*g + it.beta*(xi-it.xPrev[i])
		it.xPrev[i] = xi
	}
	if err := it.checkX(it.x); err != nil {
		return err
	}
	it.iter++
	return nil
}
