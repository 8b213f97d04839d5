package steploss

import (
	"errors"
	"fmt"
	"sync"

	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// boundStep evaluates the step loss without a graph, for methods whose
// parametrizations implement models.Binder. Within a step g and p are
// constant, so θ ↦ G_θ g and φ ↦ H_φ p are linear maps bound once by setStep
// (for PC: the spectra of g and p are computed there); an evaluation is then
//
//	x⁺ = x − G_θ g + H_φ p        (spectral terms: one inverse FFT per image)
//	f_k(x⁺), r = ∇f(x⁺)           (the objective's direct kernels)
//	∇_θ = −(1/N) adjoint_G(r),  ∇_φ = (1/N) adjoint_H(r)
//
// with one FFT per image of r shared by the spectral terms. The spectral work
// goes image by image (kernels.FFTPool.Run), so that each image's spectra stay
// in cache. Buffers are kept between evaluations.
//
// A term with a reducer (models.Reducer, PF) is bound in the coordinates z of
// the step's reduction (θ = θ̃ + E z): its reference step is folded into the
// base point x, and its bound operator is z ↦ G_{Ez} v.
//
// In block mode (evalBlock, for block methods such as NAG) one term moves
// and the other is frozen. The frozen term is applied once for its
// parameters (freeze) and kept where advance would have used it, so that the
// operations that remain are advance's, in its order, and the results are
// those of eval (bitwise without fused multiply–adds, as on amd64):
//
//   - both spectral (M-PC): the frozen term's spectrum of every image
//     (fspec), added to the active term's before the one inverse FFT per
//     image; the frozen term's forward FFT of its parameters and its
//     adjoint (one product per image, one inverse FFT) are not computed;
//   - the frozen term comes first in advance's order (it is spectral and the
//     active one is not, or both are not and it is G): x plus the frozen
//     term (base), to which the active term is added;
//   - it comes after (the active term is spectral and the frozen one is
//     not, or both are not and it is H): its output (fterm), added last.
type boundStep struct {
	// affine, if set, evaluates instead of x⁺ and the objective (the terms'
	// affine capability: one parameter each, an objective with
	// problem.Analysis); the bound maps only give it its directions.
	affine   *affineForm
	o        *problem.Objective
	binders  []models.Binder // G, then H if any
	signs    []float64       // −1 for G, +1 for H
	refs     [][]float64     // θ̃, φ̃ (full parameters)
	reducers []models.Reducer
	bounds   []models.Bound
	pool     *kernels.FFTPool // nil without spectral terms
	spare    *kernels.FFTPool // kept across steps

	x      []float64
	xPlus  []float64
	r      []float64
	vals   []float64
	spec   []int // indices of the spectral terms
	ws     problem.Workspace
	loaded bool

	// Block mode: the frozen term's contribution and for which parameters.
	frozen     frozenTerms
	frozenMode int          // frozenSpectrum, frozenBase or frozenAfter
	fspec      []complex128 // [N, spectrum]: the frozen spectral term's spectra
	base       []float64    // x plus the frozen term (it comes first)
	fterm      []float64    // the frozen term's output (it comes last)
	scratch    []int        // positions of the spectral terms (eval)
}

// The frozen term's place in advance's order (boundStep.frozenMode).
const (
	frozenSpectrum = iota // both terms spectral: fspec
	frozenBase            // the frozen term comes first: base
	frozenAfter           // the frozen term comes last: fterm
)

// newBoundStep returns the bound evaluator for the terms' binders on o;
// reducers (nil, or one entry per term, nil for a term bound in full) name
// the terms to reduce, refs their reference parameters.
func newBoundStep(bs []models.Binder, o *problem.Objective, refs [][]float64, reducers []models.Reducer) *boundStep {
	f := &boundStep{o: o, binders: bs, signs: termSigns[:len(bs)], refs: refs, reducers: reducers}
	f.alloc()
	return f
}

// newAffineBoundStep returns the bound evaluator in the affine form of its
// one-parameter terms (see affineForm), or nil if o has no analysis form.
func newAffineBoundStep(bs []models.Binder, o *problem.Objective) *boundStep {
	a := newAffineForm(len(bs), o)
	if a == nil {
		return nil
	}
	return &boundStep{affine: a, o: o, binders: bs, signs: termSigns[:len(bs)]}
}

// alloc makes the buffers of x, x⁺, ∇f(x⁺) and the values.
func (f *boundStep) alloc() {
	o := f.o
	n := o.N * o.ImageLen()
	f.x = make([]float64, n)
	f.xPlus = make([]float64, n)
	f.r = make([]float64, n)
	f.vals = make([]float64, o.N)
}

// kind implements stepEvaluator: graph if a term runs through its graph
// (models.GraphBinder), reduced if a term is reduced, otherwise bound.
func (f *boundStep) kind() string {
	if f.affine != nil {
		return "affine"
	}
	for _, b := range f.binders {
		if _, ok := b.(*models.GraphBinder); ok {
			return "graph"
		}
	}
	if f.reducers != nil {
		return "reduced"
	}
	return "bound"
}

// close implements stepEvaluator: it releases the terms' graphs.
func (f *boundStep) close() error {
	var errs []error
	for _, b := range f.binders {
		if g, ok := b.(*models.GraphBinder); ok {
			errs = append(errs, g.Close())
		}
	}
	return errors.Join(errs...)
}

// setStep binds the operands of the step: g for G and p for H. A term i
// with a reducer is bound in the coordinates z of its reduction. The
// reductions are returned (nil entries for terms bound in full).
func (f *boundStep) setStep(x, g, p []float64) ([]models.Reduction, error) {
	o := f.o
	copy(f.x, x)
	f.frozen.valid = false
	f.bounds = f.bounds[:0]
	f.pool = nil
	var reds []models.Reduction
	if f.reducers != nil {
		reds = make([]models.Reduction, len(f.binders))
	}
	for i, b := range f.binders {
		v := g
		if i == 1 {
			v = p
		}
		bd, err := b.Bind(v, o.N, o.H, o.W)
		if err != nil {
			return nil, fmt.Errorf("step loss: %w", err)
		}
		if f.reducers != nil && f.reducers[i] != nil {
			// x ← x ± G_θ̃ v, then work in the reduction's coordinates.
			if err := bd.AddApply(f.x, f.refs[i], f.signs[i]); err != nil {
				return nil, fmt.Errorf("step loss: %w", err)
			}
			red, err := f.reducers[i].Reduce(v, o.N, o.H, o.W)
			if err != nil {
				return nil, fmt.Errorf("step loss: %w", err)
			}
			reds[i] = red
			f.bounds = append(f.bounds, red)
			continue
		}
		f.bounds = append(f.bounds, bd)
		if f.affine != nil {
			continue
		}
		if _, ok := bd.(models.SpectralBound); ok && f.pool == nil {
			if f.spare == nil {
				f.spare = kernels.NewFFTPool(o.H, o.W)
			}
			f.pool = f.spare
		}
	}
	if f.affine != nil {
		// The directions are all the affine form needs of the bound maps.
		err := f.affine.load(x, f.bounds)
		f.bounds = f.bounds[:0]
		if err != nil {
			return nil, err
		}
	}
	f.loaded = true
	return reds, nil
}

// spectral returns the indices of the spectral terms.
func (f *boundStep) spectral() []int {
	f.spec = f.spec[:0]
	for i, b := range f.bounds {
		if _, ok := b.(models.SpectralBound); ok {
			f.spec = append(f.spec, i)
		}
	}
	return f.spec
}

// next implements stepEvaluator.
func (f *boundStep) next(dst []float64, params [][]float64) error {
	if f.affine != nil {
		return f.affine.next(dst, params)
	}
	if err := f.advance(params); err != nil {
		return err
	}
	copy(dst, f.xPlus)
	return nil
}

// advance writes x⁺ for the parameters params[i] of term i into f.xPlus.
func (f *boundStep) advance(params [][]float64) error {
	if !f.loaded {
		return fmt.Errorf("step loss: SetStep was not called")
	}
	spec := f.spectral()
	if err := eachTerm(spec, func(i int) error {
		return f.bounds[i].(models.SpectralBound).SetSpectralParams(params[i], f.signs[i])
	}); err != nil {
		return fmt.Errorf("step loss: %w", err)
	}
	if len(spec) > 0 {
		// Image by image: the summed spectrum of the spectral terms, one
		// inverse FFT, added to x.
		hw := f.o.ImageLen()
		f.pool.Run(f.o.N, func(w *kernels.FFTWorker, lo, hi int) {
			for k := lo; k < hi; k++ {
				clear(w.Spectrum)
				for _, i := range spec {
					f.bounds[i].(models.SpectralBound).AddSpectrum(w.Spectrum, k)
				}
				w.Inverse(w.Image, w.Spectrum)
				x, xp := f.x[k*hw:(k+1)*hw], f.xPlus[k*hw:(k+1)*hw]
				for j, v := range w.Image {
					xp[j] = x[j] + v
				}
			}
		})
	} else {
		copy(f.xPlus, f.x)
	}
	for i, b := range f.bounds {
		if _, ok := b.(models.SpectralBound); ok {
			continue
		}
		if err := b.AddApply(f.xPlus, params[i], f.signs[i]); err != nil {
			return fmt.Errorf("step loss: %w", err)
		}
	}
	return nil
}

// eval implements stepEvaluator (evalBlock in block mode).
func (f *boundStep) eval(params, grads [][]float64) (float64, error) {
	if f.affine != nil {
		return f.affine.eval(params, grads)
	}
	if a, ok := activeTerm(grads); ok {
		return f.evalBlock(a, params, grads[a])
	}
	if err := f.advance(params); err != nil {
		return 0, err
	}
	var r []float64
	if grads != nil {
		r = f.r
	}
	if err := f.o.Eval(f.vals, r, f.xPlus, &f.ws); err != nil {
		return 0, fmt.Errorf("step loss: %w", err)
	}
	var sum float64
	for _, v := range f.vals {
		sum += v
	}
	inv := 1 / float64(f.o.N)
	if grads == nil {
		return sum * inv, nil
	}
	for i, b := range f.bounds {
		if _, ok := b.(models.SpectralBound); ok {
			continue
		}
		if err := b.AddAdjoint(grads[i], f.r, f.signs[i]*inv); err != nil {
			return 0, fmt.Errorf("step loss: %w", err)
		}
	}
	spec := f.spectral()
	if len(spec) == 0 {
		return sum * inv, nil
	}
	// Image by image: one FFT of r_k shared by the spectral terms, each
	// accumulating its adjoint per worker.
	hw := f.o.ImageLen()
	chunks := f.pool.Run(f.o.N, func(w *kernels.FFTWorker, lo, hi int) {
		acc := w.Accumulators(len(spec))
		for k := lo; k < hi; k++ {
			w.Forward(w.Spectrum, f.r[k*hw:(k+1)*hw])
			for j, i := range spec {
				f.bounds[i].(models.SpectralBound).AccumulateAdjoint(acc[j], w.Spectrum, k)
			}
		}
	})
	terms := f.scratch[:0] // positions in spec
	for j := range spec {
		terms = append(terms, j)
	}
	f.scratch = terms
	if err := eachTerm(terms, func(j int) error {
		i := spec[j]
		total := f.pool.Worker(0).Accumulator(j)
		for c := 1; c < chunks; c++ {
			for q, v := range f.pool.Worker(c).Accumulator(j) {
				total[q] += v
			}
		}
		return f.bounds[i].(models.SpectralBound).FinishAdjoint(grads[i], total, f.signs[i]*inv)
	}); err != nil {
		return 0, fmt.Errorf("step loss: %w", err)
	}
	return sum * inv, nil
}

// evalBlock is eval with term a active and the others frozen (see
// boundStep for the block mode).
func (f *boundStep) evalBlock(a int, params [][]float64, grad []float64) (float64, error) {
	if !f.loaded {
		return 0, fmt.Errorf("step loss: SetStep was not called")
	}
	if !f.frozen.holds(a, params) {
		if err := f.freeze(a, params); err != nil {
			return 0, err
		}
	}
	if err := f.advanceBlock(a, params); err != nil {
		return 0, err
	}
	if err := f.o.Eval(f.vals, f.r, f.xPlus, &f.ws); err != nil {
		return 0, fmt.Errorf("step loss: %w", err)
	}
	var sum float64
	for _, v := range f.vals {
		sum += v
	}
	inv := 1 / float64(f.o.N)
	c := f.signs[a] * inv
	sb, ok := f.bounds[a].(models.SpectralBound)
	if !ok {
		if err := f.bounds[a].AddAdjoint(grad, f.r, c); err != nil {
			return 0, fmt.Errorf("step loss: %w", err)
		}
		return sum * inv, nil
	}
	// As eval does for each spectral term, for the active one alone.
	hw := f.o.ImageLen()
	chunks := f.pool.Run(f.o.N, func(w *kernels.FFTWorker, lo, hi int) {
		acc := w.Accumulators(1)[0]
		for k := lo; k < hi; k++ {
			w.Forward(w.Spectrum, f.r[k*hw:(k+1)*hw])
			sb.AccumulateAdjoint(acc, w.Spectrum, k)
		}
	})
	total := f.pool.Worker(0).Accumulator(0)
	for c := 1; c < chunks; c++ {
		for q, v := range f.pool.Worker(c).Accumulator(0) {
			total[q] += v
		}
	}
	if err := sb.FinishAdjoint(grad, total, c); err != nil {
		return 0, fmt.Errorf("step loss: %w", err)
	}
	return sum * inv, nil
}

// freeze applies the terms other than a at params and keeps their
// contribution where advance uses it (see boundStep).
func (f *boundStep) freeze(a int, params [][]float64) error {
	o := f.o
	hw, n := o.ImageLen(), len(f.x)
	_, activeSpectral := f.bounds[a].(models.SpectralBound)
	for i, bd := range f.bounds {
		if i == a {
			continue
		}
		sb, spectral := bd.(models.SpectralBound)
		if spectral {
			if err := sb.SetSpectralParams(params[i], f.signs[i]); err != nil {
				return fmt.Errorf("step loss: %w", err)
			}
		}
		switch {
		case spectral && activeSpectral:
			sl := f.pool.SpectrumLen()
			if cap(f.fspec) < o.N*sl {
				f.fspec = make([]complex128, o.N*sl)
			}
			f.fspec = f.fspec[:o.N*sl]
			f.pool.Run(o.N, func(_ *kernels.FFTWorker, lo, hi int) {
				for k := lo; k < hi; k++ {
					s := f.fspec[k*sl : (k+1)*sl]
					clear(s)
					sb.AddSpectrum(s, k)
				}
			})
			f.frozenMode = frozenSpectrum
		case spectral:
			f.base = growFloats(f.base, n)
			f.pool.Run(o.N, func(w *kernels.FFTWorker, lo, hi int) {
				for k := lo; k < hi; k++ {
					clear(w.Spectrum)
					sb.AddSpectrum(w.Spectrum, k)
					w.Inverse(w.Image, w.Spectrum)
					x, b := f.x[k*hw:(k+1)*hw], f.base[k*hw:(k+1)*hw]
					for j, v := range w.Image {
						b[j] = x[j] + v
					}
				}
			})
			f.frozenMode = frozenBase
		case !activeSpectral && i < a:
			f.base = growFloats(f.base, n)
			copy(f.base, f.x)
			if err := bd.AddApply(f.base, params[i], f.signs[i]); err != nil {
				return fmt.Errorf("step loss: %w", err)
			}
			f.frozenMode = frozenBase
		default:
			f.fterm = growFloats(f.fterm, n)
			clear(f.fterm)
			if err := bd.AddApply(f.fterm, params[i], f.signs[i]); err != nil {
				return fmt.Errorf("step loss: %w", err)
			}
			f.frozenMode = frozenAfter
		}
	}
	f.frozen.set(a, params)
	return nil
}

// advanceBlock is advance with the terms other than a frozen (freeze).
func (f *boundStep) advanceBlock(a int, params [][]float64) error {
	act := f.bounds[a]
	if f.frozenMode == frozenBase {
		copy(f.xPlus, f.base)
		if err := act.AddApply(f.xPlus, params[a], f.signs[a]); err != nil {
			return fmt.Errorf("step loss: %w", err)
		}
		return nil
	}
	sb, spectral := act.(models.SpectralBound)
	switch {
	case spectral:
		if err := sb.SetSpectralParams(params[a], f.signs[a]); err != nil {
			return fmt.Errorf("step loss: %w", err)
		}
		hw, sl := f.o.ImageLen(), f.pool.SpectrumLen()
		withSpec := f.frozenMode == frozenSpectrum
		f.pool.Run(f.o.N, func(w *kernels.FFTWorker, lo, hi int) {
			for k := lo; k < hi; k++ {
				// advance sums (0 + t0) + t1; fspec holds 0 + t_frozen, and
				// fspec + t_active is the same sum bitwise (addition
				// commutes, and 0 + t differs from t only in the sign of
				// a zero, which the sum does not keep).
				if withSpec {
					copy(w.Spectrum, f.fspec[k*sl:(k+1)*sl])
				} else {
					clear(w.Spectrum)
				}
				sb.AddSpectrum(w.Spectrum, k)
				w.Inverse(w.Image, w.Spectrum)
				x, xp := f.x[k*hw:(k+1)*hw], f.xPlus[k*hw:(k+1)*hw]
				for j, v := range w.Image {
					xp[j] = x[j] + v
				}
			}
		})
	default:
		copy(f.xPlus, f.x)
		if err := act.AddApply(f.xPlus, params[a], f.signs[a]); err != nil {
			return fmt.Errorf("step loss: %w", err)
		}
	}
	if f.frozenMode == frozenAfter {
		xp, t := f.xPlus, f.fterm
		kernels.ParallelFor(len(xp), func(lo, hi int) {
			for j, v := range t[lo:hi] {
				xp[lo+j] += v
			}
		})
	}
	return nil
}

// growFloats returns b with length n, reallocated if too small.
func growFloats(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// eachTerm runs do(i) for every i in idx concurrently (the terms' own
// serial work, a single FFT each for PC) and returns the first error.
func eachTerm(idx []int, do func(i int) error) error {
	if len(idx) == 1 {
		return do(idx[0])
	}
	errs := make([]error, len(idx))
	var wg sync.WaitGroup
	for j, i := range idx {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[j] = do(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// bytes implements stepEvaluator.
func (f *boundStep) bytes() int64 {
	if f.affine != nil {
		return f.affine.bytes()
	}
	t := int64(8*(len(f.x)+len(f.xPlus)+len(f.r)+len(f.vals)+len(f.base)+len(f.fterm)) + 16*len(f.fspec))
	if f.pool != nil {
		t += f.pool.Bytes()
	}
	for _, b := range f.bounds {
		t += b.Bytes()
	}
	return t
}

// penaltyAdd returns w/2‖a − b‖² and adds w(a − b) to grad (if not nil).
func penaltyAdd(grad, a, b []float64, w float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
		if grad != nil {
			grad[i] += w * d
		}
	}
	return 0.5 * w * s
}
