package kernels

import (
	"fmt"
	"math/cmplx"
	"sync"
)

// FFT2 computes 2-D discrete Fourier transforms of real H×W images: real
// transforms along rows, then complex transforms along the W/2+1 kept columns.
// Spectra are stored row-major as [H, W/2+1] complex values,
//
//	S[u,k] = Σ_{i,j} x[i,j] · exp(−2πi·(u·i/H + k·j/W)),  0 ≤ k ≤ W/2.
//
// An FFT2 holds plans and scratch space: use one per goroutine.
//
// Both passes are batched mixed-radix Stockham transforms (see cfftPlan): the
// row pass transforms all rows at once (for even W as W/2-point complex
// transforms of the packed pairs x[i,2k] + i·x[i,2k+1]), the column pass all
// W/2+1 columns at once, so the inner loops run over contiguous memory.
// Forward and Inverse do not allocate.
type FFT2 struct {
	H, W int

	wc     int       // W/2 + 1
	rowLen int       // complex length of the row transform: W/2 (W even) or W
	rb     int       // batch stride of the row pass: H, padded off multiples of 8
	rows   *cfftPlan // length rowLen
	cols   *cfftPlan // length H
	// half[k] = exp(−2πi·k/W), k ≤ W/2, for the even-W packing.
	half       []complex128
	bufA, bufB []complex128
}

// rowTile is the number of image rows transposed together.
const rowTile = 8

// NewFFT2 returns a transform for H×W images; h and w must be at least 1.
func NewFFT2(h, w int) *FFT2 {
	if h < 1 || w < 1 {
		panic(fmt.Sprintf("kernels: NewFFT2(%d, %d): image sizes must be at least 1", h, w))
	}
	f := &FFT2{H: h, W: w, wc: w/2 + 1, rowLen: w}
	if w%2 == 0 {
		f.rowLen = w / 2
		f.half = make([]complex128, f.wc)
		for k := range f.half {
			f.half[k] = unitRoot(k, w)
		}
	}
	f.rows = newCFFTPlan(f.rowLen)
	f.cols = newCFFTPlan(h)
	f.rb = h
	if h%8 == 0 {
		// Keep the row pass's stage strides off powers of two (cache-set
		// conflicts); the padding lanes are transformed and ignored.
		f.rb = h + 2
	}
	size := max(h*f.wc, f.rb*f.rowLen)
	f.bufA = make([]complex128, size)
	f.bufB = make([]complex128, size)
	return f
}

// SpectrumLen is the number of complex values of one spectrum: H·(W/2+1).
func (f *FFT2) SpectrumLen() int { return f.H * (f.W/2 + 1) }

// Forward writes the spectrum of the real image x ([H,W]) into dst ([H, W/2+1]).
func (f *FFT2) Forward(dst []complex128, x []float64) {
	h, w, wc := f.H, f.W, f.wc
	dst = dst[:h*wc]
	x = x[:h*w]
	// Row pass on the transposed layout [rowLen][H].
	a := f.bufA[:f.rowLen*f.rb]
	// The transpositions here and below work on tiles of rowTile rows so
	// that both sides stay in cache lines already loaded.
	for i0 := 0; i0 < h; i0 += rowTile {
		i1 := min(i0+rowTile, h)
		if w%2 == 0 {
			for k := 0; k < f.rowLen; k++ {
				ak := a[k*f.rb+i0 : k*f.rb+i1]
				for i := range ak {
					ak[i] = complex(x[(i0+i)*w+2*k], x[(i0+i)*w+2*k+1])
				}
			}
		} else {
			for j := 0; j < w; j++ {
				aj := a[j*f.rb+i0 : j*f.rb+i1]
				for i := range aj {
					aj[i] = complex(x[(i0+i)*w+j], 0)
				}
			}
		}
	}
	z := f.rows.exec(a, f.bufB, f.rb, false)
	// Unpack into [H][wc] layout, into the buffer from which the column pass
	// ends in dst.
	t, other := dst, f.bufA
	if f.cols.numStages()%2 == 1 {
		t, other = f.bufA, dst
		if &z[0] == &f.bufA[0] {
			t = f.bufB
		}
	}
	t = t[:h*wc]
	if w%2 == 0 {
		f.unpackRows(t, z)
	} else {
		for i0 := 0; i0 < h; i0 += rowTile {
			i1 := min(i0+rowTile, h)
			for k := 0; k < wc; k++ {
				zk := z[k*f.rb+i0 : k*f.rb+i1]
				for i, v := range zk {
					t[(i0+i)*wc+k] = v
				}
			}
		}
	}
	f.cols.exec(t, other, wc, false)
}

// unpackRows turns the n = W/2 point transforms Z of the packed rows
// z[m] = x[2m] + i·x[2m+1] (layout [n][H]) into the real-row spectra
// X[k] = E[k] + w^k·O[k], k ≤ n (layout [H][n+1]), where
// E[k] = (Z[k] + conj Z[n−k])/2 and O[k] = (Z[k] − conj Z[n−k])/(2i).
func (f *FFT2) unpackRows(t, z []complex128) {
	// Untiled: both sides already move through memory sequentially enough,
	// and per-tile loop overhead costs more than it saves.
	f.unpackRowTile(t, z, 0, f.H)
}

func (f *FFT2) unpackRowTile(t, z []complex128, i0, i1 int) {
	wc, n, rb := f.wc, f.rowLen, f.rb
	for k := 0; k <= n/2; k++ {
		kc := (n - k) % n
		zk := z[k*rb+i0 : k*rb+i1]
		zc := z[kc*rb+i0 : kc*rb+i1][:len(zk)]
		wk, wkc := f.half[k], f.half[n-k]
		for i, a := range zk {
			b := zc[i]
			// For k and for n−k: X[k] = E + w^k·O with
			// 2E = a + conj b, 2O = −i·(a − conj b).
			er, ei := 0.5*(real(a)+real(b)), 0.5*(imag(a)-imag(b))
			or, oi := 0.5*(imag(a)+imag(b)), 0.5*(real(b)-real(a))
			t[i*wc+k] = complex(er+real(wk)*or-imag(wk)*oi, ei+real(wk)*oi+imag(wk)*or)
			// E[n−k] = conj E[k], O[n−k] = conj O[k].
			t[i*wc+n-k] = complex(er+real(wkc)*or+imag(wkc)*oi, -ei-real(wkc)*oi+imag(wkc)*or)
		}
	}
}

// Inverse writes the real image x ([H,W]) whose spectrum is s, normalised so
// that Inverse(Forward(x)) = x. s is overwritten (used as scratch). As for a
// 1-D real inverse transform, after the column pass the imaginary parts of
// the k = 0 column (and of the k = W/2 column for even W) are ignored.
func (f *FFT2) Inverse(x []float64, s []complex128) {
	h, w, wc := f.H, f.W, f.wc
	x = x[:h*w]
	c := f.cols.exec(s[:h*wc], f.bufA, wc, true)
	// Repack into the transposed layout [rowLen][H] in bufB.
	b := f.bufB[:f.rowLen*f.rb]
	scale := 1 / float64(h*w)
	if w%2 == 0 {
		f.packRows(b, c, scale)
	} else {
		for i0 := 0; i0 < h; i0 += rowTile {
			i1 := min(i0+rowTile, h)
			for k := 0; k < wc; k++ {
				bk := b[k*f.rb+i0 : k*f.rb+i1]
				for i := range bk {
					v := c[(i0+i)*wc+k]
					if k == 0 {
						v = complex(real(v), 0)
					}
					bk[i] = v
					if k > 0 {
						b[(w-k)*f.rb+i0+i] = conj(v)
					}
				}
			}
		}
	}
	z := f.rows.exec(b, f.bufA, f.rb, true)
	for i0 := 0; i0 < h; i0 += rowTile {
		i1 := min(i0+rowTile, h)
		if w%2 == 0 {
			for k := 0; k < f.rowLen; k++ {
				zk := z[k*f.rb+i0 : k*f.rb+i1]
				for i, v := range zk {
					x[(i0+i)*w+2*k] = real(v)
					x[(i0+i)*w+2*k+1] = imag(v)
				}
			}
		} else {
			for j := 0; j < w; j++ {
				zj := z[j*f.rb+i0 : j*f.rb+i1]
				for i, v := range zj {
					x[(i0+i)*w+j] = real(v) * scale
				}
			}
		}
	}
}

// packRows is the inverse of unpackRows, scaled: from the row spectra X
// (layout [H][n+1], imaginary parts of X[0] and X[n] ignored) it writes
// Z[k] = scale·2·(E[k] + i·O[k]) with 2E[k] = X[k] + conj X[n−k] and
// 2O[k] = (X[k] − conj X[n−k])·conj(w^k), layout [n][H].
func (f *FFT2) packRows(b, c []complex128, scale float64) {
	f.packRowTile(b, c, 0, f.H, scale)
}

func (f *FFT2) packRowTile(b, c []complex128, i0, i1 int, scale float64) {
	wc, n, rb := f.wc, f.rowLen, f.rb
	for k := 0; k <= n/2; k++ {
		kc := n - k
		wk, wkc := f.half[k], f.half[kc]
		bk := b[k*rb+i0 : k*rb+i1]
		var bc []complex128
		if kc < n {
			bc = b[kc*rb+i0 : kc*rb+i1]
		}
		for i := range bk {
			a, d := c[i*wc+k], c[i*wc+kc]
			if k == 0 {
				a, d = complex(real(a), 0), complex(real(d), 0)
			}
			// k: 2E = a + conj d, 2O = (a − conj d)·conj w^k.
			er, ei := real(a)+real(d), imag(a)-imag(d)
			pr, pi := real(a)-real(d), imag(a)+imag(d)
			or := pr*real(wk) + pi*imag(wk)
			oi := pi*real(wk) - pr*imag(wk)
			bk[i] = complex(scale*(er-oi), scale*(ei+or))
			if bc != nil && kc != k {
				// n−k: 2E' = conj(2E), 2O' = (d − conj a)·conj w^{n−k}.
				qr, qi := real(d)-real(a), imag(d)+imag(a)
				or2 := qr*real(wkc) + qi*imag(wkc)
				oi2 := qi*real(wkc) - qr*imag(wkc)
				bc[i] = complex(scale*(er-oi2), scale*(-ei+or2))
			}
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
