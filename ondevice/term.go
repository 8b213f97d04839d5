package ondevice

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Kind is what a Term computes.
type Kind int

// The kinds of terms.
const (
	Scalar    Kind = iota // G_θ v = θ·v (PS)
	Pointwise             // G_θ v = θ⊙v (PP)
	SmallConv             // G_θ v = θ ⋆ v, K×K kernel with a boundary (PC-k)
	Spectral              // G_θ v = θ ⊛ v, image-sized, circular, by FFT (PC)
	Full                  // G_θ v = Θ v, Θ an (H·W)×(H·W) matrix (PF; needs gpu.MatOps)
)

// KindOf returns the kind of a parametrization, or an error naming it if it
// has no device path (PF and user types).
func KindOf(p models.Parametrization) (Kind, models.SmallConv, error) {
	switch q := p.(type) {
	case models.Scalar, *models.Scalar:
		return Scalar, models.SmallConv{}, nil
	case models.Pointwise, *models.Pointwise:
		return Pointwise, models.SmallConv{}, nil
	case models.SmallConv:
		return SmallConv, q, nil
	case *models.SmallConv:
		return SmallConv, *q, nil
	case *models.FullConv:
		return Spectral, models.SmallConv{}, nil
	case models.Full, *models.Full:
		return Full, models.SmallConv{}, nil
	}
	return 0, models.SmallConv{}, fmt.Errorf("ondevice: %s has no device kind (ps, pp, pc-k, pc and pf terms do); use --device cpu, or ondevice.NewDeviceTerm for its graph", p.Name())
}

// CheckMethod returns nil if every term of m has a device path.
func CheckMethod(m models.Method) error {
	for _, p := range []models.Parametrization{m.G, m.H} {
		if p == nil {
			continue
		}
		if _, _, err := KindOf(p); err != nil {
			return fmt.Errorf("%w (method %s)", err, m.Name())
		}
	}
	return nil
}

// Term is one parametrized operator G_θ of a learned update on a device,
// for batches of shape s, at the parameters last given to SetParams. Its
// buffers belong to the arena it was built on.
type Term struct {
	ops   gpu.Ops
	mem   *gpu.Arena
	s     gpu.Batch
	kind  Kind
	small models.SmallConv
	n     int // len(θ)

	coef               float64    // Scalar: θ
	theta, conjTheta   gpu.Buffer // PP, PC-k: θ; PC: θ̂ and conj(θ̂) (the latter made by Transpose)
	tmp                gpu.Buffer // a batch (PC-k, PC; made on first use)
	specA, specB, gsum gpu.Buffer // PC: two batches of spectra (made on first use) and one spectrum
	gimg               gpu.Buffer // PP: Σ r⊙v; PC-k: the kernel gradient

	plan   *kernels.FFT2T[float64]
	spec64 []kernels.Complex[float64]
	img64  []float64
	host   []float64
	// thetaSpec is θ̂ (PC) on the host, interleaved, as last set.
	thetaSpec []float64
}

// NewTerm returns the term of parametrization p for batches of shape s,
// allocated on mem.
func NewTerm(mem *gpu.Arena, p models.Parametrization, s gpu.Batch) (t *Term, err error) {
	kind, small, err := KindOf(p)
	if err != nil {
		return nil, err
	}
	ops := mem.Ops()
	t = &Term{ops: ops, mem: mem, s: s, kind: kind, small: small, n: p.ParamShape(s.H, s.W).TotalSize()}
	hw, sl := s.H*s.W, s.SpectrumLen()
	switch kind {
	case Pointwise:
		if t.theta, err = t.alloc(hw); err == nil {
			t.gimg, err = t.alloc(hw)
		}
	case SmallConv:
		if t.theta, err = t.alloc(small.K * small.K); err == nil {
			t.gimg, err = t.alloc(small.K * small.K)
		}
	case Full:
		if _, ok := ops.(gpu.MatOps); !ok {
			return nil, fmt.Errorf("ondevice: device %s has no matrix products (gpu.MatOps) for pf; use --device cpu", ops.Name())
		}
		if t.theta, err = t.alloc(hw * hw); err == nil {
			t.gimg, err = t.alloc(hw * hw)
		}
	case Spectral:
		for _, b := range []*gpu.Buffer{&t.theta, &t.gsum} {
			if *b, err = t.alloc(sl); err != nil {
				return nil, err
			}
		}
		t.plan = kernels.NewFFT2T[float64](s.H, s.W)
		t.spec64 = make([]kernels.Complex[float64], sl/2)
		t.img64 = make([]float64, hw)
		t.host = make([]float64, sl)
		t.thetaSpec = make([]float64, sl)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// lazy allocates *b with n values if it is not allocated yet.
func (t *Term) lazy(b *gpu.Buffer, n int) error {
	if *b != nil {
		return nil
	}
	nb, err := t.alloc(n)
	if err != nil {
		return err
	}
	*b = nb
	return nil
}

func (t *Term) alloc(n int) (gpu.Buffer, error) {
	b, err := t.mem.Alloc(n)
	if err != nil {
		return nil, fmt.Errorf("ondevice: %w", err)
	}
	return b, nil
}

// Kind is the term's kind.
func (t *Term) Kind() Kind { return t.kind }

// ParamLen is len(θ).
func (t *Term) ParamLen() int { return t.n }

// SetParams sets θ (copied to the device; PC: its spectrum, computed on the
// host in float64).
func (t *Term) SetParams(theta []float64) error {
	if len(theta) != t.n {
		return fmt.Errorf("ondevice: %d parameters, want %d", len(theta), t.n)
	}
	switch t.kind {
	case Scalar:
		t.coef = theta[0]
	case Pointwise, SmallConv, Full:
		if err := t.ops.CopyIn(t.theta, theta); err != nil {
			return fmt.Errorf("ondevice: copy θ to %s: %w", t.ops.Name(), err)
		}
	case Spectral:
		t.plan.Forward(t.spec64, theta)
		for q, c := range t.spec64 {
			t.thetaSpec[2*q], t.thetaSpec[2*q+1] = c.Re, c.Im
		}
		if err := t.ops.CopyIn(t.theta, t.thetaSpec); err != nil {
			return fmt.Errorf("ondevice: copy θ̂ to %s: %w", t.ops.Name(), err)
		}
		if t.conjTheta != nil {
			return t.conjugate()
		}
	}
	return nil
}

// spectralProduct writes dst = F⁻¹(t̂·F(v)) with t̂ = θ̂ or its conjugate.
func (t *Term) spectralProduct(dst, v, that gpu.Buffer) error {
	if err := t.spectra(); err != nil {
		return err
	}
	o := t.ops
	if err := o.RFFT2(t.specA, v, t.s); err != nil {
		return err
	}
	if err := o.Zero(t.specB); err != nil {
		return err
	}
	if err := o.SpectralMulAdd(t.specB, that, t.specA, t.s); err != nil {
		return err
	}
	return o.IRFFT2(dst, t.specB, t.s)
}

// Apply adds c·G_θ v to dst (dst may not be v).
func (t *Term) Apply(dst, v gpu.Buffer, c float64) error {
	o, s := t.ops, t.s
	var err error
	switch t.kind {
	case Scalar:
		err = o.Axpby(dst, c*t.coef, v, 1)
	case Pointwise:
		err = o.MulAdd(dst, t.theta, v, s, c)
	case SmallConv:
		if err = t.lazy(&t.tmp, s.Len()); err == nil {
			if err = o.Conv2D(t.tmp, v, t.theta, s, t.small.K, t.small.Boundary); err == nil {
				err = o.Axpby(dst, c, t.tmp, 1)
			}
		}
	case Spectral:
		if err = t.lazy(&t.tmp, s.Len()); err == nil {
			if err = t.spectralProduct(t.tmp, v, t.theta); err == nil {
				err = o.Axpby(dst, c, t.tmp, 1)
			}
		}
	case Full:
		err = o.(gpu.MatOps).MatMulAdd(dst, t.theta, v, s, c, false)
	}
	if err != nil {
		return fmt.Errorf("ondevice: apply %v: %w", t.kind, err)
	}
	return nil
}

// Transpose writes dst = G_θᵀ b (dst may not be b).
func (t *Term) Transpose(dst, b gpu.Buffer) error {
	o, s := t.ops, t.s
	var err error
	switch t.kind {
	case Scalar:
		if err = o.Zero(dst); err == nil {
			err = o.Axpby(dst, t.coef, b, 1)
		}
	case Pointwise:
		if err = o.Zero(dst); err == nil {
			err = o.MulAdd(dst, t.theta, b, s, 1)
		}
	case SmallConv:
		err = o.Conv2DAdjointImage(dst, b, t.theta, s, t.small.K, t.small.Boundary)
	case Spectral:
		if t.conjTheta == nil {
			// First transpose: make conj(θ̂) from the θ̂ on the device.
			if err = t.lazy(&t.conjTheta, t.s.SpectrumLen()); err == nil {
				err = t.conjugate()
			}
		}
		if err == nil {
			err = t.spectralProduct(dst, b, t.conjTheta)
		}
	case Full:
		if err = o.Zero(dst); err == nil {
			err = o.(gpu.MatOps).MatMulAdd(dst, t.theta, b, s, 1, true)
		}
	}
	if err != nil {
		return fmt.Errorf("ondevice: transpose %v: %w", t.kind, err)
	}
	return nil
}

// AddParamGrad adds c·∇_θ⟨r, G_θ v⟩ (which does not depend on θ) to grad
// (len(θ) values on the host).
func (t *Term) AddParamGrad(grad []float64, v, r gpu.Buffer, c float64) error {
	if len(grad) != t.n {
		return fmt.Errorf("ondevice: parameter gradient of %d values, want %d", len(grad), t.n)
	}
	o, s := t.ops, t.s
	switch t.kind {
	case Scalar:
		d, err := o.Dot(r, v)
		if err != nil {
			return fmt.Errorf("ondevice: parameter gradient: %w", err)
		}
		grad[0] += c * d
		return nil
	case Spectral:
		if err := t.spectra(); err != nil {
			return fmt.Errorf("ondevice: parameter gradient: %w", err)
		}
		if err := o.RFFT2(t.specA, v, s); err != nil {
			return fmt.Errorf("ondevice: parameter gradient: %w", err)
		}
		if err := o.RFFT2(t.specB, r, s); err != nil {
			return fmt.Errorf("ondevice: parameter gradient: %w", err)
		}
		return t.AddParamGradSpectra(grad, t.specA, t.specB, c)
	case Pointwise:
		if err := o.ProductSum(t.gimg, r, v, s); err != nil {
			return fmt.Errorf("ondevice: parameter gradient: %w", err)
		}
	case SmallConv:
		if err := o.Conv2DAdjointKernel(t.gimg, v, r, s, t.small.K, t.small.Boundary); err != nil {
			return fmt.Errorf("ondevice: parameter gradient: %w", err)
		}
	case Full:
		if err := o.(gpu.MatOps).OuterSum(t.gimg, r, v, s); err != nil {
			return fmt.Errorf("ondevice: parameter gradient: %w", err)
		}
	}
	if cap(t.host) < t.n {
		t.host = make([]float64, t.n)
	}
	h := t.host[:t.n]
	if err := o.CopyOut(h, t.gimg); err != nil {
		return fmt.Errorf("ondevice: parameter gradient: %w", err)
	}
	kernels.AxpyLarge(grad, c, h)
	return nil
}

// spectra makes the PC term's two batches of spectra on first use.
func (t *Term) spectra() error {
	if err := t.lazy(&t.specA, t.s.N*t.s.SpectrumLen()); err != nil {
		return err
	}
	return t.lazy(&t.specB, t.s.N*t.s.SpectrumLen())
}

// conjugate writes conj(θ̂) into conjTheta from the host copy of θ̂.
func (t *Term) conjugate() error {
	for q := 0; q < len(t.thetaSpec); q += 2 {
		t.host[q], t.host[q+1] = t.thetaSpec[q], -t.thetaSpec[q+1]
	}
	if err := t.ops.CopyIn(t.conjTheta, t.host); err != nil {
		return fmt.Errorf("ondevice: copy conj θ̂ to %s: %w", t.ops.Name(), err)
	}
	return nil
}

// AddSpectra adds θ̂·v̂_n to acc_n for every image n (a PC term): v̂ are the
// spectra of the operands (gpu.Ops.RFFT2), kept by a caller that applies the
// term to the same operands many times; F⁻¹(acc) is then Σ G_θ v.
func (t *Term) AddSpectra(acc, vSpec gpu.Buffer) error {
	if t.kind != Spectral {
		return fmt.Errorf("ondevice: AddSpectra on a %v term", t.kind)
	}
	return t.ops.SpectralMulAdd(acc, t.theta, vSpec, t.s)
}

// AddConjSum adds Σ_n conj(v̂_n)·r̂_n, a PC term's parameter gradient
// before its inverse transform, to dst (one spectrum on the host, in
// float64) from the spectra of v and r: one copy from the device.
func (t *Term) AddConjSum(dst []kernels.Complex[float64], vSpec, rSpec gpu.Buffer) error {
	if t.kind != Spectral {
		return fmt.Errorf("ondevice: AddConjSum on a %v term", t.kind)
	}
	if len(dst) != len(t.spec64) {
		return fmt.Errorf("ondevice: a spectrum of %d values, want %d", len(dst), len(t.spec64))
	}
	if err := t.ops.SpectralConjSum(t.gsum, vSpec, rSpec, t.s); err != nil {
		return fmt.Errorf("ondevice: parameter gradient: %w", err)
	}
	if err := t.ops.CopyOut(t.host, t.gsum); err != nil {
		return fmt.Errorf("ondevice: parameter gradient: %w", err)
	}
	for q, c := range kernels.ComplexView(t.host) {
		dst[q].Re += c.Re
		dst[q].Im += c.Im
	}
	return nil
}

// AddParamGradSpectra is AddParamGrad for a PC term from the spectra of v
// and r: grad += c·F⁻¹(Σ_n conj(v̂_n)·r̂_n), the inverse transform on the host
// in float64.
func (t *Term) AddParamGradSpectra(grad []float64, vSpec, rSpec gpu.Buffer, c float64) error {
	if len(grad) != t.n {
		return fmt.Errorf("ondevice: parameter gradient of %d values, want %d", len(grad), t.n)
	}
	clear(t.spec64)
	if err := t.AddConjSum(t.spec64, vSpec, rSpec); err != nil {
		return err
	}
	t.plan.Inverse(t.img64, t.spec64)
	for j, x := range t.img64 {
		grad[j] += c * x
	}
	return nil
}

func (k Kind) String() string {
	return [...]string{"ps", "pp", "pc-k", "pc", "pf"}[k]
}

// Check returns nil if the learned update of m on o can run on a device:
// every term has a device path and o has a device form (problem.DeviceForm).
// Otherwise the error names what has no device path and says to use
// --device cpu.
func Check(m models.Method, o *problem.Objective) error {
	if err := CheckMethod(m); err != nil {
		return err
	}
	return CheckObjective(o)
}

// CheckObjective reports whether o has a device form (problem.DeviceForm):
// what a computation whose terms may be graph terms (NewDeviceTerm) needs.
func CheckObjective(o *problem.Objective) error {
	if _, ok := o.DeviceForm(); !ok {
		return noDevicePath(o)
	}
	return nil
}
