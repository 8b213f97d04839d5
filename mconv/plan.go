package mconv

import (
	"fmt"
	"math"
	"sync"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// Method selects how a Plan computes its correlations.
type Method int

const (
	// Auto picks the cheaper of Direct and FFT for the layer by a cost
	// model (see NewPlan).
	Auto Method = iota
	// Direct uses the row kernels of Forward and AdjointInput.
	Direct
	// FFT multiplies spectra of zero-padded images and filters.
	FFT
)

// String returns "auto", "direct" or "fft".
func (m Method) String() string {
	switch m {
	case Auto:
		return "auto"
	case Direct:
		return "direct"
	case FFT:
		return "fft"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Plan is one convolution layer (no bias) with fixed filters, prepared for
// repeated application to batches of H×W images: Forward and AdjointInput
// compute the same maps as the package functions of the same names.
//
// With the FFT method every image is zero-padded to P×Q, where P ≥ H + K/2
// and Q ≥ W + K/2 are the next sizes with prime factors 2, 3 and 5 only
// (Q even), so that the circular correlation on the padded grid equals the
// zero-padded correlation on the kept H×W part. The spectra of the Cout·Cin
// filters are computed once by NewPlan. A call transforms the Cin input
// planes of each image (package kernels' real 2-D FFT), accumulates
// Σ_c Ŵ[o,c]·X̂[c] per frequency in tiles that keep the filter spectra in
// cache while a group of images is swept, and inverse-transforms and crops
// the Cout outputs. AdjointInput does the same with conj(Ŵ) and the channel
// roles swapped, so it is the exact transpose up to rounding.
//
// A Plan copies the filters and is safe for concurrent use.
type Plan struct {
	s      Shape // N = 1
	w      []float64
	method Method

	ph, pw  int // padded sizes P, Q
	specLen int // P·(Q/2+1)
	// spec holds the spectra of the wrapped, flipped filters, tile-major so
	// that one product tile reads contiguous memory: the frequencies
	// [f0, f0+T) of filter k = o·Cin + c are at spec[Cout·Cin·f0 + k·T:][:T].
	spec []complex128
	tile int // frequencies per product tile (the last tile may be shorter)

	mu      sync.Mutex
	workers []*fftWorker
	chunks  [][]complex128
}

// fftWorker is the per-goroutine state of the FFT path.
type fftWorker struct {
	f        *kernels.FFT2
	padIn    []float64 // P×Q; zero outside the top-left H×W block
	padOut   []float64 // P×Q
	inFilled bool      // padIn's border has been zeroed
}

// Cost model constants, in nanoseconds of CPU time, measured on the
// development machine (Intel Xeon, Go 1.26): a direct multiply-add (wcrr's
// 8→60 layer), one complex multiply-add of the spectral product, and the
// 2-D FFT cost per point and log₂ of the size (a 100×100 transform takes
// about 160 µs; forward and inverse cost about the same).
const (
	costDirectMAC = 0.62
	costSpecMAC   = 2.7
	costFFTPoint  = 1.2
)

// NewPlan prepares the layer with filters w ([Cout][Cin][K][K], copied) for
// images of s.H×s.W; s.N is ignored (the batch size is given per call).
// With method Auto the FFT path is used when its estimated cost per image,
//
//	(Cin+Cout)·P·Q·log₂(P·Q)·a + Cin·Cout·P·(Q/2+1)·b,
//
// is below the direct cost Cin·Cout·H·W·K²·c (constants a, b, c measured on
// the development machine); computing the filter spectra is a one-off cost
// not counted here.
func NewPlan(w []float64, s Shape, method Method) (*Plan, error) {
	s.N = 1
	if err := check(s, lenCheck{"w", len(w), s.WeightLen()}); err != nil {
		return nil, fmt.Errorf("mconv.NewPlan: %w", err)
	}
	if method < Auto || method > FFT {
		return nil, fmt.Errorf("mconv.NewPlan: method %v, want Auto, Direct or FFT", method)
	}
	p := &Plan{s: s, w: append([]float64(nil), w...), method: method}
	pad := s.K / 2
	// P ≥ H + K/2 avoids wrap-around into the kept block, P ≥ K keeps the K
	// taps on distinct positions of the circle.
	p.ph = smoothSize(max(s.H+pad, s.K), false)
	p.pw = smoothSize(max(s.W+pad, s.K), true)
	if !fitsInt(p.ph, p.pw, s.Cout, s.Cin, 2) {
		return nil, fmt.Errorf("mconv.NewPlan: shape %+v is too large for the FFT path", s)
	}
	p.specLen = p.ph * (p.pw/2 + 1)
	if method == Auto {
		p.method = Direct
		if p.fftCost() < p.directCost() {
			p.method = FFT
		}
	}
	if p.method == FFT {
		p.initSpectra()
	}
	return p, nil
}

// Method returns the method in use (Direct or FFT, never Auto).
func (p *Plan) Method() Method { return p.method }

// Shape returns the layer's shape with N = 1.
func (p *Plan) Shape() Shape { return p.s }

// Weights returns the plan's copy of the filters; it must not be modified.
func (p *Plan) Weights() []float64 { return p.w }

func (p *Plan) directCost() float64 {
	s := p.s
	return float64(s.Cin*s.Cout*s.H*s.W*s.K*s.K) * costDirectMAC
}

func (p *Plan) fftCost() float64 {
	s := p.s
	pts := float64(p.ph * p.pw)
	return float64(s.Cin+s.Cout)*pts*math.Log2(pts)*costFFTPoint +
		float64(s.Cin*s.Cout*p.specLen)*costSpecMAC
}

// smoothSize returns the smallest m ≥ n whose prime factors are 2, 3 and 5
// (and that is even when even is set).
func smoothSize(n int, even bool) int {
	for m := max(n, 1); ; m++ {
		if even && m%2 != 0 {
			continue
		}
		r := m
		for _, f := range []int{2, 3, 5} {
			for r%f == 0 {
				r /= f
			}
		}
		if r == 1 {
			return m
		}
	}
}

// initSpectra computes the filter spectra: filter (o, c) is placed on the
// P×Q circle as h[(p−u) mod P, (p−v) mod Q] = w[o,c,u,v], so that
// multiplying by its spectrum is the correlation of Forward.
func (p *Plan) initSpectra() {
	s := p.s
	kk := s.K * s.K
	pad := s.K / 2
	pairs := s.Cout * s.Cin
	p.spec = make([]complex128, pairs*p.specLen)
	// Keep the tile of filter spectra used by one product pass near 0.5 MB, so
	// that it and the output tiles of a group of images stay in L2.
	p.tile = min(max((1<<19)/(16*pairs), 16), p.specLen)
	parallelFor(pairs, p.ph*p.pw*8, func(t int) {
		wk := p.getWorker()
		defer p.putWorker(wk)
		h := wk.padOut
		clear(h)
		f := p.w[t*kk : (t+1)*kk]
		for u := 0; u < s.K; u++ {
			r := ((pad-u)%p.ph + p.ph) % p.ph
			for v := 0; v < s.K; v++ {
				q := ((pad-v)%p.pw + p.pw) % p.pw
				h[r*p.pw+q] = f[u*s.K+v]
			}
		}
		full := make([]complex128, p.specLen)
		wk.f.Forward(full, h)
		for f0 := 0; f0 < p.specLen; f0 += p.tile {
			f1 := min(f0+p.tile, p.specLen)
			copy(p.spec[pairs*f0+t*(f1-f0):pairs*f0+(t+1)*(f1-f0)], full[f0:f1])
		}
	})
}

func (p *Plan) getWorker() *fftWorker {
	p.mu.Lock()
	if k := len(p.workers); k > 0 {
		wk := p.workers[k-1]
		p.workers = p.workers[:k-1]
		p.mu.Unlock()
		return wk
	}
	p.mu.Unlock()
	n := p.ph * p.pw
	return &fftWorker{
		f:      kernels.NewFFT2(p.ph, p.pw),
		padIn:  make([]float64, n),
		padOut: make([]float64, n),
	}
}

func (p *Plan) putWorker(wk *fftWorker) {
	p.mu.Lock()
	p.workers = append(p.workers, wk)
	p.mu.Unlock()
}

// chunkBytes bounds the spectra held for one group of images (a variable so
// that tests can force several groups).
var chunkBytes = 48 << 20

func (p *Plan) getChunk(n int) []complex128 {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, c := range p.chunks {
		if cap(c) >= n {
			p.chunks = append(p.chunks[:i], p.chunks[i+1:]...)
			return c[:n]
		}
	}
	return make([]complex128, n)
}

func (p *Plan) putChunk(c []complex128) {
	p.mu.Lock()
	if len(p.chunks) < 2 {
		p.chunks = append(p.chunks, c)
	}
	p.mu.Unlock()
}

func (p *Plan) checkBatch(method string, n int, a, b lenCheck) error {
	if n < 1 {
		return fmt.Errorf("mconv.Plan.%s: batch size n = %d, want at least 1", method, n)
	}
	s := p.s
	s.N = n
	if !fitsInt(n, max(s.Cin, s.Cout), s.H, s.W) {
		return fmt.Errorf("mconv.Plan.%s: batch of %d images is too large: array sizes overflow int", method, n)
	}
	a.want *= n
	b.want *= n
	var errs []error
	for _, l := range []lenCheck{a, b} {
		if err := checkLen(l.name, l.got, l.want, s); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("mconv.Plan.%s: %w", method, errs[0])
	}
	return nil
}

// Forward computes y = Forward(x) without bias for a batch of n images:
// len(x) = n·Cin·H·W, len(y) = n·Cout·H·W. y is overwritten and must not
// overlap x.
func (p *Plan) Forward(y, x []float64, n int) error {
	plane := p.s.H * p.s.W
	if err := p.checkBatch("Forward", n, lenCheck{"y", len(y), p.s.Cout * plane},
		lenCheck{"x", len(x), p.s.Cin * plane}); err != nil {
		return err
	}
	s := p.s
	s.N = n
	if p.method == Direct {
		return Forward(y, x, p.w, nil, s)
	}
	p.runFFT(y, x, n, false, nil)
	return nil
}

// ForwardEach computes y = Forward(x) as Forward does and calls post(k,
// plane) once for every output plane k = img·Cout + o, plane =
// y[k·H·W:(k+1)·H·W], as soon as that plane is complete (by FFT, while it is
// still in cache). post may modify the plane; it is called from several
// goroutines at once for different planes, so it must write only memory of
// its own plane k. With the direct method the planes are passed after the
// whole batch is computed.
func (p *Plan) ForwardEach(y, x []float64, n int, post func(k int, plane []float64)) error {
	plane := p.s.H * p.s.W
	if err := p.checkBatch("ForwardEach", n, lenCheck{"y", len(y), p.s.Cout * plane},
		lenCheck{"x", len(x), p.s.Cin * plane}); err != nil {
		return err
	}
	if p.method == FFT {
		p.runFFT(y, x, n, false, post)
		return nil
	}
	s := p.s
	s.N = n
	if err := Forward(y, x, p.w, nil, s); err != nil {
		return err
	}
	parallelFor(n*p.s.Cout, plane, func(k int) { post(k, y[k*plane:(k+1)*plane]) })
	return nil
}

// AdjointInput computes x = AdjointInput(y), the transpose of Forward, for a
// batch of n images: len(y) = n·Cout·H·W, len(x) = n·Cin·H·W. x is
// overwritten and must not overlap y.
func (p *Plan) AdjointInput(x, y []float64, n int) error {
	plane := p.s.H * p.s.W
	if err := p.checkBatch("AdjointInput", n, lenCheck{"x", len(x), p.s.Cin * plane},
		lenCheck{"y", len(y), p.s.Cout * plane}); err != nil {
		return err
	}
	s := p.s
	s.N = n
	if p.method == Direct {
		return AdjointInput(x, y, p.w, s)
	}
	p.runFFT(x, y, n, true, nil)
	return nil
}

// runFFT computes dst[n,a] = Σ_b F(a,b) ⋆ src[n,b] by FFT, where F(a,b) is
// filter (a,b) (Forward: a = o, b = c) or the transposed filter (b,a)
// (adjoint: a = c, b = o, conjugated spectra).
// post, when not nil, is called for every output plane once it is cropped
// (see ForwardEach).
func (p *Plan) runFFT(dst, src []float64, n int, adjoint bool, post func(k int, plane []float64)) {
	s := p.s
	nIn, nOut := s.Cin, s.Cout
	if adjoint {
		nIn, nOut = s.Cout, s.Cin
	}
	sl := p.specLen
	perImage := (nIn + nOut) * sl
	group := max(1, min(n, chunkBytes/(16*perImage)))
	chunks := (n + group - 1) / group
	group = (n + chunks - 1) / chunks // balance the groups
	buf := p.getChunk(group * perImage)
	defer p.putChunk(buf)
	plane := s.H * s.W
	fftWork := p.ph * p.pw * 8

	for n0 := 0; n0 < n; n0 += group {
		g := min(group, n-n0)
		in := buf[:g*nIn*sl]
		out := buf[g*nIn*sl : g*(nIn+nOut)*sl]
		// Transform the g·nIn input planes.
		srcG := src[n0*nIn*plane : (n0+g)*nIn*plane]
		parallelFor(g*nIn, fftWork, func(t int) {
			wk := p.getWorker()
			defer p.putWorker(wk)
			if !wk.inFilled {
				clear(wk.padIn)
				wk.inFilled = true
			}
			sp := srcG[t*plane : (t+1)*plane]
			for i := 0; i < s.H; i++ {
				copy(wk.padIn[i*p.pw:i*p.pw+s.W], sp[i*s.W:(i+1)*s.W])
			}
			wk.f.Forward(in[t*sl:(t+1)*sl], wk.padIn)
		})
		// Products, tile by tile of frequencies.
		tiles := (sl + p.tile - 1) / p.tile
		parallelFor(tiles, g*nIn*nOut*p.tile*4, func(t int) {
			f0 := t * p.tile
			f1 := min(f0+p.tile, sl)
			p.productTile(out, in, g, nIn, nOut, f0, f1, adjoint)
		})
		// Inverse-transform and crop the g·nOut output planes.
		dstG := dst[n0*nOut*plane : (n0+g)*nOut*plane]
		parallelFor(g*nOut, fftWork, func(t int) {
			wk := p.getWorker()
			defer p.putWorker(wk)
			wk.f.Inverse(wk.padOut, out[t*sl:(t+1)*sl])
			dp := dstG[t*plane : (t+1)*plane]
			for i := 0; i < s.H; i++ {
				copy(dp[i*s.W:(i+1)*s.W], wk.padOut[i*p.pw:i*p.pw+s.W])
			}
			if post != nil {
				post(n0*nOut+t, dp)
			}
		})
	}
}

// productTile computes, for frequencies [f0, f1) of the g images,
// out[n,a] = Σ_b S(a,b)·in[n,b] with S(a,b) = spec[a,b] (forward) or
// conj(spec[b,a]) (adjoint). Outputs are produced two at a time and inputs
// consumed two at a time, so every loaded input and filter value serves two
// multiply-adds.
func (p *Plan) productTile(out, in []complex128, g, nIn, nOut, f0, f1 int, adjoint bool) {
	if useCmac4 {
		p.productTileVector(out, in, g, nIn, nOut, f0, f1, adjoint)
		return
	}
	sl := p.specLen
	cin := p.s.Cin
	tl := f1 - f0
	block := p.spec[p.s.Cout*cin*f0 : p.s.Cout*cin*f1]
	filter := func(a, b int) []complex128 {
		k := a*cin + b
		if adjoint {
			k = b*cin + a
		}
		return block[k*tl : (k+1)*tl]
	}
	for img := 0; img < g; img++ {
		inImg := in[img*nIn*sl : (img+1)*nIn*sl]
		x := func(b int) []complex128 { return inImg[b*sl+f0 : b*sl+f1] }
		outImg := out[img*nOut*sl : (img+1)*nOut*sl]
		acc := func(a int) []complex128 { return outImg[a*sl+f0 : a*sl+f1] }
		a := 0
		for ; a+1 < nOut; a += 2 {
			acc0, acc1 := acc(a), acc(a+1)
			clear(acc0)
			clear(acc1)
			b := 0
			for ; b+1 < nIn; b += 2 {
				mulAdd22(acc0, acc1, filter(a, b), filter(a, b+1), filter(a+1, b), filter(a+1, b+1), x(b), x(b+1), adjoint)
			}
			if b < nIn {
				mulAdd1(acc0, filter(a, b), x(b), adjoint)
				mulAdd1(acc1, filter(a+1, b), x(b), adjoint)
			}
		}
		if a < nOut {
			acc0 := acc(a)
			clear(acc0)
			b := 0
			for ; b+1 < nIn; b += 2 {
				mulAdd12(acc0, filter(a, b), filter(a, b+1), x(b), x(b+1), adjoint)
			}
			if b < nIn {
				mulAdd1(acc0, filter(a, b), x(b), adjoint)
			}
		}
	}
}

// mulAdd22 adds acc0 += op(w00)·x0 + op(w01)·x1 and
// acc1 += op(w10)·x0 + op(w11)·x1, op = conj when conjW.
func mulAdd22(acc0, acc1, w00, w01, w10, w11, x0, x1 []complex128, conjW bool) {
	n := len(acc0)
	acc1, w00, w01, w10, w11, x0, x1 = acc1[:n], w00[:n], w01[:n], w10[:n], w11[:n], x0[:n], x1[:n]
	if conjW {
		for i := range acc0 {
			u, v := x0[i], x1[i]
			acc0[i] += conjMul(w00[i], u) + conjMul(w01[i], v)
			acc1[i] += conjMul(w10[i], u) + conjMul(w11[i], v)
		}
		return
	}
	for i := range acc0 {
		u, v := x0[i], x1[i]
		acc0[i] += w00[i]*u + w01[i]*v
		acc1[i] += w10[i]*u + w11[i]*v
	}
}

// mulAdd12 adds acc += op(w0)·x0 + op(w1)·x1.
func mulAdd12(acc, w0, w1, x0, x1 []complex128, conjW bool) {
	n := len(acc)
	w0, w1, x0, x1 = w0[:n], w1[:n], x0[:n], x1[:n]
	if conjW {
		for i := range acc {
			acc[i] += conjMul(w0[i], x0[i]) + conjMul(w1[i], x1[i])
		}
		return
	}
	for i := range acc {
		acc[i] += w0[i]*x0[i] + w1[i]*x1[i]
	}
}

// mulAdd1 adds acc += op(w)·x.
func mulAdd1(acc, w, x []complex128, conjW bool) {
	n := len(acc)
	w, x = w[:n], x[:n]
	if conjW {
		for i := range acc {
			acc[i] += conjMul(w[i], x[i])
		}
		return
	}
	for i := range acc {
		acc[i] += w[i] * x[i]
	}
}

// conjMul returns conj(w)·x.
func conjMul(w, x complex128) complex128 {
	wr, wi, xr, xi := real(w), imag(w), real(x), imag(x)
	return complex(wr*xr+wi*xi, wr*xi-wi*xr)
}

// useCmac4 selects productTileVector; tests turn it off to compare with the
// scalar products.
var useCmac4 = haveCmac4

// productTileVector computes what productTile computes, four outputs at a
// time with the vector kernel cmac4: for each frequency pair the sums over
// all inputs stay in registers, so every output is written once and no
// accumulator is read back. An odd last frequency and the outputs left
// over from the groups of four take the scalar loop of productScalar.
func (p *Plan) productTileVector(out, in []complex128, g, nIn, nOut, f0, f1 int, adjoint bool) {
	const size = 16 // bytes of a complex128
	sl := p.specLen
	cin := p.s.Cin
	tl := f1 - f0
	block := p.spec[p.s.Cout*cin*f0 : p.s.Cout*cin*f1]
	// Filter (a, b) starts at block[a·wsa + b·wsb].
	wsa, wsb := cin*tl, tl
	var neg uint64
	if adjoint {
		wsa, wsb = tl, cin*tl
		neg = 1 << 63
	}
	pairs := tl / 2
	for img := 0; img < g; img++ {
		inImg := in[img*nIn*sl : (img+1)*nIn*sl]
		outImg := out[img*nOut*sl : (img+1)*nOut*sl]
		a := 0
		for ; a+4 <= nOut; a += 4 {
			if pairs > 0 {
				cmac4(&outImg[a*sl+f0], &block[a*wsa], &inImg[f0], pairs, nIn,
					uintptr(sl*size), uintptr(wsa*size), uintptr(wsb*size), uintptr(sl*size), neg)
			}
			for q := a; q < a+4; q++ {
				productScalar(outImg[q*sl+f0:q*sl+f1], block[q*wsa:], inImg[f0:], 2*pairs, nIn, wsb, sl, adjoint)
			}
		}
		for ; a < nOut; a++ {
			productScalar(outImg[a*sl+f0:a*sl+f1], block[a*wsa:], inImg[f0:], 0, nIn, wsb, sl, adjoint)
		}
	}
}

// productScalar sets acc[k] = Σ_{b<nb} op(w[b·wsb + k])·x[b·xs + k] for
// k = k0..len(acc)−1, op = conj when conjW.
func productScalar(acc, w, x []complex128, k0, nb, wsb, xs int, conjW bool) {
	for k := k0; k < len(acc); k++ {
		var s complex128
		for b := 0; b < nb; b++ {
			if conjW {
				s += conjMul(w[b*wsb+k], x[b*xs+k])
			} else {
				s += w[b*wsb+k] * x[b*xs+k]
			}
		}
		acc[k] = s
	}
}
