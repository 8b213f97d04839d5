package kernels

import (
	"fmt"
	"math/cmplx"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
)

// FFT2 computes 2-D discrete Fourier transforms of real H×W images: real
// transforms along rows, then complex transforms along the W/2+1 kept columns.
// Spectra are stored row-major as [H, W/2+1] complex values. An FFT2 holds
// plans and scratch space: use one per goroutine.
type FFT2 struct {
	H, W     int
	rows     *fourier.FFT
	cols     *fourier.CmplxFFT
	colBuf   []complex128
	colOut   []complex128
	rowCoeff []complex128
	rowSeq   []float64
}

// NewFFT2 returns a transform for H×W images.
func NewFFT2(h, w int) *FFT2 {
	return &FFT2{
		H: h, W: w,
		rows:     fourier.NewFFT(w),
		cols:     fourier.NewCmplxFFT(h),
		colBuf:   make([]complex128, h),
		colOut:   make([]complex128, h),
		rowCoeff: make([]complex128, w/2+1),
		rowSeq:   make([]float64, w),
	}
}

// SpectrumLen is the number of complex values of one spectrum: H·(W/2+1).
func (f *FFT2) SpectrumLen() int { return f.H * (f.W/2 + 1) }

// Forward writes the spectrum of the real image x ([H,W]) into dst ([H, W/2+1]).
func (f *FFT2) Forward(dst []complex128, x []float64) {
	wc := f.W/2 + 1
	for i := 0; i < f.H; i++ {
		f.rows.Coefficients(dst[i*wc:(i+1)*wc], x[i*f.W:(i+1)*f.W])
	}
	for j := 0; j < wc; j++ {
		for i := 0; i < f.H; i++ {
			f.colBuf[i] = dst[i*wc+j]
		}
		f.cols.Coefficients(f.colOut, f.colBuf)
		for i := 0; i < f.H; i++ {
			dst[i*wc+j] = f.colOut[i]
		}
	}
}

// Inverse writes the real image x ([H,W]) whose spectrum is s, normalised so
// that Inverse(Forward(x)) = x. s is overwritten (used as scratch).
func (f *FFT2) Inverse(x []float64, s []complex128) {
	wc := f.W/2 + 1
	for j := 0; j < wc; j++ {
		for i := 0; i < f.H; i++ {
			f.colBuf[i] = s[i*wc+j]
		}
		f.cols.Sequence(f.colOut, f.colBuf)
		for i := 0; i < f.H; i++ {
			s[i*wc+j] = f.colOut[i]
		}
	}
	scale := 1 / float64(f.H*f.W)
	for i := 0; i < f.H; i++ {
		row := x[i*f.W : (i+1)*f.W]
		f.rows.Sequence(row, s[i*wc:(i+1)*wc])
		for j := range row {
			row[j] *= scale
		}
	}
}

// FFTConv is the circular convolution of every image of an [N,H,W] batch with
// one image-sized H×W kernel whose origin is at pixel (0,0):
//
//	y[n,i,j] = Σ_{u,v} k[u,v] · x[n, (i−u) mod H, (j−v) mod W]
//
// computed by FFT. The spectra of the most recent inputs are cached (compared
// by value), so repeated calls with a fixed operand transform it only once.
// An FFTConv is safe for concurrent use.
type FFTConv struct {
	N, H, W int

	mu    sync.Mutex
	plans []*FFT2
	cache [4]spectrumCacheEntry
	clock int
}

type spectrumCacheEntry struct {
	data []float64
	spec []complex128
	used int
}

// NewFFTConv returns the convolution for batches of N images of H×W.
func NewFFTConv(n, h, w int) (*FFTConv, error) {
	if n < 1 || h < 1 || w < 1 {
		return nil, fmt.Errorf("FFT convolution: batch %d×%d×%d must be positive", n, h, w)
	}
	return &FFTConv{N: n, H: h, W: w}, nil
}

func (c *FFTConv) plan() *FFT2 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k := len(c.plans); k > 0 {
		p := c.plans[k-1]
		c.plans = c.plans[:k-1]
		return p
	}
	return NewFFT2(c.H, c.W)
}

func (c *FFTConv) release(p *FFT2) {
	c.mu.Lock()
	c.plans = append(c.plans, p)
	c.mu.Unlock()
}

// spectra returns the spectra of the images in x (count images of H×W),
// from the cache when x equals a cached input. The result must not be modified.
func (c *FFTConv) spectra(x []float64, count int) []complex128 {
	c.mu.Lock()
	for i := range c.cache {
		e := &c.cache[i]
		if len(e.data) == len(x) && equalFloats(e.data, x) {
			c.clock++
			e.used = c.clock
			c.mu.Unlock()
			return e.spec
		}
	}
	c.mu.Unlock()
	sl := c.H * (c.W/2 + 1)
	hw := c.H * c.W
	spec := make([]complex128, count*sl)
	ParallelFor(count, func(lo, hi int) {
		p := c.plan()
		for n := lo; n < hi; n++ {
			p.Forward(spec[n*sl:(n+1)*sl], x[n*hw:(n+1)*hw])
		}
		c.release(p)
	})
	c.mu.Lock()
	oldest := 0
	for i := range c.cache {
		if c.cache[i].used < c.cache[oldest].used {
			oldest = i
		}
	}
	c.clock++
	c.cache[oldest] = spectrumCacheEntry{data: append([]float64(nil), x...), spec: spec, used: c.clock}
	c.mu.Unlock()
	return spec
}

func equalFloats(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (c *FFTConv) check(nk, nx, ny int) error {
	hw := c.H * c.W
	if nk != hw {
		return fmt.Errorf("FFT convolution: kernel has %d values, want %d (%d×%d)", nk, hw, c.H, c.W)
	}
	if nx != c.N*hw || ny != c.N*hw {
		return fmt.Errorf("FFT convolution: images have %d and %d values, want %d (N=%d, H=%d, W=%d)", nx, ny, c.N*hw, c.N, c.H, c.W)
	}
	return nil
}

// product computes out[n] = F⁻¹(op(a) · b[n]) for every image n, with op the
// identity or complex conjugation applied to the single spectrum a.
func (c *FFTConv) product(out []float64, a []complex128, b []complex128, conjA bool) {
	sl := c.H * (c.W/2 + 1)
	hw := c.H * c.W
	ParallelFor(c.N, func(lo, hi int) {
		p := c.plan()
		tmp := make([]complex128, sl)
		for n := lo; n < hi; n++ {
			bn := b[n*sl : (n+1)*sl]
			if conjA {
				for i := range tmp {
					tmp[i] = cmplx.Conj(a[i]) * bn[i]
				}
			} else {
				for i := range tmp {
					tmp[i] = a[i] * bn[i]
				}
			}
			p.Inverse(out[n*hw:(n+1)*hw], tmp)
		}
		c.release(p)
	})
}

// Apply computes y = k ⊛ x. y is overwritten.
func (c *FFTConv) Apply(y, k, x []float64) error {
	if err := c.check(len(k), len(x), len(y)); err != nil {
		return err
	}
	ks := c.spectra(k, 1)
	xs := c.spectra(x, c.N)
	c.product(y, ks, xs, false)
	return nil
}

// AdjointImage computes x = Kᵀ y, the adjoint of Apply in the images
// (a circular correlation with k). x is overwritten.
func (c *FFTConv) AdjointImage(x, k, y []float64) error {
	if err := c.check(len(k), len(x), len(y)); err != nil {
		return err
	}
	ks := c.spectra(k, 1)
	ys := c.spectra(y, c.N)
	c.product(x, ks, ys, true)
	return nil
}

// AdjointKernel computes the adjoint of Apply in the kernel:
// g[u,v] = Σ_{n,i,j} y[n,i,j] · x[n,(i−u) mod H,(j−v) mod W]. g is overwritten.
func (c *FFTConv) AdjointKernel(g, x, y []float64) error {
	if err := c.check(len(g), len(x), len(y)); err != nil {
		return err
	}
	xs := c.spectra(x, c.N)
	ys := c.spectra(y, c.N)
	sl := c.H * (c.W/2 + 1)
	acc := make([]complex128, sl)
	for n := 0; n < c.N; n++ {
		xn, yn := xs[n*sl:(n+1)*sl], ys[n*sl:(n+1)*sl]
		for i := range acc {
			acc[i] += cmplx.Conj(xn[i]) * yn[i]
		}
	}
	p := c.plan()
	p.Inverse(g, acc)
	c.release(p)
	return nil
}
