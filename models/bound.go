package models

import (
	"fmt"
	"runtime"
	"sync"

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

// SpectralBound is a Bound that acts on the 2-D spectra of the images
// (kernels.FFT2 layout, [N, H, W/2+1]): a circular convolution. Several
// spectral terms then share one inverse FFT per image for their sum, and one
// FFT per image of r for their adjoints.
type SpectralBound interface {
	Bound
	// AddSpectra adds c·(spectrum of G_θ v_k) to dst [N, H, W/2+1].
	AddSpectra(dst []complex128, theta []float64, c float64) error
	// AddAdjointSpectra adds c·∇_θ⟨G_θ v, r⟩ to dst given the spectra of r.
	AddAdjointSpectra(dst []float64, rSpectra []complex128, c float64) error
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

// partialSums runs body over [0, n) in parallel chunks, each writing its own
// accumulator of length m, and adds the chunk accumulators into dst in chunk
// order (deterministic for a given GOMAXPROCS).
func partialSums(dst []float64, n, m int, body func(acc []float64, lo, hi int)) {
	workers := max(1, min(runtime.GOMAXPROCS(0), n))
	chunk := (n + workers - 1) / workers
	parts := make([][]float64, (n+chunk-1)/chunk)
	kernels.ParallelFor(n, func(lo, hi int) {
		acc := make([]float64, m)
		body(acc, lo, hi)
		parts[lo/chunk] = acc
	})
	for _, p := range parts {
		for i, v := range p {
			dst[i] += v
		}
	}
}

// ---- PS ----

type boundScalar struct {
	v []float64
}

// Bind implements Binder.
func (Scalar) Bind(v []float64, n, h, w int) (Bound, error) {
	if err := checkBatch("ps", v, n, h, w); err != nil {
		return nil, err
	}
	return &boundScalar{v: append([]float64(nil), v...)}, nil
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

func (b *boundScalar) AddAdjoint(dst, r []float64, c float64) error {
	if err := checkLens("ps", len(r), len(dst), len(b.v), 1); err != nil {
		return err
	}
	var acc [1]float64
	partialSums(acc[:], len(r), 1, func(a []float64, lo, hi int) {
		a[0] = kernels.Dot(b.v[lo:hi], r[lo:hi])
	})
	dst[0] += c * acc[0]
	return nil
}

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
	partialSums(dst, len(r)/hw, hw, func(acc []float64, lo, hi int) {
		for n := lo; n < hi; n++ {
			v, rn := b.v[n*hw:(n+1)*hw], r[n*hw:(n+1)*hw]
			for i := range acc {
				acc[i] += c * v[i] * rn[i]
			}
		}
	})
	return nil
}

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

func (b *boundSmallConv) AddAdjoint(dst, r []float64, c float64) error {
	kk := b.conv.K * b.conv.K
	if len(b.tmpK) != kk {
		b.tmpK = make([]float64, kk)
	}
	if err := b.conv.AdjointKernel(b.tmpK, b.v, r); err != nil {
		return err
	}
	if len(dst) != kk {
		return fmt.Errorf("pc%d: gradient has %d values, want %d", b.conv.K, len(dst), kk)
	}
	for i, t := range b.tmpK {
		dst[i] += c * t
	}
	return nil
}

func (b *boundSmallConv) Bytes() int64 { return int64(8 * (len(b.v) + len(b.tmp) + len(b.tmpK))) }

// ---- PC ----

// FFTPool hands out kernels.FFT2 plans (which hold scratch space) to
// concurrent workers for one image size.
type FFTPool struct {
	H, W  int
	mu    sync.Mutex
	plans []*fftPlan
}

// fftPlan is a transform with an image of scratch space.
type fftPlan struct {
	*kernels.FFT2
	img []float64
}

// NewFFTPool returns a pool of plans for h×w images.
func NewFFTPool(h, w int) *FFTPool { return &FFTPool{H: h, W: w} }

// SpectrumLen is the number of complex values of one spectrum, H·(W/2+1).
func (p *FFTPool) SpectrumLen() int { return p.H * (p.W/2 + 1) }

func (p *FFTPool) get() *fftPlan {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.plans); k > 0 {
		f := p.plans[k-1]
		p.plans = p.plans[:k-1]
		return f
	}
	return &fftPlan{FFT2: kernels.NewFFT2(p.H, p.W), img: make([]float64, p.H*p.W)}
}

func (p *FFTPool) put(f *fftPlan) {
	p.mu.Lock()
	p.plans = append(p.plans, f)
	p.mu.Unlock()
}

// Forward writes the spectra of the images of x [N,H,W] into dst [N,H,W/2+1],
// in parallel.
func (p *FFTPool) Forward(dst []complex128, x []float64) {
	hw, sl := p.H*p.W, p.SpectrumLen()
	kernels.ParallelFor(len(x)/hw, func(lo, hi int) {
		f := p.get()
		for n := lo; n < hi; n++ {
			f.Forward(dst[n*sl:(n+1)*sl], x[n*hw:(n+1)*hw])
		}
		p.put(f)
	})
}

// InverseAdd adds the images whose spectra are s [N,H,W/2+1] to dst [N,H,W]
// (to base, if base is not nil, writing the sum into dst). s is overwritten.
func (p *FFTPool) InverseAdd(dst, base []float64, s []complex128) {
	hw, sl := p.H*p.W, p.SpectrumLen()
	kernels.ParallelFor(len(dst)/hw, func(lo, hi int) {
		f := p.get()
		img := f.img
		for n := lo; n < hi; n++ {
			f.Inverse(img, s[n*sl:(n+1)*sl])
			d := dst[n*hw : (n+1)*hw]
			if base != nil {
				b := base[n*hw : (n+1)*hw]
				for i, v := range img {
					d[i] = b[i] + v
				}
			} else {
				for i, v := range img {
					d[i] += v
				}
			}
		}
		p.put(f)
	})
}

type boundFullConv struct {
	n, h, w int
	pool    *FFTPool
	vs      []complex128 // spectra of v
	ts      []complex128 // spectrum of θ
	gs      []complex128 // accumulated adjoint spectrum
	spec    []complex128 // scratch spectra for the spatial path
	img     []float64
}

// Bind implements Binder: the spectra of v are computed once.
func (c *FullConv) Bind(v []float64, n, h, w int) (Bound, error) {
	if err := checkBatch("pc", v, n, h, w); err != nil {
		return nil, err
	}
	pool := NewFFTPool(h, w)
	b := &boundFullConv{n: n, h: h, w: w, pool: pool, vs: make([]complex128, n*pool.SpectrumLen())}
	pool.Forward(b.vs, v)
	return b, nil
}

func (b *boundFullConv) thetaSpectrum(theta []float64) {
	sl := b.pool.SpectrumLen()
	if len(b.ts) != sl {
		b.ts = make([]complex128, sl)
	}
	f := b.pool.get()
	f.Forward(b.ts, theta)
	b.pool.put(f)
}

func (b *boundFullConv) AddSpectra(dst []complex128, theta []float64, c float64) error {
	if err := checkLens("pc", len(dst), len(theta), len(b.vs), b.h*b.w); err != nil {
		return err
	}
	b.thetaSpectrum(theta)
	sl := b.pool.SpectrumLen()
	for i, t := range b.ts {
		b.ts[i] = complex(c*real(t), c*imag(t))
	}
	kernels.ParallelFor(b.n, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			v, d := b.vs[n*sl:(n+1)*sl], dst[n*sl:(n+1)*sl]
			for i, t := range b.ts {
				d[i] += t * v[i]
			}
		}
	})
	return nil
}

func (b *boundFullConv) AddAdjointSpectra(dst []float64, rs []complex128, c float64) error {
	if err := checkLens("pc", len(rs), len(dst), len(b.vs), b.h*b.w); err != nil {
		return err
	}
	sl := b.pool.SpectrumLen()
	if len(b.gs) != sl {
		b.gs = make([]complex128, sl)
	}
	// Σ_k conj(v̂_k)·r̂_k, split over frequencies.
	kernels.ParallelFor(sl, func(lo, hi int) {
		g := b.gs[lo:hi]
		clear(g)
		for n := 0; n < b.n; n++ {
			v, r := b.vs[n*sl+lo:n*sl+hi], rs[n*sl+lo:n*sl+hi]
			for i := range g {
				a, z := v[i], r[i]
				g[i] += complex(real(a)*real(z)+imag(a)*imag(z), real(a)*imag(z)-imag(a)*real(z))
			}
		}
	})
	if len(b.img) != b.h*b.w {
		b.img = make([]float64, b.h*b.w)
	}
	f := b.pool.get()
	f.Inverse(b.img, b.gs)
	b.pool.put(f)
	for i, v := range b.img {
		dst[i] += c * v
	}
	return nil
}

func (b *boundFullConv) AddApply(dst, theta []float64, c float64) error {
	if len(b.spec) != len(b.vs) {
		b.spec = make([]complex128, len(b.vs))
	}
	clear(b.spec)
	if err := b.AddSpectra(b.spec, theta, c); err != nil {
		return err
	}
	if len(dst) != b.n*b.h*b.w {
		return fmt.Errorf("pc: output has %d values, want %d", len(dst), b.n*b.h*b.w)
	}
	b.pool.InverseAdd(dst, nil, b.spec)
	return nil
}

func (b *boundFullConv) AddAdjoint(dst, r []float64, c float64) error {
	if len(r) != b.n*b.h*b.w {
		return fmt.Errorf("pc: adjoint argument has %d values, want %d", len(r), b.n*b.h*b.w)
	}
	if len(b.spec) != len(b.vs) {
		b.spec = make([]complex128, len(b.vs))
	}
	b.pool.Forward(b.spec, r)
	return b.AddAdjointSpectra(dst, b.spec, c)
}

func (b *boundFullConv) Bytes() int64 {
	return int64(16*(len(b.vs)+len(b.ts)+len(b.gs)+len(b.spec)) + 8*len(b.img))
}
