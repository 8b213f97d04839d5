package ondevice

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/param"
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
)

// KindOf returns the kind of a parametrization, or an error naming it if it
// has no device path (PF and user types).
func KindOf(p param.Parametrization) (Kind, param.SmallConv, error) {
	switch q := p.(type) {
	case param.Scalar, *param.Scalar:
		return Scalar, param.SmallConv{}, nil
	case param.Pointwise, *param.Pointwise:
		return Pointwise, param.SmallConv{}, nil
	case param.SmallConv:
		return SmallConv, q, nil
	case *param.SmallConv:
		return SmallConv, *q, nil
	case *param.FullConv:
		return Spectral, param.SmallConv{}, nil
	}
	return 0, param.SmallConv{}, fmt.Errorf("ondevice: %s has no device path (ps, pp, pc-k and pc terms do); use --device cpu", p.Name())
}

// CheckMethod returns nil if every term of m has a device path.
func CheckMethod(m param.Method) error {
	for _, p := range []param.Parametrization{m.G, m.H} {
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
// for batches of shape s, at the parameters last given to SetParams.
type Term struct {
	ops   gpu.Ops
	s     gpu.Batch
	kind  Kind
	small param.SmallConv
	n     int // len(θ)

	coef               float64    // Scalar: θ
	theta, conjTheta   gpu.Buffer // PP, PC-k: θ; PC: θ̂ and conj(θ̂)
	tmp                gpu.Buffer // a batch
	specA, specB, gsum gpu.Buffer // PC: two batches of spectra and one spectrum
	gimg               gpu.Buffer // PP: Σ r⊙v; PC-k: the kernel gradient
	bufs               []gpu.Buffer

	plan   *kernels.FFT2T[float64]
	spec64 []kernels.Complex[float64]
	img64  []float64
	host   []float64
}

// NewTerm returns the term of parametrization p for batches of shape s.
func NewTerm(ops gpu.Ops, p param.Parametrization, s gpu.Batch) (t *Term, err error) {
	kind, small, err := KindOf(p)
	if err != nil {
		return nil, err
	}
	t = &Term{ops: ops, s: s, kind: kind, small: small, n: p.ParamShape(s.H, s.W).TotalSize()}
	defer func() {
		if err != nil {
			t.Close()
		}
	}()
	hw, sl := s.H*s.W, s.SpectrumLen()
	if t.tmp, err = t.alloc(s.Len()); err != nil {
		return nil, err
	}
	switch kind {
	case Pointwise:
		if t.theta, err = t.alloc(hw); err == nil {
			t.gimg, err = t.alloc(hw)
		}
	case SmallConv:
		if t.theta, err = t.alloc(small.K * small.K); err == nil {
			t.gimg, err = t.alloc(small.K * small.K)
		}
	case Spectral:
		for _, b := range []*gpu.Buffer{&t.theta, &t.conjTheta, &t.gsum} {
			if *b, err = t.alloc(sl); err != nil {
				return nil, err
			}
		}
		for _, b := range []*gpu.Buffer{&t.specA, &t.specB} {
			if *b, err = t.alloc(s.N * sl); err != nil {
				return nil, err
			}
		}
		t.plan = kernels.NewFFT2T[float64](s.H, s.W)
		t.spec64 = make([]kernels.Complex[float64], sl/2)
		t.img64 = make([]float64, hw)
		t.host = make([]float64, sl)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Term) alloc(n int) (gpu.Buffer, error) {
	b, err := t.ops.Alloc(n)
	if err != nil {
		return nil, fmt.Errorf("ondevice: allocate %d values on %s: %w", n, t.ops.Name(), err)
	}
	t.bufs = append(t.bufs, b)
	return b, nil
}

// Kind is the term's kind.
func (t *Term) Kind() Kind { return t.kind }

// ParamLen is len(θ).
func (t *Term) ParamLen() int { return t.n }

// Bytes is what the term's device buffers hold.
func (t *Term) Bytes() int64 {
	var n int64
	for _, b := range t.bufs {
		n += int64(b.Len())
	}
	return n * int64(t.ops.ValueSize())
}

// Close frees the device buffers.
func (t *Term) Close() {
	for _, b := range t.bufs {
		t.ops.Free(b)
	}
	t.bufs = nil
}

// SetParams sets θ (copied to the device; PC: its spectrum, computed on the
// host in float64).
func (t *Term) SetParams(theta []float64) error {
	if len(theta) != t.n {
		return fmt.Errorf("ondevice: %d parameters, want %d", len(theta), t.n)
	}
	switch t.kind {
	case Scalar:
		t.coef = theta[0]
	case Pointwise, SmallConv:
		if err := t.ops.CopyIn(t.theta, theta); err != nil {
			return fmt.Errorf("ondevice: copy θ to %s: %w", t.ops.Name(), err)
		}
	case Spectral:
		t.plan.Forward(t.spec64, theta)
		for q, c := range t.spec64 {
			t.host[2*q], t.host[2*q+1] = c.Re, c.Im
		}
		if err := t.ops.CopyIn(t.theta, t.host); err != nil {
			return fmt.Errorf("ondevice: copy θ̂ to %s: %w", t.ops.Name(), err)
		}
		for q := range t.spec64 {
			t.host[2*q+1] = -t.host[2*q+1]
		}
		if err := t.ops.CopyIn(t.conjTheta, t.host); err != nil {
			return fmt.Errorf("ondevice: copy conj θ̂ to %s: %w", t.ops.Name(), err)
		}
	}
	return nil
}

// spectralProduct writes dst = F⁻¹(t̂·F(v)) with t̂ = θ̂ or its conjugate.
func (t *Term) spectralProduct(dst, v, that gpu.Buffer) error {
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
		if err = o.Conv2D(t.tmp, v, t.theta, s, t.small.K, t.small.Boundary); err == nil {
			err = o.Axpby(dst, c, t.tmp, 1)
		}
	case Spectral:
		if err = t.spectralProduct(t.tmp, v, t.theta); err == nil {
			err = o.Axpby(dst, c, t.tmp, 1)
		}
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
		err = t.spectralProduct(dst, b, t.conjTheta)
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
		if err := o.RFFT2(t.specA, v, s); err != nil {
			return fmt.Errorf("ondevice: parameter gradient: %w", err)
		}
		if err := o.RFFT2(t.specB, r, s); err != nil {
			return fmt.Errorf("ondevice: parameter gradient: %w", err)
		}
		if err := o.SpectralConjSum(t.gsum, t.specA, t.specB, s); err != nil {
			return fmt.Errorf("ondevice: parameter gradient: %w", err)
		}
		if err := o.CopyOut(t.host, t.gsum); err != nil {
			return fmt.Errorf("ondevice: parameter gradient: %w", err)
		}
		copy(t.spec64, kernels.ComplexView(t.host))
		t.plan.Inverse(t.img64, t.spec64)
		for j, x := range t.img64 {
			grad[j] += c * x
		}
		return nil
	case Pointwise:
		if err := o.ProductSum(t.gimg, r, v, s); err != nil {
			return fmt.Errorf("ondevice: parameter gradient: %w", err)
		}
	case SmallConv:
		if err := o.Conv2DAdjointKernel(t.gimg, v, r, s, t.small.K, t.small.Boundary); err != nil {
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
	for j, x := range h {
		grad[j] += c * x
	}
	return nil
}

func (k Kind) String() string {
	return [...]string{"ps", "pp", "pc-k", "pc"}[k]
}

// Check returns nil if the learned update of m on o can run on a device:
// every term has a device path and o is of problem.DeblurForm's kind.
// Otherwise the error names what has no device path and says to use
// --device cpu.
func Check(m param.Method, o *problem.Objective) error {
	if err := CheckMethod(m); err != nil {
		return err
	}
	if _, ok := o.DeblurForm(); !ok {
		return fmt.Errorf("ondevice: objective with operator %v and regularizer %v has no device path (deblurring with Huber-TV or no regularizer only); use --device cpu", o.A, o.Reg)
	}
	return nil
}
