package models

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/internal/ordered"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// Bound is the map θ ↦ G_θ v of a parametrization for one fixed batch v
// [N,H,W]. It is linear in θ, so its value and its adjoint are all that the
// greedy step loss needs when only θ changes: a fast path next to the generic
// graph expression (Parametrization.Apply), which stays the definition.
// A Bound is not safe for concurrent use.
type Bound interface {
	// AddApply adds c·G_θ v to dst [N,H,W].
	AddApply(dst, theta []float64, c float64) error
	// AddAdjoint adds c·∇_θ⟨G_θ v, r⟩ to dst (the length of θ) for r [N,H,W].
	AddAdjoint(dst, r []float64, c float64) error
	// Bytes is the memory the bound operator holds.
	Bytes() int64
}

// Rebinder is implemented by bound operators that can take a new operand
// of the same shape in place (reusing their buffers and plans): Rebind(v)
// leaves the Bound as Bind(v, n, h, w) would have returned it. For users
// that bind once per iteration (Algorithm 2's Updater).
type Rebinder interface {
	Rebind(v []float64) error
}

// rebindCopy copies v into dst for Rebind, checking its length.
func rebindCopy(name string, dst, v []float64) error {
	if len(v) != len(dst) {
		return fmt.Errorf("%s: rebinding %d values to a bound operator of %d", name, len(v), len(dst))
	}
	copy(dst, v)
	return nil
}

// Binder is implemented by parametrizations with a fast path for a fixed
// operand: Bind returns θ ↦ G_θ v for the batch v of n images of h×w. Bind
// copies what it needs of v. The bound operator must agree with Apply.
type Binder interface {
	Bind(v []float64, n, h, w int) (Bound, error)
}

func checkBatch(name string, v []float64, n, h, w int) error {
	if n < 1 || h < 1 || w < 1 || len(v) != n*h*w {
		return fmt.Errorf("%s: binding %d values as %d images of %d×%d; pass a batch [N,H,W]", name, len(v), n, h, w)
	}
	return nil
}

func checkLens(name string, dst, theta int, wantDst, wantTheta int) error {
	if dst != wantDst || theta != wantTheta {
		return fmt.Errorf("%s: got %d output and %d parameter values, want %d and %d", name, dst, theta, wantDst, wantTheta)
	}
	return nil
}

// The adjoints below sum over the batch's images in image order, whatever
// the number of goroutines: they split the work across the outputs
// (pixels, coefficients), or add per-image results in image order (package
// ordered), never across images into per-goroutine partial sums. Their
// results depend on nothing but the data. A batch split into blocks gives
// the bits of the whole batch: PP's and PC's AddAdjoint calls continue the
// same dst in block order; PS, PC-k and npoly continue a running sum
// weighted once at the end (SummedBound, summed.go).

// ---- PS ----

type boundScalar struct {
	v []float64
	n int // images
}

// Bind implements Binder.
func (Scalar) Bind(v []float64, n, h, w int) (Bound, error) {
	if err := checkBatch("ps", v, n, h, w); err != nil {
		return nil, err
	}
	return &boundScalar{v: append([]float64(nil), v...), n: n}, nil
}

func (b *boundScalar) AddApply(dst, theta []float64, c float64) error {
	if err := checkLens("ps", len(dst), len(theta), len(b.v), 1); err != nil {
		return err
	}
	s := c * theta[0]
	kernels.ParallelFor(len(dst), func(lo, hi int) {
		v, d := b.v[lo:hi], dst[lo:hi]
		for i := range d {
			d[i] += s * v[i]
		}
	})
	return nil
}

// Rebind implements Rebinder.
func (b *boundScalar) Rebind(v []float64) error { return rebindCopy("ps", b.v, v) }

func (b *boundScalar) Bytes() int64 { return int64(8 * len(b.v)) }

// ---- PP ----

type boundPointwise struct {
	v  []float64
	hw int
}

// Bind implements Binder.
func (Pointwise) Bind(v []float64, n, h, w int) (Bound, error) {
	if err := checkBatch("pp", v, n, h, w); err != nil {
		return nil, err
	}
	return &boundPointwise{v: append([]float64(nil), v...), hw: h * w}, nil
}

func (b *boundPointwise) AddApply(dst, theta []float64, c float64) error {
	if err := checkLens("pp", len(dst), len(theta), len(b.v), b.hw); err != nil {
		return err
	}
	hw := b.hw
	kernels.ParallelFor(len(dst)/hw, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			v, d := b.v[n*hw:(n+1)*hw], dst[n*hw:(n+1)*hw]
			for i, t := range theta {
				d[i] += c * t * v[i]
			}
		}
	})
	return nil
}

func (b *boundPointwise) AddAdjoint(dst, r []float64, c float64) error {
	if err := checkLens("pp", len(r), len(dst), len(b.v), b.hw); err != nil {
		return err
	}
	hw := b.hw
	// Pixels [lo, hi) on each goroutine; every pixel adds its images in order.
	kernels.ParallelFor(hw, func(lo, hi int) {
		d := dst[lo:hi]
		for n := 0; n < len(r)/hw; n++ {
			v, rn := b.v[n*hw+lo:n*hw+hi], r[n*hw+lo:n*hw+hi]
			for i := range d {
				d[i] += c * v[i] * rn[i]
			}
		}
	})
	return nil
}

// Rebind implements Rebinder.
func (b *boundPointwise) Rebind(v []float64) error { return rebindCopy("pp", b.v, v) }

func (b *boundPointwise) Bytes() int64 { return int64(8 * len(b.v)) }

// ---- PC-k ----

type boundSmallConv struct {
	v    []float64
	conv kernels.Conv
	tmp  []float64
	tmpK []float64
}

// Bind implements Binder.
func (c SmallConv) Bind(v []float64, n, h, w int) (Bound, error) {
	if err := checkBatch(c.Name(), v, n, h, w); err != nil {
		return nil, err
	}
	kc := kernels.Conv{N: n, H: h, W: w, K: c.K, Boundary: c.Boundary}
	if err := kc.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name(), err)
	}
	return &boundSmallConv{v: append([]float64(nil), v...), conv: kc}, nil
}

func (b *boundSmallConv) AddApply(dst, theta []float64, c float64) error {
	if len(b.tmp) != len(b.v) {
		b.tmp = make([]float64, len(b.v))
	}
	if err := b.conv.Apply(b.tmp, b.v, theta); err != nil {
		return err
	}
	if len(dst) != len(b.tmp) {
		return fmt.Errorf("pc%d: output has %d values, want %d", b.conv.K, len(dst), len(b.tmp))
	}
	for i, t := range b.tmp {
		dst[i] += c * t
	}
	return nil
}

// Rebind implements Rebinder.
func (b *boundSmallConv) Rebind(v []float64) error {
	return rebindCopy(fmt.Sprintf("pc%d", b.conv.K), b.v, v)
}

func (b *boundSmallConv) Bytes() int64 { return int64(8 * (len(b.v) + len(b.tmp) + len(b.tmpK))) }

// ---- PC ----

type boundFullConv struct {
	n, h, w int
	pool    *kernels.FFTPool
	vs      []complex128 // spectra of v
	ts      []complex128 // c·spectrum of θ
}

// Bind implements Binder: the spectra of v are computed once.
func (c *FullConv) Bind(v []float64, n, h, w int) (Bound, error) {
	if err := checkBatch("pc", v, n, h, w); err != nil {
		return nil, err
	}
	pool := kernels.NewFFTPool(h, w)
	b := &boundFullConv{n: n, h: h, w: w, pool: pool, vs: make([]complex128, n*pool.SpectrumLen())}
	pool.Forward(b.vs, v)
	return b, nil
}

func (b *boundFullConv) SetSpectralParams(theta []float64, c float64) error {
	if len(theta) != b.h*b.w {
		return fmt.Errorf("pc: %d parameters, want %d (%d×%d)", len(theta), b.h*b.w, b.h, b.w)
	}
	sl := b.pool.SpectrumLen()
	if len(b.ts) != sl {
		b.ts = make([]complex128, sl)
	}
	b.pool.Run(1, func(w *kernels.FFTWorker, _, _ int) { w.Forward(b.ts, theta) })
	for i, t := range b.ts {
		b.ts[i] = complex(c*real(t), c*imag(t))
	}
	return nil
}

func (b *boundFullConv) AddSpectrum(dst []complex128, k int) {
	sl := len(b.ts)
	v := b.vs[k*sl : (k+1)*sl]
	dst = dst[:sl]
	for i, t := range b.ts {
		dst[i] += t * v[i]
	}
}

// AccumulateAdjoint adds conj(v̂_k)·r̂_k: ∇_θ⟨θ ⊛ v, r⟩ = F⁻¹(Σ_k conj(v̂_k)·r̂_k).
func (b *boundFullConv) AccumulateAdjoint(acc, rk []complex128, k int) {
	sl := b.pool.SpectrumLen()
	v := b.vs[k*sl : (k+1)*sl]
	acc, rk = acc[:sl], rk[:sl]
	for i, a := range v {
		z := rk[i]
		acc[i] += complex(real(a)*real(z)+imag(a)*imag(z), real(a)*imag(z)-imag(a)*real(z))
	}
}

func (b *boundFullConv) FinishAdjoint(dst []float64, acc []complex128, c float64) error {
	if len(dst) != b.h*b.w || len(acc) != b.pool.SpectrumLen() {
		return fmt.Errorf("pc: adjoint of %d values from %d spectral values, want %d and %d", len(dst), len(acc), b.h*b.w, b.pool.SpectrumLen())
	}
	b.pool.Run(1, func(w *kernels.FFTWorker, _, _ int) {
		w.Inverse(w.Image, acc)
		for i, v := range w.Image {
			dst[i] += c * v
		}
	})
	return nil
}

func (b *boundFullConv) AddApply(dst, theta []float64, c float64) error {
	hw := b.h * b.w
	if len(dst) != b.n*hw {
		return fmt.Errorf("pc: output has %d values, want %d", len(dst), b.n*hw)
	}
	if err := b.SetSpectralParams(theta, c); err != nil {
		return err
	}
	b.pool.Run(b.n, func(w *kernels.FFTWorker, lo, hi int) {
		for k := lo; k < hi; k++ {
			clear(w.Spectrum)
			b.AddSpectrum(w.Spectrum, k)
			w.Inverse(w.Image, w.Spectrum)
			d := dst[k*hw : (k+1)*hw]
			for i, v := range w.Image {
				d[i] += v
			}
		}
	})
	return nil
}

func (b *boundFullConv) AddAdjoint(dst, r []float64, c float64) error {
	hw := b.h * b.w
	if len(r) != b.n*hw {
		return fmt.Errorf("pc: adjoint argument has %d values, want %d", len(r), b.n*hw)
	}
	// The pool's workers (one per chunk) transform the images; their
	// products are added to total in image order.
	chunks := b.pool.Run(kernels.ParallelChunks(b.n, nil), func(*kernels.FFTWorker, int, int) {})
	total := b.pool.Worker(0).Accumulators(1)[0]
	sl := b.pool.SpectrumLen()
	sum := ordered.NewSum(func() *[]complex128 {
		s := make([]complex128, sl)
		return &s
	}, func(p *[]complex128) {
		for i, v := range *p {
			total[i] += v
		}
	})
	ordered.For(sum, b.n, chunks, func(w int, p *[]complex128, k int) {
		wk := b.pool.Worker(w)
		wk.Forward(wk.Spectrum, r[k*hw:(k+1)*hw])
		clear(*p)
		b.AccumulateAdjoint(*p, wk.Spectrum, k)
	})
	return b.FinishAdjoint(dst, total, c)
}

// Rebind implements Rebinder: the spectra of the new v, with the same plans.
func (b *boundFullConv) Rebind(v []float64) error {
	if len(v) != b.n*b.h*b.w {
		return fmt.Errorf("pc: rebinding %d values to a bound operator of %d", len(v), b.n*b.h*b.w)
	}
	b.pool.Forward(b.vs, v)
	return nil
}

func (b *boundFullConv) Bytes() int64 {
	return int64(16*(len(b.vs)+len(b.ts))) + b.pool.Bytes()
}
