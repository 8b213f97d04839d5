package kernels

import (
	"fmt"
	"sync"
	"unsafe"
)

// FFT2T computes 2-D discrete Fourier transforms of real H×W images: real
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
//
// FFT2T is generic over the real type F; spectra are []Complex[F], which
// Complex128s and Complex64s make from []complex128 and []complex64 without
// copying. FFT2 is the float64 transform with a []complex128 interface.
type FFT2T[F Float] struct {
	H, W int

	wc     int          // W/2 + 1
	rowLen int          // complex length of the row transform: W/2 (W even) or W
	rb     int          // batch stride of the row pass: H, padded off multiples of 8
	rows   *cfftPlan[F] // length rowLen
	cols   *cfftPlan[F] // length H
	// half[k] = exp(−2πi·k/W), k ≤ W/2, for the even-W packing.
	half       []Complex[F]
	bufA, bufB []Complex[F]
}

// FFT2 is FFT2T[float64] with spectra stored as []complex128. The methods of
// the embedded FFT2T (on []Complex[float64]) are reached as f.FFT2T.Forward
// and f.FFT2T.Inverse.
type FFT2 struct {
	FFT2T[float64]
}

// NewFFT2 returns a float64 transform for H×W images; h and w must be at least 1.
func NewFFT2(h, w int) *FFT2 { return &FFT2{*NewFFT2T[float64](h, w)} }

// Forward writes the spectrum of the real image x ([H,W]) into dst ([H, W/2+1]).
func (f *FFT2) Forward(dst []complex128, x []float64) { f.FFT2T.Forward(Complex128s(dst), x) }

// Inverse writes the real image x ([H,W]) whose spectrum is s, normalised so
// that Inverse(Forward(x)) = x; see FFT2T.Inverse. s is overwritten.
func (f *FFT2) Inverse(x []float64, s []complex128) { f.FFT2T.Inverse(x, Complex128s(s)) }

// rowTile is the number of image rows transposed together.
const rowTile = 8

// NewFFT2T returns a transform for H×W images; h and w must be at least 1.
func NewFFT2T[F Float](h, w int) *FFT2T[F] {
	if h < 1 || w < 1 {
		panic(fmt.Sprintf("kernels: NewFFT2(%d, %d): image sizes must be at least 1", h, w))
	}
	f := &FFT2T[F]{H: h, W: w, wc: w/2 + 1, rowLen: w}
	if w%2 == 0 {
		f.rowLen = w / 2
		f.half = make([]Complex[F], f.wc)
		for k := range f.half {
			f.half[k] = toComplex[F](unitRoot(k, w))
		}
	}
	f.rows = newCFFTPlan[F](f.rowLen)
	f.cols = newCFFTPlan[F](h)
	f.rb = h
	if h%8 == 0 {
		// Keep the row pass's stage strides off powers of two (cache-set
		// conflicts); the padding lanes are transformed and ignored.
		f.rb = h + 2
	}
	size := max(h*f.wc, f.rb*f.rowLen)
	f.bufA = make([]Complex[F], size)
	f.bufB = make([]Complex[F], size)
	return f
}

// SpectrumLen is the number of complex values of one spectrum: H·(W/2+1).
func (f *FFT2T[F]) SpectrumLen() int { return f.H * (f.W/2 + 1) }

// Forward writes the spectrum of the real image x ([H,W]) into dst ([H, W/2+1]).
func (f *FFT2T[F]) Forward(dst []Complex[F], x []F) {
	h, w, wc := f.H, f.W, f.wc
	dst = dst[:h*wc]
	x = x[:h*w]
	// Row pass on the transposed layout [rowLen][H].
	a := f.bufA[:f.rowLen*f.rb]
	// The transpositions here and below work on tiles of rowTile rows so
	// that both sides stay in cache lines already loaded.
	if w%2 == 0 {
		packPairs(a, x, h, w, f.rb)
	} else {
		for i0 := 0; i0 < h; i0 += rowTile {
			i1 := min(i0+rowTile, h)
			for j := 0; j < w; j++ {
				aj := a[j*f.rb+i0 : j*f.rb+i1]
				for i := range aj {
					aj[i] = Complex[F]{x[(i0+i)*w+j], 0}
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

// packPairs writes a[k·rb + i] = x[i,2k] + i·x[i,2k+1] for the h×w image x
// (w even): the packing of Forward's row pass. The pairs are read as
// Complex[F] values (same memory layout), row by row; the writes of
// consecutive rows fall in the same cache lines of a. A function of its own,
// so that its loop gets the registers to itself.
//
//go:noinline
func packPairs[F Float](a []Complex[F], x []F, h, w, rb int) {
	n := w / 2
	if n == 0 {
		return
	}
	pairs := unsafe.Slice((*Complex[F])(unsafe.Pointer(&x[0])), h*n)
	for i := 0; i < h; i++ {
		j := i
		for _, v := range pairs[i*n : (i+1)*n] {
			a[j] = v
			j += rb
		}
	}
}

// unpackRows turns the n = W/2 point transforms Z of the packed rows
// z[m] = x[2m] + i·x[2m+1] (layout [n][H]) into the real-row spectra
// X[k] = E[k] + w^k·O[k], k ≤ n (layout [H][n+1]), where
// E[k] = (Z[k] + conj Z[n−k])/2 and O[k] = (Z[k] − conj Z[n−k])/(2i).
func (f *FFT2T[F]) unpackRows(t, z []Complex[F]) {
	// Untiled: both sides already move through memory sequentially enough,
	// and per-tile loop overhead costs more than it saves.
	f.unpackRowTile(t, z, 0, f.H)
}

func (f *FFT2T[F]) unpackRowTile(t, z []Complex[F], i0, i1 int) {
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
			er, ei := 0.5*(a.Re+b.Re), 0.5*(a.Im-b.Im)
			or, oi := 0.5*(a.Im+b.Im), 0.5*(b.Re-a.Re)
			t[i*wc+k] = Complex[F]{er + wk.Re*or - wk.Im*oi, ei + wk.Re*oi + wk.Im*or}
			// E[n−k] = conj E[k], O[n−k] = conj O[k].
			t[i*wc+n-k] = Complex[F]{er + wkc.Re*or + wkc.Im*oi, -ei - wkc.Re*oi + wkc.Im*or}
		}
	}
}

// Inverse writes the real image x ([H,W]) whose spectrum is s, normalised so
// that Inverse(Forward(x)) = x. s is overwritten (used as scratch). As for a
// 1-D real inverse transform, after the column pass the imaginary parts of
// the k = 0 column (and of the k = W/2 column for even W) are ignored.
func (f *FFT2T[F]) Inverse(x []F, s []Complex[F]) {
	h, w, wc := f.H, f.W, f.wc
	x = x[:h*w]
	c := f.cols.exec(s[:h*wc], f.bufA, wc, true)
	// Repack into the transposed layout [rowLen][H] in bufB.
	b := f.bufB[:f.rowLen*f.rb]
	scale := F(1 / float64(h*w))
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
						v = Complex[F]{v.Re, 0}
					}
					bk[i] = v
					if k > 0 {
						b[(w-k)*f.rb+i0+i] = cconj(v)
					}
				}
			}
		}
	}
	z := f.rows.exec(b, f.bufA, f.rb, true)
	if w%2 == 0 {
		unpackPairs(x, z, h, w, f.rb)
		return
	}
	for i0 := 0; i0 < h; i0 += rowTile {
		i1 := min(i0+rowTile, h)
		for j := 0; j < w; j++ {
			zj := z[j*f.rb+i0 : j*f.rb+i1]
			for i, v := range zj {
				x[(i0+i)*w+j] = v.Re * scale
			}
		}
	}
}

// unpackPairs is the transpose of packPairs: x[i,2k] + i·x[i,2k+1] =
// z[k·rb + i] for the h×w image x (w even).
//
//go:noinline
func unpackPairs[F Float](x []F, z []Complex[F], h, w, rb int) {
	n := w / 2
	if n == 0 {
		return
	}
	pairs := unsafe.Slice((*Complex[F])(unsafe.Pointer(&x[0])), h*n)
	for i := 0; i < h; i++ {
		j := i
		row := pairs[i*n : (i+1)*n]
		for k := range row {
			row[k] = z[j]
			j += rb
		}
	}
}

// packRows is the inverse of unpackRows, scaled: from the row spectra X
// (layout [H][n+1], imaginary parts of X[0] and X[n] ignored) it writes
// Z[k] = scale·2·(E[k] + i·O[k]) with 2E[k] = X[k] + conj X[n−k] and
// 2O[k] = (X[k] − conj X[n−k])·conj(w^k), layout [n][H].
func (f *FFT2T[F]) packRows(b, c []Complex[F], scale F) {
	f.packRowTile(b, c, 0, f.H, scale)
}

func (f *FFT2T[F]) packRowTile(b, c []Complex[F], i0, i1 int, scale F) {
	wc, n, rb := f.wc, f.rowLen, f.rb
	for k := 0; k <= n/2; k++ {
		kc := n - k
		wk, wkc := f.half[k], f.half[kc]
		bk := b[k*rb+i0 : k*rb+i1]
		var bc []Complex[F]
		if kc < n {
			bc = b[kc*rb+i0 : kc*rb+i1]
		}
		for i := range bk {
			a, d := c[i*wc+k], c[i*wc+kc]
			if k == 0 {
				a, d = Complex[F]{a.Re, 0}, Complex[F]{d.Re, 0}
			}
			// k: 2E = a + conj d, 2O = (a − conj d)·conj w^k.
			er, ei := a.Re+d.Re, a.Im-d.Im
			pr, pi := a.Re-d.Re, a.Im+d.Im
			or := pr*wk.Re + pi*wk.Im
			oi := pi*wk.Re - pr*wk.Im
			bk[i] = Complex[F]{scale * (er - oi), scale * (ei + or)}
			if bc != nil && kc != k {
				// n−k: 2E' = conj(2E), 2O' = (d − conj a)·conj w^{n−k}.
				qr, qi := d.Re-a.Re, d.Im+a.Im
				or2 := qr*wkc.Re + qi*wkc.Im
				oi2 := qi*wkc.Re - qr*wkc.Im
				bc[i] = Complex[F]{scale * (er - oi2), scale * (-ei + or2)}
			}
		}
	}
}

// FFTConvT is the circular convolution of every image of an [N,H,W] batch
// of element type F with one image-sized H×W kernel whose origin is at pixel
// (0,0):
//
//	y[n,i,j] = Σ_{u,v} k[u,v] · x[n, (i−u) mod H, (j−v) mod W]
//
// computed by FFT. The spectra of the most recent inputs are cached (compared
// by value), so repeated calls with a fixed operand transform it only once.
// An FFTConvT is safe for concurrent use.
type FFTConvT[F Float] struct {
	N, H, W int

	mu    sync.Mutex
	plans []*FFT2T[F]
	cache [4]spectrumCacheEntry[F]
	clock int
}

// FFTConv is the float64 convolution, FFTConvT[float64].
type FFTConv = FFTConvT[float64]

type spectrumCacheEntry[F Float] struct {
	data []F
	spec []Complex[F]
	used int
}

// NewFFTConv returns the float64 convolution for batches of N images of H×W.
func NewFFTConv(n, h, w int) (*FFTConv, error) { return NewFFTConvT[float64](n, h, w) }

// NewFFTConvT returns the convolution for batches of N images of H×W.
func NewFFTConvT[F Float](n, h, w int) (*FFTConvT[F], error) {
	if n < 1 || h < 1 || w < 1 {
		return nil, fmt.Errorf("FFT convolution: batch %d×%d×%d must be positive", n, h, w)
	}
	return &FFTConvT[F]{N: n, H: h, W: w}, nil
}

func (c *FFTConvT[F]) plan() *FFT2T[F] {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k := len(c.plans); k > 0 {
		p := c.plans[k-1]
		c.plans = c.plans[:k-1]
		return p
	}
	return NewFFT2T[F](c.H, c.W)
}

func (c *FFTConvT[F]) release(p *FFT2T[F]) {
	c.mu.Lock()
	c.plans = append(c.plans, p)
	c.mu.Unlock()
}

// spectra returns the spectra of the images in x (count images of H×W),
// from the cache when x equals a cached input. The result must not be modified.
func (c *FFTConvT[F]) spectra(x []F, count int) []Complex[F] {
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
	spec := make([]Complex[F], count*sl)
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
	c.cache[oldest] = spectrumCacheEntry[F]{data: append([]F(nil), x...), spec: spec, used: c.clock}
	c.mu.Unlock()
	return spec
}

func equalFloats[F Float](a, b []F) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (c *FFTConvT[F]) check(nk, nx, ny int) error {
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
func (c *FFTConvT[F]) product(out []F, a []Complex[F], b []Complex[F], conjA bool) {
	sl := c.H * (c.W/2 + 1)
	hw := c.H * c.W
	ParallelFor(c.N, func(lo, hi int) {
		p := c.plan()
		tmp := make([]Complex[F], sl)
		for n := lo; n < hi; n++ {
			bn := b[n*sl : (n+1)*sl]
			// The products of conj(a)·b and a·b as complex128 computes them.
			if conjA {
				for i := range tmp {
					u, v := a[i], bn[i]
					tmp[i] = Complex[F]{u.Re*v.Re - (-u.Im)*v.Im, u.Re*v.Im + (-u.Im)*v.Re}
				}
			} else {
				for i := range tmp {
					u, v := a[i], bn[i]
					tmp[i] = Complex[F]{u.Re*v.Re - u.Im*v.Im, u.Re*v.Im + u.Im*v.Re}
				}
			}
			p.Inverse(out[n*hw:(n+1)*hw], tmp)
		}
		c.release(p)
	})
}

// Apply computes y = k ⊛ x. y is overwritten.
func (c *FFTConvT[F]) Apply(y, k, x []F) error {
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
func (c *FFTConvT[F]) AdjointImage(x, k, y []F) error {
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
// The spectra of the images' products are summed in float64 and rounded to
// F once before the inverse transform.
func (c *FFTConvT[F]) AdjointKernel(g, x, y []F) error {
	if err := c.check(len(g), len(x), len(y)); err != nil {
		return err
	}
	xs := c.spectra(x, c.N)
	ys := c.spectra(y, c.N)
	sl := c.H * (c.W/2 + 1)
	acc := make([]Complex[float64], sl)
	for n := 0; n < c.N; n++ {
		xn, yn := xs[n*sl:(n+1)*sl], ys[n*sl:(n+1)*sl]
		for i := range acc {
			v := cmul(cconj(xn[i]), yn[i])
			acc[i].Re += float64(v.Re)
			acc[i].Im += float64(v.Im)
		}
	}
	spec := make([]Complex[F], sl)
	for i, v := range acc {
		spec[i] = Complex[F]{F(v.Re), F(v.Im)}
	}
	p := c.plan()
	p.Inverse(g, spec)
	c.release(p)
	return nil
}
