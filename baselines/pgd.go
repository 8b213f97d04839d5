package baselines

import (
	"fmt"
	"math"
	"sync"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Circulant is implemented by operators that can describe a circulant
// (periodic-boundary) approximation of themselves.
type Circulant interface {
	// Spectrum returns the 2-D DFT of the approximation's convolution kernel
	// on h×w images, laid out as kernels.FFT2 spectra: [h, w/2+1].
	Spectrum(h, w int) ([]complex128, error)
}

// CirculantSpectrum returns the spectrum [h, w/2+1] of the circulant
// approximation of a: the operator's own Spectrum if it implements Circulant;
// otherwise, for a (possibly scaled) blur, the blur kernel with periodic
// boundary; for the identity, ones. Other operators give an error.
func CirculantSpectrum(a problem.Operator, h, w int) ([]complex128, error) {
	if h < 1 || w < 1 {
		return nil, fmt.Errorf("circulant spectrum: image size %d×%d is not positive", h, w)
	}
	switch op := a.(type) {
	case Circulant:
		s, err := op.Spectrum(h, w)
		if err != nil {
			return nil, fmt.Errorf("circulant spectrum of %s: %w", a, err)
		}
		if len(s) != h*(w/2+1) {
			return nil, fmt.Errorf("circulant spectrum of %s: %d values, want h·(w/2+1) = %d", a, len(s), h*(w/2+1))
		}
		return s, nil
	case *problem.Scaled:
		s, err := CirculantSpectrum(op.Op, h, w)
		if err != nil {
			return nil, err
		}
		for i := range s {
			s[i] *= complex(op.Scale, 0)
		}
		return s, nil
	case *problem.Blur:
		return kernelSpectrum(&op.FixedConv, h, w)
	case problem.Identity, *problem.Identity:
		s := make([]complex128, h*(w/2+1))
		for i := range s {
			s[i] = 1
		}
		return s, nil
	}
	return nil, fmt.Errorf("operator %s has no known circulant approximation: implement baselines.Circulant for it", a)
}

// kernelSpectrum is the spectrum of the periodic correlation
// y[i,j] = Σ_{u,v} k[u,v] x[(i+u−c) mod h, (j+v−c) mod w], c = K/2, written as
// the convolution with the image-sized kernel g[(c−u) mod h, (c−v) mod w] = k[u,v].
func kernelSpectrum(c *graph.FixedConv, h, w int) ([]complex128, error) {
	if c.K < 1 || len(c.Kernel) != c.K*c.K {
		return nil, fmt.Errorf("circulant spectrum of %s: kernel of %d values is not %d×%d", c, len(c.Kernel), c.K, c.K)
	}
	g := make([]float64, h*w)
	half := c.K / 2
	for u := 0; u < c.K; u++ {
		for v := 0; v < c.K; v++ {
			i := ((half-u)%h + h) % h
			j := ((half-v)%w + w) % w
			g[i*w+j] += c.Kernel[u*c.K+v]
		}
	}
	f := kernels.NewFFT2(h, w)
	s := make([]complex128, f.SpectrumLen())
	f.Forward(s, g)
	return s, nil
}

// Preconditioner applies P = (δI + A*A)⁻¹ with A replaced by its circulant
// approximation, by FFT, to every image of a batch. It is safe for
// concurrent use.
type Preconditioner struct {
	H, W  int
	Delta float64
	inv   []float64 // 1/(δ + |â|²), [H, W/2+1]
	// invs, for a family of operators (problem.PerFunction), holds image
	// k's own 1/(δ + |â_k|²); a batch must then have one image a member.
	invs [][]float64
	pool sync.Pool
}

type fftScratch struct {
	f    *kernels.FFT2
	spec []complex128
}

// NewPreconditioner returns P = (δI + A*A)⁻¹ for h×w images; δ must be
// positive.
func NewPreconditioner(a problem.Operator, h, w int, delta float64) (*Preconditioner, error) {
	if !(delta > 0) || math.IsInf(delta, 0) {
		return nil, fmt.Errorf("preconditioner: δ = %g is not a positive finite number", delta)
	}
	p := &Preconditioner{H: h, W: w, Delta: delta}
	if pf, ok := a.(*problem.PerFunction); ok {
		built := map[string][]float64{}
		for _, op := range pf.Ops {
			inv, ok := built[op.String()]
			if !ok {
				var err error
				if inv, err = inverseSpectrum(op, h, w, delta); err != nil {
					return nil, err
				}
				built[op.String()] = inv
			}
			p.invs = append(p.invs, inv)
		}
		p.inv = p.invs[0]
	} else {
		inv, err := inverseSpectrum(a, h, w, delta)
		if err != nil {
			return nil, err
		}
		p.inv = inv
	}
	p.pool.New = func() any {
		f := kernels.NewFFT2(h, w)
		return &fftScratch{f: f, spec: make([]complex128, f.SpectrumLen())}
	}
	return p, nil
}

// inverseSpectrum returns 1/(δ + |â|²) of a's circulant approximation.
func inverseSpectrum(a problem.Operator, h, w int, delta float64) ([]float64, error) {
	s, err := CirculantSpectrum(a, h, w)
	if err != nil {
		return nil, fmt.Errorf("preconditioner: %w", err)
	}
	inv := make([]float64, len(s))
	for i, v := range s {
		inv[i] = 1 / (delta + real(v)*real(v) + imag(v)*imag(v))
	}
	return inv, nil
}

// Apply writes P src into dst for a batch of h×w images (dst may be src).
func (p *Preconditioner) Apply(dst, src []float64) error {
	hw := p.H * p.W
	if len(src)%hw != 0 || len(dst) != len(src) {
		return fmt.Errorf("preconditioner: %d source and %d destination values for %d×%d images", len(src), len(dst), p.H, p.W)
	}
	if p.invs != nil && len(src)/hw != len(p.invs) {
		return fmt.Errorf("preconditioner: a batch of %d images for a family of %d operators", len(src)/hw, len(p.invs))
	}
	kernels.ParallelFor(len(src)/hw, func(lo, hi int) {
		sc := p.pool.Get().(*fftScratch)
		defer p.pool.Put(sc)
		for k := lo; k < hi; k++ {
			sc.f.Forward(sc.spec, src[k*hw:(k+1)*hw])
			inv := p.inv
			if p.invs != nil {
				inv = p.invs[k]
			}
			for i, m := range inv {
				sc.spec[i] *= complex(m, 0)
			}
			sc.f.Inverse(dst[k*hw:(k+1)*hw], sc.spec)
		}
	})
	return nil
}

// DefaultDelta is PreconditionedGD's default δ, the value the paper found
// best for Problem 1 (deblurring with ‖A‖ = 1); use TuneDelta for others.
const DefaultDelta = 0.032

// PreconditionedGD is preconditioned gradient descent
//
//	x⁺ = x − τ P∇f(x),   P = (δI + A*A)⁻¹,
//
// with A*A replaced by its circulant approximation (see CirculantSpectrum),
// and for every function its own step τ found by backtracking: τ starts at 1
// and halves until the Armijo condition in the P-norm,
//
//	f(x⁺) ≤ f(x) − Armijo·τ‖∇f(x)‖²_P,   ‖g‖²_P = ⟨g, P g⟩,
//
// holds. A function whose step falls below 2⁻⁶⁰ without satisfying it (a
// minimiser reached to rounding) keeps its iterate.
type PreconditionedGD struct {
	// Delta is δ > 0; 0 means DefaultDelta.
	Delta float64
	// Armijo is the sufficient-decrease constant in (0, 1); 0 means 10⁻⁴.
	Armijo float64
}

// Name implements Method.
func (m PreconditionedGD) Name() string {
	if m.Delta == 0 || m.Delta == DefaultDelta {
		return "pgd"
	}
	return fmt.Sprintf("pgd(δ=%.3g)", m.Delta)
}

const maxHalvings = 60

// Start implements Method.
func (m PreconditionedGD) Start(o *problem.Objective) (Iterator, error) {
	b, err := newBatch(m.Name(), o)
	if err != nil {
		return nil, err
	}
	delta, c := m.Delta, m.Armijo
	if delta == 0 {
		delta = DefaultDelta
	}
	if c == 0 {
		c = 1e-4
	}
	if !(c > 0 && c < 1) {
		return nil, fmt.Errorf("pgd: Armijo constant %g is not in (0, 1)", m.Armijo)
	}
	pre, err := NewPreconditioner(o.A, o.H, o.W, delta)
	if err != nil {
		return nil, fmt.Errorf("pgd: %w", err)
	}
	size := len(o.X0)
	it := &pgdIterator{
		batch: b, pre: pre, armijo: c,
		x:     append([]float64(nil), o.X0...),
		g:     make([]float64, size),
		pg:    make([]float64, size),
		xt:    make([]float64, size),
		f:     make([]float64, o.N),
		ft:    make([]float64, o.N),
		gpg:   make([]float64, o.N),
		tau:   make([]float64, o.N),
		evals: make([]int, o.N),
	}
	if err := it.eval(it.f, nil, it.x); err != nil {
		return nil, err
	}
	for k, f := range it.f {
		it.evals[k]++
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("pgd: f_%d(x⁰) = %g is not finite: check the data and x0", k, f)
		}
	}
	return it, nil
}

type pgdIterator struct {
	*batch
	pre                   *Preconditioner
	armijo                float64
	x, g, pg, xt          []float64
	f, ft, gpg, tau       []float64
	evals                 []int
	pending, stillPending []int
}

func (it *pgdIterator) X() []float64 { return it.x }

// Evaluations implements Evaluator.
func (it *pgdIterator) Evaluations() []int { return it.evals }

// Steps returns the steps τ_k accepted in the last iteration (0 for a
// function that kept its iterate).
func (it *pgdIterator) Steps() []float64 { return it.tau }

func (it *pgdIterator) Next() error {
	if err := it.eval(nil, it.g, it.x); err != nil {
		return err
	}
	if err := it.checkGrad(it.g); err != nil {
		return err
	}
	if err := it.pre.Apply(it.pg, it.g); err != nil {
		return fmt.Errorf("pgd: %w", err)
	}
	it.pending = it.pending[:0]
	for k := 0; k < it.n; k++ {
		it.evals[k]++ // the gradient evaluation
		it.gpg[k] = dot(it.img(it.g, k), it.img(it.pg, k))
		it.tau[k] = 1
		if it.gpg[k] > 0 {
			it.pending = append(it.pending, k)
		} else {
			it.tau[k] = 0
		}
	}
	for round := 0; len(it.pending) > 0; round++ {
		if round > maxHalvings {
			for _, k := range it.pending {
				it.tau[k] = 0
			}
			break
		}
		for _, k := range it.pending {
			xk, pk, tk := it.img(it.x, k), it.img(it.pg, k), it.img(it.xt, k)
			tau := it.tau[k]
			for i := range tk {
				tk[i] = xk[i] - tau*pk[i]
			}
		}
		if err := it.eval(it.ft, nil, it.xt); err != nil {
			return err
		}
		it.stillPending = it.stillPending[:0]
		for _, k := range it.pending {
			it.evals[k]++
			if it.ft[k] <= it.f[k]-it.armijo*it.tau[k]*it.gpg[k] {
				copy(it.img(it.x, k), it.img(it.xt, k))
				it.f[k] = it.ft[k]
				continue
			}
			it.tau[k] /= 2
			it.stillPending = append(it.stillPending, k)
		}
		it.pending, it.stillPending = it.stillPending, it.pending
	}
	it.iter++
	return nil
}

// TuneDelta chooses PreconditionedGD's δ for a training objective: it
// minimises the mean objective value after iters iterations (0 means 100) over
// log δ by a one-dimensional Nelder–Mead search started at δ = 0.1 with an
// initial simplex of width one (a factor e in δ), stopping when the simplex is
// narrower than 0.02 (2 % in δ) or after 40 runs. δ is kept in [10⁻⁸, 10⁴].
func TuneDelta(train *problem.Objective, iters int) (float64, error) {
	if iters == 0 {
		iters = 100
	}
	if iters < 0 {
		return 0, fmt.Errorf("tune δ: %d iterations is negative", iters)
	}
	if train == nil {
		return 0, fmt.Errorf("tune δ: training objective is nil")
	}
	if _, err := NewPreconditioner(train.A, train.H, train.W, 1); err != nil {
		return 0, fmt.Errorf("tune δ: %w", err)
	}
	var firstErr error
	cost := func(logDelta float64) float64 {
		if logDelta < math.Log(1e-8) || logDelta > math.Log(1e4) {
			return math.Inf(1)
		}
		v, err := MeanAfter(PreconditionedGD{Delta: math.Exp(logDelta)}, train, iters)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return math.Inf(1)
		}
		return v
	}
	best, bestVal := nelderMead1D(cost, math.Log(0.1), 1, 0.02, 40)
	if math.IsInf(bestVal, 0) || math.IsNaN(bestVal) {
		return 0, fmt.Errorf("tune δ: no δ gave a finite objective: %w", firstErr)
	}
	return math.Exp(best), nil
}

// MeanAfter runs m for iters iterations on o and returns the mean objective
// (TuneDelta's criterion).
func MeanAfter(m Method, o *problem.Objective, iters int) (float64, error) {
	it, err := m.Start(o)
	if err != nil {
		return 0, err
	}
	for t := 0; t < iters; t++ {
		if err := it.Next(); err != nil {
			return 0, err
		}
	}
	return o.Mean(it.X())
}

// nelderMead1D minimises f on the line by the Nelder–Mead simplex method
// (reflection 1, expansion 2, contraction ½, shrink ½) from the simplex
// {x0, x0 + size}, until the simplex is narrower than tol or maxEvals values
// have been computed. It returns the best point and its value.
func nelderMead1D(f func(float64) float64, x0, size, tol float64, maxEvals int) (float64, float64) {
	a, b := x0, x0+size
	fa, fb := f(a), f(b)
	evals := 2
	for evals < maxEvals && math.Abs(b-a) > tol {
		if fb < fa || (math.IsInf(fa, 1) && !math.IsInf(fb, 1)) {
			a, b, fa, fb = b, a, fb, fa
		}
		// a is the best vertex, b the worst; the centroid is a.
		r := a + (a - b)
		fr := f(r)
		evals++
		switch {
		case fr < fa:
			e := a + 2*(a-b)
			fe := f(e)
			evals++
			if fe < fr {
				b, fb = e, fe
			} else {
				b, fb = r, fr
			}
		case fr < fb:
			// Outside contraction.
			c := a + 0.5*(r-a)
			fc := f(c)
			evals++
			if fc <= fr {
				b, fb = c, fc
			} else {
				b, fb = r, fr
			}
		default:
			// Inside contraction; in one dimension a shrink towards a is the
			// same point, so it needs no separate case.
			c := a + 0.5*(b-a)
			b, fb = c, f(c)
			evals++
		}
	}
	if fb < fa {
		return b, fb
	}
	return a, fa
}
