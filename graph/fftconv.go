package graph

import (
	"bytes"
	"fmt"
	"math/cmplx"
	"sync"
	"unsafe"
	"weak"

	"github.com/greedyl2o/greedyl2o/kernels"
	"gorgonia.org/tensor"
)

// FFTConv is the bilinear map (k, x) ↦ k ⊛ x of an image-sized kernel (origin
// at pixel (0,0)) with a batch of images, circular, computed by FFT:
//
//	y[n,i,j] = Σ_{u,v} k[u,v] · x[n, (i−u) mod H, (j−v) mod W].
//
// The spectra of image batches are cached, compared bit for bit, in a cache
// shared by all FFTConv maps alive that see batches of the same size: an
// operand that several maps use (the output gradient of two convolution
// terms, a fixed operand of the forward and the backward pass) is
// transformed once while it does not change. Kernel spectra (one FFT) are
// not cached. The arithmetic is that of kernels.FFTConv, bit for bit.
// An FFTConv is safe for concurrent use.
type FFTConv struct {
	mu     sync.Mutex
	caches map[[3]int]*spectra // strong references to the shared caches
	id     string
}

var fftConvCount struct {
	sync.Mutex
	n int
}

// NewFFTConv returns an FFT convolution map. Each map is a distinct graph
// operation (gorgonia does not merge nodes of different maps).
func NewFFTConv() *FFTConv {
	fftConvCount.Lock()
	fftConvCount.n++
	id := fmt.Sprintf("fftconv#%d", fftConvCount.n)
	fftConvCount.Unlock()
	return &FFTConv{caches: map[[3]int]*spectra{}, id: id}
}

func (c *FFTConv) String() string { return c.id }

// cache returns the shared spectrum cache for the shapes, checking them.
func (c *FFTConv) cache(sa, sb tensor.Shape) (*spectra, error) {
	n, h, w, err := imageBatch(sb)
	if err != nil {
		return nil, err
	}
	if sa.Dims() != 2 || sa[0] != h || sa[1] != w {
		return nil, fmt.Errorf("kernel shape %v must equal the image size %d×%d", sa, h, w)
	}
	key := [3]int{n, h, w}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.caches[key]; s != nil {
		return s, nil
	}
	s := sharedSpectra(key)
	c.caches[key] = s
	return s, nil
}

// OutShape implements BilinearMap.
func (c *FFTConv) OutShape(sa, sb tensor.Shape) (tensor.Shape, error) {
	if _, err := c.cache(sa, sb); err != nil {
		return nil, err
	}
	return sb.Clone(), nil
}

// Apply implements BilinearMap: dst = a ⊛ b.
func (c *FFTConv) Apply(dst, a, b []float64, sa, sb tensor.Shape) error {
	s, err := c.cache(sa, sb)
	if err != nil {
		return err
	}
	if err := s.check(len(a), len(b), len(dst)); err != nil {
		return err
	}
	return s.product(dst, a, b, false)
}

// AdjointA implements BilinearMap: the adjoint in the kernel,
// dst[u,v] = Σ_{n,i,j} out[n,i,j] · b[n,(i−u) mod H,(j−v) mod W].
func (c *FFTConv) AdjointA(dst, out, b []float64, sa, sb tensor.Shape) error {
	s, err := c.cache(sa, sb)
	if err != nil {
		return err
	}
	if err := s.check(len(dst), len(b), len(out)); err != nil {
		return err
	}
	return s.adjointKernel(dst, b, out)
}

// AdjointB implements BilinearMap: the adjoint in the images, a circular
// correlation of out with a.
func (c *FFTConv) AdjointB(dst, a, out []float64, sa, sb tensor.Shape) error {
	s, err := c.cache(sa, sb)
	if err != nil {
		return err
	}
	if err := s.check(len(a), len(dst), len(out)); err != nil {
		return err
	}
	return s.product(dst, a, out, true)
}

// The shared caches, one per batch size, held weakly: a cache lives while
// an FFTConv map that uses it does.
var shared struct {
	sync.Mutex
	m map[[3]int]weak.Pointer[spectra]
}

func sharedSpectra(key [3]int) *spectra {
	shared.Lock()
	defer shared.Unlock()
	if s := shared.m[key].Value(); s != nil {
		return s
	}
	if shared.m == nil {
		shared.m = map[[3]int]weak.Pointer[spectra]{}
	}
	s := &spectra{n: key[0], h: key[1], w: key[2]}
	s.hw, s.sl = s.h*s.w, s.h*(s.w/2+1)
	shared.m[key] = weak.Make(s)
	return s
}

// spectraEntries is the number of batch spectra a cache keeps.
const spectraEntries = 6

// spectra caches the spectra of batches of n images of h×w (least recently
// used out first) and holds FFT plans with scratch space.
type spectra struct {
	n, h, w, hw, sl int

	mu      sync.Mutex
	plans   []*fftPlan
	entries []*spectraEntry
	clock   int
}

// spectraEntry is one cached batch: data (a copy of the input; empty while
// the spectra are computed) and its spectra. refs counts the users of spec:
// an entry in use is not overwritten.
type spectraEntry struct {
	buf  []float64
	data []float64
	spec []complex128
	used int
	refs int
}

// fftPlan is a transform with two scratch spectra.
type fftPlan struct {
	f       *kernels.FFT2
	tmp, ks []complex128
}

func (s *spectra) check(nk, nx, ny int) error {
	if nk != s.hw {
		return fmt.Errorf("FFT convolution: kernel has %d values, want %d (%d×%d)", nk, s.hw, s.h, s.w)
	}
	if nx != s.n*s.hw || ny != s.n*s.hw {
		return fmt.Errorf("FFT convolution: images have %d and %d values, want %d (N=%d, H=%d, W=%d)", nx, ny, s.n*s.hw, s.n, s.h, s.w)
	}
	return nil
}

func (s *spectra) plan() *fftPlan {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k := len(s.plans); k > 0 {
		p := s.plans[k-1]
		s.plans = s.plans[:k-1]
		return p
	}
	return &fftPlan{f: kernels.NewFFT2(s.h, s.w), tmp: make([]complex128, s.sl), ks: make([]complex128, s.sl)}
}

func (s *spectra) release(p *fftPlan) {
	s.mu.Lock()
	s.plans = append(s.plans, p)
	s.mu.Unlock()
}

// batch returns the entry with the spectra of the batch x, from the cache
// when x equals a cached batch. Call done with the entry when finished.
func (s *spectra) batch(x []float64) *spectraEntry {
	s.mu.Lock()
	s.clock++
	for _, e := range s.entries {
		if len(e.data) == len(x) && sameBits(e.data, x) {
			e.used, e.refs = s.clock, e.refs+1
			s.mu.Unlock()
			return e
		}
	}
	// A miss: reuse the least recently used entry that nobody holds, or
	// add one.
	var e *spectraEntry
	for _, c := range s.entries {
		if c.refs == 0 && (e == nil || c.used < e.used) {
			e = c
		}
	}
	if e == nil || len(s.entries) < spectraEntries {
		e = &spectraEntry{buf: make([]float64, len(x)), spec: make([]complex128, s.n*s.sl)}
		if len(s.entries) < spectraEntries {
			s.entries = append(s.entries, e)
		}
	}
	e.data = e.buf[:0] // invalid while computing
	e.used, e.refs = s.clock, e.refs+1
	s.mu.Unlock()

	kernels.ParallelFor(s.n, func(lo, hi int) {
		p := s.plan()
		for k := lo; k < hi; k++ {
			p.f.Forward(e.spec[k*s.sl:(k+1)*s.sl], x[k*s.hw:(k+1)*s.hw])
		}
		s.release(p)
	})
	copy(e.buf, x)
	s.mu.Lock()
	e.data = e.buf
	s.mu.Unlock()
	return e
}

// done releases an entry returned by batch.
func (s *spectra) done(e *spectraEntry) {
	s.mu.Lock()
	e.refs--
	s.mu.Unlock()
}

// sameBits reports whether a and b hold the same bits (so that their
// spectra are the same; ±0 differ, a NaN equals itself), comparing memory
// with the runtime's vectorised comparison.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 8*len(a)), unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), 8*len(b)))
}

// product writes out[n] = F⁻¹(op(K) · X[n]) for every image n, with K the
// spectrum of the kernel k, X those of the batch x, and op the identity or
// complex conjugation: the convolution k ⊛ x, or the correlation.
func (s *spectra) product(out, k, x []float64, conj bool) error {
	kp := s.plan()
	defer s.release(kp)
	ks := kp.ks
	kp.f.Forward(ks, k)
	e := s.batch(x)
	defer s.done(e)
	kernels.ParallelFor(s.n, func(lo, hi int) {
		p := s.plan()
		tmp := p.tmp
		for n := lo; n < hi; n++ {
			bn := e.spec[n*s.sl : (n+1)*s.sl]
			if conj {
				for i := range tmp {
					tmp[i] = cmplx.Conj(ks[i]) * bn[i]
				}
			} else {
				for i := range tmp {
					tmp[i] = ks[i] * bn[i]
				}
			}
			p.f.Inverse(out[n*s.hw:(n+1)*s.hw], tmp)
		}
		s.release(p)
	})
	return nil
}

// adjointKernel writes g[u,v] = Σ_{n,i,j} y[n,i,j] · x[n,(i−u) mod H,(j−v) mod W].
func (s *spectra) adjointKernel(g, x, y []float64) error {
	ex := s.batch(x)
	defer s.done(ex)
	ey := s.batch(y)
	defer s.done(ey)
	p := s.plan()
	defer s.release(p)
	acc := p.tmp
	clear(acc)
	for n := 0; n < s.n; n++ {
		xn, yn := ex.spec[n*s.sl:(n+1)*s.sl], ey.spec[n*s.sl:(n+1)*s.sl]
		for i := range acc {
			acc[i] += cmplx.Conj(xn[i]) * yn[i]
		}
	}
	p.f.Inverse(g, acc)
	return nil
}
