package wcrr

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/greedyl2o/greedyl2o/mconv"
	"gonum.org/v1/gonum/mat"
)

// Layer is one convolution layer of the linear operator C: a PyTorch-style
// cross-correlation with stride 1, zero padding K/2, no bias, and an output
// of the same size as its input.
type Layer struct {
	Cin, Cout, K int
	// Weight holds the filters, laid out [Cout][Cin][K][K].
	Weight []float64
}

// Model is the weakly convex ridge regularizer
//
//	S(x) = Σ_c Σ_{i,j} ψ_c((W x)_c[i,j]),  W = C/√L,  C = layer3 ∘ layer2 ∘ layer1,
//
// with the channel potentials
//
//	ψ_c(z) = (μ+1)·Huber(z; h_c) − Huber(z; T_c).
//
// Images are batches laid out [n][1][h][w]; responses W x are [n][C][h][w]
// with C = Channels(). The methods are safe for concurrent use as long as the
// fields are not modified; scratch memory is reused between calls.
type Model struct {
	// Layers are applied in order; Layers[0].Cin must be 1 and
	// Layers[l].Cin == Layers[l−1].Cout.
	Layers [3]Layer
	// L is the normalisation constant: W = C/√L.
	L float64
	// Mu is μ, the weak-convexity slope: ψ_c'' takes the values μ, −1 and 0.
	Mu float64
	// H and T hold the per-channel thresholds h_c < T_c (length Channels()).
	H, T []float64

	// Scratch buffers reused between calls. A mutex-guarded free list rather
	// than a sync.Pool: the buffers are large (about 0.1 GB for 25 images of
	// 96×96) and a sync.Pool would drop them at every garbage collection.
	mu   sync.Mutex
	free []*workspace
	// plans caches the prepared layers (filter spectra for the FFT path)
	// per image size, most recently used last.
	plans []*layerPlans
}

// maxFree is the number of idle workspaces a Model keeps.
const maxFree = 4

// maxPlans is the number of image sizes whose prepared layers a Model keeps.
const maxPlans = 4

// layerPlans holds the three layers prepared for h×w images.
type layerPlans struct {
	h, w   int
	layers [3]*mconv.Plan
}

// matches reports whether the plans were made for h×w images from the
// model's current layers (compared by value, so that a model whose weights
// were changed is never applied with stale spectra).
func (lp *layerPlans) matches(m *Model, h, w int) bool {
	if lp.h != h || lp.w != w {
		return false
	}
	for l, layer := range m.Layers {
		pw := lp.layers[l].Weights()
		if lp.layers[l].Shape() != m.shape(l, 1, h, w) || len(pw) != len(layer.Weight) {
			return false
		}
		for i, v := range layer.Weight {
			if pw[i] != v {
				return false
			}
		}
	}
	return true
}

// layerPlans returns the layers prepared for h×w images, from the cache
// when possible. Each layer uses the direct or the FFT method, whichever
// mconv's cost model finds cheaper (for 96×96 images: direct for 1→4, FFT
// for 4→8 and 8→60). The structure must have been checked.
func (m *Model) layerPlans(h, w int) *layerPlans {
	m.mu.Lock()
	for i, lp := range m.plans {
		if lp.matches(m, h, w) {
			// Move to the back: most recently used.
			m.plans = append(append(m.plans[:i:i], m.plans[i+1:]...), lp)
			m.mu.Unlock()
			return lp
		}
	}
	m.mu.Unlock()
	// Prepare outside the lock (computing the spectra takes a while); a
	// concurrent call may prepare the same size, which is harmless.
	lp := &layerPlans{h: h, w: w}
	for l, layer := range m.Layers {
		p, err := mconv.NewPlan(layer.Weight, m.shape(l, 1, h, w), mconv.Auto)
		must(err)
		lp.layers[l] = p
	}
	m.mu.Lock()
	kept := m.plans[:0]
	for _, old := range m.plans {
		if old.h != h || old.w != w {
			kept = append(kept, old)
		}
	}
	m.plans = append(kept, lp)
	if len(m.plans) > maxPlans {
		m.plans = append(m.plans[:0], m.plans[len(m.plans)-maxPlans:]...)
	}
	m.mu.Unlock()
	return lp
}

// Channels returns the number of output channels of W (60 for the
// pretrained model).
func (m *Model) Channels() int { return m.Layers[2].Cout }

// LipschitzBound returns max(μ, 1), the bound on the Lipschitz constant of ∇S
// when ‖W‖ ≤ 1 (ψ_c” lies in [−1, μ]).
func (m *Model) LipschitzBound() float64 { return max(m.Mu, 1) }

// Validate checks that the layers chain 1 → C1 → C2 → C3 channels, that the
// weights have the right lengths and are finite, and that L, μ and
// 0 < h_c < T_c are finite and positive.
func (m *Model) Validate() error {
	if err := m.checkStructure(); err != nil {
		return err
	}
	for l, layer := range m.Layers {
		for i, v := range layer.Weight {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("wcrr: Layers[%d].Weight[%d] = %v, want a finite number", l, i, v)
			}
		}
	}
	if !(m.L > 0) || math.IsInf(m.L, 0) {
		return fmt.Errorf("wcrr: L = %v, want a finite positive normalisation constant", m.L)
	}
	if !(m.Mu > 0) || math.IsInf(m.Mu, 0) {
		return fmt.Errorf("wcrr: Mu = %v, want a finite positive number", m.Mu)
	}
	for c := range m.H {
		if !(m.H[c] > 0) || !(m.T[c] > m.H[c]) || math.IsInf(m.T[c], 0) {
			return fmt.Errorf("wcrr: channel %d has h = %v, T = %v; want finite 0 < h < T", c, m.H[c], m.T[c])
		}
	}
	return nil
}

// checkStructure checks the sizes only (cheap enough for every call).
func (m *Model) checkStructure() error {
	prev := 1
	for l, layer := range m.Layers {
		if layer.Cin != prev {
			return fmt.Errorf("wcrr: Layers[%d].Cin = %d, want %d (the previous layer's Cout; the first layer takes 1 channel)", l, layer.Cin, prev)
		}
		if layer.Cout < 1 {
			return fmt.Errorf("wcrr: Layers[%d].Cout = %d, want at least 1", l, layer.Cout)
		}
		if layer.K < 1 || layer.K%2 == 0 {
			return fmt.Errorf("wcrr: Layers[%d].K = %d, want an odd kernel size", l, layer.K)
		}
		if want := layer.Cout * layer.Cin * layer.K * layer.K; len(layer.Weight) != want {
			return fmt.Errorf("wcrr: len(Layers[%d].Weight) = %d, want Cout·Cin·K·K = %d", l, len(layer.Weight), want)
		}
		prev = layer.Cout
	}
	if len(m.H) != prev || len(m.T) != prev {
		return fmt.Errorf("wcrr: len(H) = %d and len(T) = %d, want %d (one per output channel)", len(m.H), len(m.T), prev)
	}
	return nil
}

// checkCall validates the model structure, the batch sizes and the slice
// lengths of one call.
func (m *Model) checkCall(method string, n, h, w int, slices ...namedLen) error {
	if err := m.checkStructure(); err != nil {
		return fmt.Errorf("wcrr.%s: %w", method, err)
	}
	if n < 1 || h < 1 || w < 1 {
		return fmt.Errorf("wcrr.%s: batch n = %d, h = %d, w = %d, want positive sizes", method, n, h, w)
	}
	if !(m.L > 0) {
		return fmt.Errorf("wcrr.%s: L = %v, want a positive normalisation constant", method, m.L)
	}
	var errs []error
	for _, s := range slices {
		if s.got != s.want {
			errs = append(errs, fmt.Errorf("wcrr.%s: len(%s) = %d, want %d for n = %d images of %d×%d", method, s.name, s.got, s.want, n, h, w))
		}
	}
	return errors.Join(errs...)
}

type namedLen struct {
	name      string
	got, want int
}

func (m *Model) shape(l, n, h, w int) mconv.Shape {
	layer := m.Layers[l]
	return mconv.Shape{N: n, Cin: layer.Cin, Cout: layer.Cout, H: h, W: w, K: layer.K}
}

// workspace holds the intermediate layer outputs of one call.
type workspace struct {
	img, a1, a2, z, zv []float64
}

func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

func (m *Model) getWorkspace(n, h, w int) *workspace {
	ws := new(workspace)
	m.mu.Lock()
	if k := len(m.free); k > 0 {
		ws = m.free[k-1]
		m.free = m.free[:k-1]
	}
	m.mu.Unlock()
	p := n * h * w
	ws.img = grow(ws.img, p)
	ws.a1 = grow(ws.a1, p*m.Layers[0].Cout)
	ws.a2 = grow(ws.a2, p*m.Layers[1].Cout)
	ws.z = grow(ws.z, p*m.Layers[2].Cout)
	return ws
}

func (m *Model) putWorkspace(ws *workspace) {
	m.mu.Lock()
	if len(m.free) < maxFree {
		m.free = append(m.free, ws)
	}
	m.mu.Unlock()
}

// apply computes dst = W x for a checked call.
func (m *Model) apply(dst, x []float64, n, h, w int, ws *workspace) {
	scale := 1 / math.Sqrt(m.L)
	for i, v := range x {
		ws.img[i] = v * scale
	}
	// The shapes and lengths were checked by the caller, so mconv cannot fail.
	lp := m.layerPlans(h, w)
	must(lp.layers[0].Forward(ws.a1, ws.img, n))
	must(lp.layers[1].Forward(ws.a2, ws.a1, n))
	must(lp.layers[2].Forward(dst, ws.a2, n))
}

// adjoint computes dst = Wᵀ z for a checked call.
func (m *Model) adjoint(dst, z []float64, n, h, w int, ws *workspace) {
	lp := m.layerPlans(h, w)
	must(lp.layers[2].AdjointInput(ws.a2, z, n))
	must(lp.layers[1].AdjointInput(ws.a1, ws.a2, n))
	must(lp.layers[0].AdjointInput(dst, ws.a1, n))
	scale := 1 / math.Sqrt(m.L)
	for i := range dst {
		dst[i] *= scale
	}
}

// must panics on an error that the preceding checks rule out.
func must(err error) {
	if err != nil {
		panic("wcrr: internal error: " + err.Error())
	}
}

// Apply computes dst = W x = C x/√L for a batch x of n images [n][1][h][w];
// dst is [n][C][h][w] with C = Channels() and is overwritten.
func (m *Model) Apply(dst, x []float64, n, h, w int) error {
	p := n * h * w
	if err := m.checkCall("Apply", n, h, w, namedLen{"x", len(x), p}, namedLen{"dst", len(dst), p * m.Channels()}); err != nil {
		return err
	}
	ws := m.getWorkspace(n, h, w)
	defer m.putWorkspace(ws)
	m.apply(dst, x, n, h, w, ws)
	return nil
}

// Adjoint computes dst = Wᵀ z for responses z [n][C][h][w]; dst is
// [n][1][h][w] and is overwritten.
func (m *Model) Adjoint(dst, z []float64, n, h, w int) error {
	p := n * h * w
	if err := m.checkCall("Adjoint", n, h, w, namedLen{"z", len(z), p * m.Channels()}, namedLen{"dst", len(dst), p}); err != nil {
		return err
	}
	ws := m.getWorkspace(n, h, w)
	defer m.putWorkspace(ws)
	m.adjoint(dst, z, n, h, w, ws)
	return nil
}

// Value returns S(x_k) for each image k of the batch x [n][1][h][w].
func (m *Model) Value(x []float64, n, h, w int) ([]float64, error) {
	if err := m.checkCall("Value", n, h, w, namedLen{"x", len(x), n * h * w}); err != nil {
		return nil, err
	}
	ws := m.getWorkspace(n, h, w)
	defer m.putWorkspace(ws)
	m.apply(ws.z, x, n, h, w, ws)
	return m.sumPsi(ws.z, n, h*w, false), nil
}

// Grad computes dst = ∇S(x) = Wᵀ ψ'(W x) for each image of the batch
// x [n][1][h][w]; dst has the same layout and is overwritten.
func (m *Model) Grad(dst, x []float64, n, h, w int) error {
	_, err := m.valueGrad("Grad", dst, x, n, h, w, false)
	return err
}

// ValueGrad computes both S(x_k) (returned) and dst = ∇S(x), sharing W x.
func (m *Model) ValueGrad(dst, x []float64, n, h, w int) ([]float64, error) {
	return m.valueGrad("ValueGrad", dst, x, n, h, w, true)
}

func (m *Model) valueGrad(method string, dst, x []float64, n, h, w int, withValue bool) ([]float64, error) {
	p := n * h * w
	if err := m.checkCall(method, n, h, w, namedLen{"x", len(x), p}, namedLen{"dst", len(dst), p}); err != nil {
		return nil, err
	}
	ws := m.getWorkspace(n, h, w)
	defer m.putWorkspace(ws)
	values := m.applyPrime(ws.z, x, n, h, w, ws, withValue)
	m.adjoint(dst, ws.z, n, h, w, ws)
	return values, nil
}

// applyPrime computes dst = ψ'(W x) for a checked call and, when
// withValue is set, returns S(x_k) for each image. ψ' (and ψ) are applied
// to each response plane as soon as the last layer has produced it, while
// it is in cache (mconv.Plan.ForwardEach); the per-plane sums of ψ are then
// added channel by channel, so the values equal sumPsi's bit for bit.
func (m *Model) applyPrime(dst, x []float64, n, h, w int, ws *workspace, withValue bool) []float64 {
	scale := 1 / math.Sqrt(m.L)
	for i, v := range x {
		ws.img[i] = v * scale
	}
	lp := m.layerPlans(h, w)
	must(lp.layers[0].Forward(ws.a1, ws.img, n))
	must(lp.layers[1].Forward(ws.a2, ws.a1, n))
	nc, mu1 := m.Channels(), m.Mu+1
	var sums []float64
	if withValue {
		sums = make([]float64, n*nc)
	}
	must(lp.layers[2].ForwardEach(dst, ws.a2, n, func(k int, zp []float64) {
		c := k % nc
		hc, tc := m.H[c], m.T[c]
		if !withValue {
			for i, v := range zp {
				zp[i] = psiPrime(v, hc, tc, mu1)
			}
			return
		}
		var sc float64
		for i, v := range zp {
			sc += psi(v, hc, tc, mu1)
			zp[i] = psiPrime(v, hc, tc, mu1)
		}
		sums[k] = sc
	}))
	if !withValue {
		return nil
	}
	values := make([]float64, n)
	for img := range n {
		var s float64
		for _, sc := range sums[img*nc : (img+1)*nc] {
			s += sc
		}
		values[img] = s
	}
	return values
}

// HessVec computes dst = ∇²S(x) v = Wᵀ(ψ”(W x) ⊙ W v) for batches x and v
// [n][1][h][w]; dst has the same layout and is overwritten. ψ” is taken as
// (μ+1)[|z| < h_c] − [|z| < T_c] (its value at the kinks is a convention).
func (m *Model) HessVec(dst, x, v []float64, n, h, w int) error {
	p := n * h * w
	if err := m.checkCall("HessVec", n, h, w, namedLen{"x", len(x), p}, namedLen{"v", len(v), p}, namedLen{"dst", len(dst), p}); err != nil {
		return err
	}
	ws := m.getWorkspace(n, h, w)
	defer m.putWorkspace(ws)
	ws.zv = grow(ws.zv, len(ws.z))
	m.apply(ws.z, x, n, h, w, ws)
	m.apply(ws.zv, v, n, h, w, ws)
	plane := h * w
	for off := 0; off < len(ws.z); off += plane {
		c := (off / plane) % m.Channels()
		zp, vp := ws.z[off:off+plane], ws.zv[off:off+plane]
		hc, tc := m.H[c], m.T[c]
		for i, z := range zp {
			vp[i] *= psiSecond(z, hc, tc, m.Mu)
		}
	}
	m.adjoint(dst, ws.zv, n, h, w, ws)
	return nil
}

// sumPsi returns Σ ψ_c over each image of z [n][C][plane]; when toPrime is
// set it also overwrites z with ψ'(z).
func (m *Model) sumPsi(z []float64, n, plane int, toPrime bool) []float64 {
	values := make([]float64, n)
	nc := m.Channels()
	mu1 := m.Mu + 1
	for img := range n {
		var s float64
		for c := range nc {
			zp := z[(img*nc+c)*plane : (img*nc+c+1)*plane]
			hc, tc := m.H[c], m.T[c]
			var sc float64
			for i, v := range zp {
				sc += psi(v, hc, tc, mu1)
				if toPrime {
					zp[i] = psiPrime(v, hc, tc, mu1)
				}
			}
			s += sc
		}
		values[img] = s
	}
	return values
}

// psiPrime writes dst = ψ'(z) channel-wise for z [n][C][plane].
func (m *Model) psiPrime(dst, z []float64, plane int) {
	mu1 := m.Mu + 1
	for off := 0; off < len(z); off += plane {
		c := (off / plane) % m.Channels()
		hc, tc := m.H[c], m.T[c]
		d := dst[off : off+plane]
		for i, v := range z[off : off+plane] {
			d[i] = psiPrime(v, hc, tc, mu1)
		}
	}
}

func (m *Model) checkPointwise(method string, dst, z []float64, n, h, w int) error {
	p := n * h * w * m.Channels()
	return m.checkCall(method, n, h, w, namedLen{"z", len(z), p}, namedLen{"dst", len(dst), p})
}

// PotentialPrime writes vals[k] = Σ ψ_c(z_k), the regularizer of image k
// given its responses z_k = (W x)_k, and, if dst is not nil, dst = ψ_c'(z)
// channel-wise, for responses z [n][C][h][w] (dst may be z).
func (m *Model) PotentialPrime(vals, dst, z []float64, n, h, w int) error {
	if err := m.checkPointwise("PotentialPrime", z, z, n, h, w); err != nil {
		return err
	}
	if len(vals) != n || (dst != nil && len(dst) != len(z)) {
		return fmt.Errorf("wcrr.PotentialPrime: %d value slots and %d derivative values for %d images of %d responses", len(vals), len(dst), n, len(z)/n)
	}
	nc, plane, mu1 := m.Channels(), h*w, m.Mu+1
	for img := range n {
		var s float64
		for c := range nc {
			off := (img*nc + c) * plane
			zp := z[off : off+plane]
			hc, tc := m.H[c], m.T[c]
			var sc float64
			if dst == nil {
				for _, v := range zp {
					sc += psi(v, hc, tc, mu1)
				}
			} else {
				d := dst[off : off+plane]
				for i, v := range zp {
					sc += psi(v, hc, tc, mu1)
					d[i] = psiPrime(v, hc, tc, mu1)
				}
			}
			s += sc
		}
		vals[img] = s
	}
	return nil
}

// PsiPrime writes dst = ψ_c'(z) channel-wise for responses z [n][C][h][w]
// (dst may be z).
func (m *Model) PsiPrime(dst, z []float64, n, h, w int) error {
	if err := m.checkPointwise("PsiPrime", dst, z, n, h, w); err != nil {
		return err
	}
	m.psiPrime(dst, z, h*w)
	return nil
}

// Psi writes dst = ψ_c(z) channel-wise for responses z [n][C][h][w]
// (dst may be z).
func (m *Model) Psi(dst, z []float64, n, h, w int) error {
	if err := m.checkPointwise("Psi", dst, z, n, h, w); err != nil {
		return err
	}
	plane, mu1 := h*w, m.Mu+1
	for off := 0; off < len(z); off += plane {
		c := (off / plane) % m.Channels()
		d := dst[off : off+plane]
		for i, v := range z[off : off+plane] {
			d[i] = psi(v, m.H[c], m.T[c], mu1)
		}
	}
	return nil
}

// PsiSecond writes dst = ψ_c”(z) = (μ+1)[|z| < h_c] − [|z| < T_c]
// channel-wise for responses z [n][C][h][w] (dst may be z).
func (m *Model) PsiSecond(dst, z []float64, n, h, w int) error {
	if err := m.checkPointwise("PsiSecond", dst, z, n, h, w); err != nil {
		return err
	}
	plane := h * w
	for off := 0; off < len(z); off += plane {
		c := (off / plane) % m.Channels()
		d := dst[off : off+plane]
		for i, v := range z[off : off+plane] {
			d[i] = psiSecond(v, m.H[c], m.T[c], m.Mu)
		}
	}
	return nil
}

// psiSecond is (μ+1)[|z| < h] − [|z| < T]: μ, −1 or 0.
func psiSecond(z, h, t, mu float64) float64 {
	a := math.Abs(z)
	switch {
	case a < h:
		return mu
	case a < t:
		return -1
	}
	return 0
}

func clip(z, a float64) float64 { return max(-a, min(a, z)) }

// psiPrime is (μ+1)·clip(z, ±h) − clip(z, ±T).
func psiPrime(z, h, t, mu1 float64) float64 { return mu1*clip(z, h) - clip(z, t) }

// huber is z²/2 for |z| ≤ a and a|z| − a²/2 beyond.
func huber(z, a float64) float64 {
	if az := math.Abs(z); az > a {
		return a*az - a*a/2
	}
	return z * z / 2
}

// psi is (μ+1)·Huber(z; h) − Huber(z; T).
func psi(z, h, t, mu1 float64) float64 { return mu1*huber(z, h) - huber(z, t) }

// Random returns a model with small random weights, for tests and examples:
// three 5×5 layers 1 → channels[0] → channels[1] → channels[2] (the first
// layer's filters have zero mean, as in the pretrained model), thresholds
// h_c ∈ [0.01, 0.03) and T_c ∈ [3h_c, 8h_c), and L set (Lanczos, see NormSquared) so
// that ‖W‖ = 1 on 32×32 images. It panics if a channel count is below 1
// (a programming error, like a negative make length).
func Random(seed int64, channels [3]int, mu float64) *Model {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	m := &Model{Mu: mu, L: 1}
	prev := 1
	for l, c := range channels {
		if c < 1 {
			panic(fmt.Sprintf("wcrr.Random: channels[%d] = %d, want at least 1", l, c))
		}
		const k = 5
		wt := make([]float64, c*prev*k*k)
		scale := 1 / math.Sqrt(float64(prev*k*k))
		for i := range wt {
			wt[i] = scale * rng.NormFloat64()
		}
		if l == 0 {
			for o := 0; o < c; o++ {
				f := wt[o*k*k : (o+1)*k*k]
				var mean float64
				for _, v := range f {
					mean += v
				}
				mean /= float64(len(f))
				for i := range f {
					f[i] -= mean
				}
			}
		}
		m.Layers[l] = Layer{Cin: prev, Cout: c, K: k, Weight: wt}
		prev = c
	}
	m.H = make([]float64, prev)
	m.T = make([]float64, prev)
	for c := range prev {
		m.H[c] = 0.01 + 0.02*rng.Float64()
		m.T[c] = m.H[c] * (3 + 5*rng.Float64())
	}
	lambda, _, err := m.NormSquared(32, 32, 150, seed)
	must(err)
	m.L = lambda
	return m
}

// NormSquared computes ‖W‖² = λmax(WᵀW) on h×w images by the Lanczos method
// with full reorthogonalisation, taking at most the given number of steps
// (50–100 are plenty for 1e-10 relative accuracy) from a random start
// drawn with seed. It returns λmax and a unit-norm approximate top
// eigenvector. With L = 1 it gives λmax(CᵀC), the constant that makes
// ‖W‖ = 1 on h×w images.
func (m *Model) NormSquared(h, w, steps int, seed int64) (float64, []float64, error) {
	if steps < 1 {
		return 0, nil, fmt.Errorf("wcrr.NormSquared: steps = %d, want at least 1", steps)
	}
	if err := m.checkCall("NormSquared", 1, h, w); err != nil {
		return 0, nil, err
	}
	size := h * w
	steps = min(steps, size)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	v := make([]float64, size)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	normalize(v)
	z := make([]float64, size*m.Channels())
	ws := m.getWorkspace(1, h, w)
	defer m.putWorkspace(ws)

	var basis [][]float64
	var alpha, beta []float64
	var lambda float64
	var ritz []float64
	for k := 0; k < steps; k++ {
		basis = append(basis, v)
		av := make([]float64, size)
		m.apply(z, v, 1, h, w, ws)
		m.adjoint(av, z, 1, h, w, ws)
		a := dotProduct(v, av)
		alpha = append(alpha, a)
		// Full reorthogonalisation (twice is enough).
		for range 2 {
			for _, q := range basis {
				c := dotProduct(q, av)
				for i := range av {
					av[i] -= c * q[i]
				}
			}
		}
		b := math.Sqrt(dotProduct(av, av))
		lambda, ritz = topRitz(alpha, beta)
		// Residual of the Ritz pair: |b · last component of the Ritz vector|.
		if b*math.Abs(ritz[len(ritz)-1]) <= 1e-13*lambda || b <= 1e-14*lambda || k == steps-1 {
			break
		}
		beta = append(beta, b)
		for i := range av {
			av[i] /= b
		}
		v = av
	}
	vec := make([]float64, size)
	for j, q := range basis {
		for i := range vec {
			vec[i] += ritz[j] * q[i]
		}
	}
	normalize(vec)
	return lambda, vec, nil
}

// topRitz returns the largest eigenvalue of the symmetric tridiagonal matrix
// with diagonal alpha and off-diagonal beta, and its unit eigenvector.
func topRitz(alpha, beta []float64) (float64, []float64) {
	k := len(alpha)
	t := mat.NewSymDense(k, nil)
	for i, a := range alpha {
		t.SetSym(i, i, a)
		if i+1 < k {
			t.SetSym(i, i+1, beta[i])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(t, true) {
		// Cannot happen for a finite symmetric matrix; fall back to the
		// Rayleigh quotient of the latest vector.
		e := make([]float64, k)
		e[k-1] = 1
		return alpha[k-1], e
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	top := len(vals) - 1 // ascending order
	return vals[top], mat.Col(nil, top, &vecs)
}

func dotProduct(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func normalize(v []float64) {
	s := dotProduct(v, v)
	if s == 0 {
		return
	}
	s = 1 / math.Sqrt(s)
	for i := range v {
		v[i] *= s
	}
}
