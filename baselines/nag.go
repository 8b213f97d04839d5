package baselines

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/problem"
)

// NAG is Nesterov's accelerated gradient method with the backtracking rule of
// Beck and Teboulle (FISTA without a proximal term), run separately for every
// function k:
//
//	find the smallest L_k = L0·Eta^i ≥ L_{k−1} with
//	    f(y − ∇f(y)/L_k) ≤ f(y) − ‖∇f(y)‖²/(2 L_k),
//	x⁺ = y − ∇f(y)/L_k,
//	t⁺ = (1 + √(1 + 4t²))/2,
//	y⁺ = x⁺ + ((t − 1)/t⁺)(x⁺ − x),
//
// starting from y = x⁰, t = 1. The estimates L_k never exceed the
// objective's L, which satisfies the condition in exact arithmetic; capping
// there stops rounding errors near a minimiser from inflating L_k for ever.
// Each iteration evaluates f and ∇f at y once and f alone at each trial point.
type NAG struct {
	// L0 is the first estimate of the smoothness constant; 0 means L/10.
	L0 float64
	// Eta > 1 is the factor by which the estimate grows; 0 means 2.
	Eta float64
}

// Name implements Method.
func (NAG) Name() string { return "nag" }

// maxBacktracks bounds the number of increases of L_k in one iteration when
// the objective's L cannot serve as a cap.
const maxBacktracks = 100

// Start implements Method.
func (m NAG) Start(o *problem.Objective) (Iterator, error) {
	b, err := newBatch(m.Name(), o)
	if err != nil {
		return nil, err
	}
	it, err := startNAG(b, m.L0, m.Eta, restartNone)
	if err != nil {
		return nil, err
	}
	return it, nil
}

// startNAG checks NAG's settings L0 and Eta (0 for the defaults) and returns
// its iterator with the given restart scheme.
func startNAG(b *batch, l0, eta float64, scheme RestartScheme) (*nagIterator, error) {
	o := b.o
	lmax := math.Inf(1)
	if o.L > 0 && !math.IsInf(o.L, 0) {
		lmax = o.L
	}
	if l0 == 0 {
		var err error
		if l0, err = b.lipschitz("L0"); err != nil {
			return nil, err
		}
		l0 /= 10
	}
	if !(l0 > 0) || math.IsInf(l0, 0) {
		return nil, fmt.Errorf("%s: first smoothness estimate L0 = %g is not a positive finite number", b.name, l0)
	}
	l0 = math.Min(l0, lmax)
	if eta == 0 {
		eta = 2
	}
	if !(eta > 1) || math.IsInf(eta, 0) {
		return nil, fmt.Errorf("%s: growth factor Eta = %g must be a finite number above 1", b.name, eta)
	}
	size := len(o.X0)
	it := &nagIterator{
		batch: b, eta: eta, lmax: lmax, scheme: scheme,
		t:        make([]float64, o.N),
		restarts: make([]int, o.N),
		x:        append([]float64(nil), o.X0...),
		xPrev:    make([]float64, size),
		y:        append([]float64(nil), o.X0...),
		g:        make([]float64, size),
		trial:    make([]float64, size),
		fx:       make([]float64, o.N),
		fy:       make([]float64, o.N),
		ft:       make([]float64, o.N),
		gg:       make([]float64, o.N),
		lip:      make([]float64, o.N),
		evals:    make([]int, o.N),
	}
	for k := range it.lip {
		it.lip[k] = l0
		it.t[k] = 1
	}
	if err := it.eval(it.fx, nil, it.x); err != nil {
		return nil, err
	}
	for k, f := range it.fx {
		it.evals[k]++
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s: f_%d(x⁰) = %g is not finite: check the data and x0", b.name, k, f)
		}
	}
	return it, nil
}

type nagIterator struct {
	*batch
	eta, lmax             float64
	scheme                RestartScheme
	t                     []float64 // t_k of every function (all equal without restarts)
	x, xPrev, y, g, trial []float64
	fx, fy, ft, gg, lip   []float64
	evals, restarts       []int
	pending, stillPending []int
}

func (it *nagIterator) X() []float64 { return it.x }

// Values returns f_k(x_k) for the current iterates (a view).
func (it *nagIterator) Values() []float64 { return it.fx }

// Evaluations implements Evaluator.
func (it *nagIterator) Evaluations() []int { return it.evals }

// Lipschitz returns the current smoothness estimates L_k (a view).
func (it *nagIterator) Lipschitz() []float64 { return it.lip }

func (it *nagIterator) Next() error {
	if err := it.eval(it.fy, it.g, it.y); err != nil {
		return err
	}
	if err := it.checkGrad(it.g); err != nil {
		return err
	}
	it.pending = it.pending[:0]
	for k := 0; k < it.n; k++ {
		it.evals[k]++
		gk := it.img(it.g, k)
		it.gg[k] = dot(gk, gk)
		it.pending = append(it.pending, k)
	}
	for round := 0; len(it.pending) > 0; round++ {
		if round > maxBacktracks {
			return fmt.Errorf("%s: function %d, iteration %d: backtracking did not find a step after %d increases of L (now %g)", it.name, it.pending[0], it.iter+1, maxBacktracks, it.lip[it.pending[0]])
		}
		for _, k := range it.pending {
			tk, yk, gk := it.img(it.trial, k), it.img(it.y, k), it.img(it.g, k)
			s := 1 / it.lip[k]
			for i := range tk {
				tk[i] = yk[i] - s*gk[i]
			}
		}
		if err := it.eval(it.ft, nil, it.trial); err != nil {
			return err
		}
		it.stillPending = it.stillPending[:0]
		for _, k := range it.pending {
			it.evals[k]++
			l := it.lip[k]
			if it.ft[k] <= it.fy[k]-it.gg[k]/(2*l) || l >= it.lmax {
				continue
			}
			it.lip[k] = math.Min(l*it.eta, it.lmax)
			it.stillPending = append(it.stillPending, k)
		}
		it.pending, it.stillPending = it.stillPending, it.pending
	}
	for k, f := range it.ft {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return it.diverged(k, "objective value")
		}
	}
	// Rotate buffers: the trial points become the iterates.
	it.xPrev, it.x, it.trial = it.x, it.trial, it.xPrev
	for k := 0; k < it.n; k++ {
		xk, xp, yk := it.img(it.x, k), it.img(it.xPrev, k), it.img(it.y, k)
		if it.restartNow(k) {
			// Start again from x⁺: y = x⁺, t = 1 (the next momentum is 0).
			it.restarts[k]++
			it.t[k] = 1
			copy(yk, xk)
			continue
		}
		t := it.t[k]
		tNext := (1 + math.Sqrt(1+4*t*t)) / 2
		mom := (t - 1) / tNext
		for i, xi := range xk {
			yk[i] = xi + mom*(xi-xp[i])
		}
		it.t[k] = tNext
	}
	copy(it.fx, it.ft)
	it.iter++
	return nil
}

// restartNow applies the restart test of function k to the step just taken
// (x, f(x) in xPrev and fx; x⁺, f(x⁺) in x and ft; ∇f(y) in g).
func (it *nagIterator) restartNow(k int) bool {
	switch it.scheme {
	case RestartGradient:
		// ⟨∇f(y), x⁺ − x⟩ > 0: the step moves against the momentum.
		gk, xk, xp := it.img(it.g, k), it.img(it.x, k), it.img(it.xPrev, k)
		var s float64
		for i, g := range gk {
			s += g * (xk[i] - xp[i])
		}
		return s > 0
	case RestartFunction:
		return it.ft[k] > it.fx[k]
	}
	return false
}
