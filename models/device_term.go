package models

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// arrayKind is what an arrayTerm computes.
type arrayKind int

// The kinds of the built-in families' device terms.
const (
	scalarTerm    arrayKind = iota // G_θ v = θ·v (PS)
	pointwiseTerm                  // G_θ v = θ⊙v (PP)
	smallConvTerm                  // G_θ v = θ ⋆ v, K×K kernel with a boundary (PC-k)
	spectralTerm                   // G_θ v = θ ⊛ v, image-sized, circular, by FFT (PC)
	fullTerm                       // G_θ v = Θ v, Θ an (H·W)×(H·W) matrix (PF; needs gpu.MatOps)
)

func (k arrayKind) String() string {
	return [...]string{"ps", "pp", "pc-k", "pc", "pf"}[k]
}

// arrayTerm is the operator G_θ of a built-in family on a device,
// for batches of shape s, at the parameters last given to SetParams. Its
// buffers belong to the arena it was built on.
type arrayTerm struct {
	ops   gpu.Ops
	mem   *gpu.Arena
	s     gpu.Batch
	kind  arrayKind
	small SmallConv
	n     int // len(θ)

	coef             float64    // Scalar: θ
	theta, conjTheta gpu.Buffer // PP, PC-k: θ; PC: θ̂ and conj(θ̂) (the latter made by Transpose)
	conjValid        bool       // PC: conjTheta is that of the parameters set
	// PC: θ̂ is theta's values times thetaScale where thetaScaled (set on
	// the device, SetParamsOn: the scale rides in the products).
	thetaScale         float64
	thetaScaled        bool
	tmp                gpu.Buffer // a batch (PC-k, PC; made on first use)
	specA, specB, gsum gpu.Buffer // PC: two batches of spectra (made on first use) and one spectrum
	gimg               gpu.Buffer // PP: Σ r⊙v; PC-k: the kernel gradient; PC: θ, or its gradient, as an image

	specLen int       // PC: the number of complex values of one spectrum
	host    []float64 // PC: a spectrum's values, or an image's, read back
	// thetaHost is θ (PC) on the host, as last set: Transpose's conj(θ̂) is
	// the spectrum of θ reflected.
	thetaHost []float64
}

// newArrayTerm returns the device term of kind kind (small: PC-k's
// kernel) with n parameters, for batches of shape s, allocated on mem.
func newArrayTerm(mem *gpu.Arena, kind arrayKind, small SmallConv, n int, s gpu.Batch) (t *arrayTerm, err error) {
	ops := mem.Ops()
	t = &arrayTerm{ops: ops, mem: mem, s: s, kind: kind, small: small, n: n}
	hw, sl := s.H*s.W, s.SpectrumLen()
	switch kind {
	case pointwiseTerm:
		if t.theta, err = t.alloc(hw); err == nil {
			t.gimg, err = t.alloc(hw)
		}
	case smallConvTerm:
		if t.theta, err = t.alloc(small.K * small.K); err == nil {
			t.gimg, err = t.alloc(small.K * small.K)
		}
	case fullTerm:
		if _, ok := ops.(gpu.MatOps); !ok {
			return nil, fmt.Errorf("models: device %s has no matrix products (gpu.MatOps) for pf; use --device cpu", ops.Name())
		}
		if t.theta, err = t.alloc(hw * hw); err == nil {
			t.gimg, err = t.alloc(hw * hw)
		}
	case spectralTerm:
		for _, b := range []*gpu.Buffer{&t.theta, &t.gsum} {
			if *b, err = t.alloc(sl); err != nil {
				return nil, err
			}
		}
		if t.gimg, err = t.alloc(hw); err != nil {
			return nil, err
		}
		t.specLen = sl / 2
		t.host = make([]float64, max(sl, hw))
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// lazy allocates *b with n values if it is not allocated yet.
func (t *arrayTerm) lazy(b *gpu.Buffer, n int) error {
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

func (t *arrayTerm) alloc(n int) (gpu.Buffer, error) {
	b, err := t.mem.Alloc(n)
	if err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	return b, nil
}

// ParamLen is len(θ).
func (t *arrayTerm) ParamLen() int { return t.n }

// SetParams sets θ (copied to the device; PC: its spectrum, computed on the
// host in float64).
func (t *arrayTerm) SetParams(theta []float64) error {
	if len(theta) != t.n {
		return fmt.Errorf("models: %d parameters, want %d", len(theta), t.n)
	}
	switch t.kind {
	case scalarTerm:
		t.coef = theta[0]
	case pointwiseTerm, smallConvTerm, fullTerm:
		if err := t.ops.CopyIn(t.theta, theta); err != nil {
			return fmt.Errorf("models: copy θ to %s: %w", t.ops.Name(), err)
		}
	case spectralTerm:
		t.thetaHost = append(t.thetaHost[:0], theta...)
		t.thetaScaled = false
		if err := t.transform(t.theta, theta); err != nil {
			return fmt.Errorf("models: θ̂: %w", err)
		}
		t.conjValid = false // made again by the next Transpose
	}
	return nil
}

// one is the batch of one image of the term's size.
func (t *arrayTerm) one() gpu.Batch { return gpu.Batch{N: 1, H: t.s.H, W: t.s.W} }

// transform writes the spectrum of the image img (host values) into spec
// on the device: one copy in and one transform there.
func (t *arrayTerm) transform(spec gpu.Buffer, img []float64) error {
	if err := t.ops.CopyIn(t.gimg, img); err != nil {
		return err
	}
	return t.ops.RFFT2(spec, t.gimg, t.one())
}

// spectralProduct writes dst = F⁻¹(t̂·F(v)) with t̂ = θ̂ (that is t.theta)
// or its conjugate.
func (t *arrayTerm) spectralProduct(dst, v, that gpu.Buffer) error {
	if err := t.spectra(); err != nil {
		return err
	}
	o := t.ops
	if err := o.RFFT2(t.specA, v, t.s); err != nil {
		return err
	}
	p := gpu.SpectralProduct{T: that, V: t.specA}
	if that == t.theta {
		p = t.product(t.specA)
	}
	if err := o.SpectralMulSum(t.specB, t.s, p); err != nil {
		return err
	}
	return o.IRFFT2(dst, t.specB, t.s)
}

// Apply adds c·G_θ v to dst (dst may not be v).
func (t *arrayTerm) Apply(dst, v gpu.Buffer, c float64) error {
	o, s := t.ops, t.s
	var err error
	switch t.kind {
	case scalarTerm:
		err = o.Axpby(dst, c*t.coef, v, 1)
	case pointwiseTerm:
		err = o.MulAdd(dst, t.theta, v, s, c)
	case smallConvTerm:
		if err = t.lazy(&t.tmp, s.Len()); err == nil {
			if err = o.Conv2D(t.tmp, v, t.theta, s, t.small.K, t.small.Boundary); err == nil {
				err = o.Axpby(dst, c, t.tmp, 1)
			}
		}
	case spectralTerm:
		if err = t.lazy(&t.tmp, s.Len()); err == nil {
			if err = t.spectralProduct(t.tmp, v, t.theta); err == nil {
				err = o.Axpby(dst, c, t.tmp, 1)
			}
		}
	case fullTerm:
		err = o.(gpu.MatOps).MatMulAdd(dst, t.theta, v, s, c, false)
	}
	if err != nil {
		return fmt.Errorf("models: apply %v: %w", t.kind, err)
	}
	return nil
}

// Transpose writes dst = G_θᵀ b (dst may not be b).
func (t *arrayTerm) Transpose(dst, b gpu.Buffer) error {
	o, s := t.ops, t.s
	var err error
	switch t.kind {
	case scalarTerm:
		if err = o.Zero(dst); err == nil {
			err = o.Axpby(dst, t.coef, b, 1)
		}
	case pointwiseTerm:
		if err = o.Zero(dst); err == nil {
			err = o.MulAdd(dst, t.theta, b, s, 1)
		}
	case smallConvTerm:
		err = o.Conv2DAdjointImage(dst, b, t.theta, s, t.small.K, t.small.Boundary)
	case spectralTerm:
		if err = t.conjugated(); err == nil {
			err = t.spectralProduct(dst, b, t.conjTheta)
		}
	case fullTerm:
		if err = o.Zero(dst); err == nil {
			err = o.(gpu.MatOps).MatMulAdd(dst, t.theta, b, s, 1, true)
		}
	}
	if err != nil {
		return fmt.Errorf("models: transpose %v: %w", t.kind, err)
	}
	return nil
}

// conjugated makes conj(θ̂) on the device on a PC term's first transpose
// at its parameters.
func (t *arrayTerm) conjugated() error {
	if t.conjValid {
		return nil
	}
	err := t.lazy(&t.conjTheta, t.s.SpectrumLen())
	if err == nil {
		err = t.conjugate()
	}
	t.conjValid = err == nil
	return err
}

// transposeSpectra writes dst = G_θᵀ b for a PC term from the spectra of
// b: Transpose's product without its transform of b.
func (t *arrayTerm) transposeSpectra(dst, bSpec gpu.Buffer) error {
	if t.kind != spectralTerm {
		return fmt.Errorf("models: transposeSpectra on a %v term", t.kind)
	}
	err := t.conjugated()
	if err == nil {
		err = t.spectra()
	}
	if err == nil {
		err = t.ops.Zero(t.specB)
	}
	if err == nil {
		err = t.ops.SpectralMulAdd(t.specB, t.conjTheta, bSpec, t.s)
	}
	if err == nil {
		err = t.ops.IRFFT2(dst, t.specB, t.s)
	}
	if err != nil {
		return fmt.Errorf("models: transpose %v: %w", t.kind, err)
	}
	return nil
}

// AddParamGrad adds c·∇_θ⟨r, G_θ v⟩ (which does not depend on θ) to grad
// (len(θ) values on the host).
func (t *arrayTerm) AddParamGrad(grad []float64, v, r gpu.Buffer, c float64) error {
	if len(grad) != t.n {
		return fmt.Errorf("models: parameter gradient of %d values, want %d", len(grad), t.n)
	}
	if t.kind == scalarTerm {
		d, err := t.ops.Dot(r, v)
		if err != nil {
			return fmt.Errorf("models: parameter gradient: %w", err)
		}
		grad[0] += c * d
		return nil
	}
	if err := t.gradImage(v, r); err != nil {
		return err
	}
	return t.addGradImage(grad, c)
}

// gradImage writes ∇_θ⟨r, G_θ v⟩ into t.gimg on the device (every kind but
// the scalar one).
func (t *arrayTerm) gradImage(v, r gpu.Buffer) error {
	o, s := t.ops, t.s
	var err error
	switch t.kind {
	case spectralTerm:
		if err = t.spectra(); err == nil {
			if err = o.RFFT2(t.specA, v, s); err == nil {
				if err = o.RFFT2(t.specB, r, s); err == nil {
					return t.gradImageSpectra(t.specA, t.specB)
				}
			}
		}
	case pointwiseTerm:
		err = o.ProductSum(t.gimg, r, v, s)
	case smallConvTerm:
		err = o.Conv2DAdjointKernel(t.gimg, v, r, s, t.small.K, t.small.Boundary)
	case fullTerm:
		err = o.(gpu.MatOps).OuterSum(t.gimg, r, v, s)
	default:
		err = fmt.Errorf("no gradient image for a %v term", t.kind)
	}
	if err != nil {
		return fmt.Errorf("models: parameter gradient: %w", err)
	}
	return nil
}

// gradImageSpectra writes a PC term's F⁻¹(Σ_n conj(v̂_n)·r̂_n) into t.gimg
// from the spectra of v and r.
func (t *arrayTerm) gradImageSpectra(vSpec, rSpec gpu.Buffer) error {
	if err := t.ops.SpectralConjSum(t.gsum, vSpec, rSpec, t.s); err != nil {
		return fmt.Errorf("models: parameter gradient: %w", err)
	}
	if err := t.ops.IRFFT2(t.gimg, t.gsum, t.one()); err != nil {
		return fmt.Errorf("models: parameter gradient: %w", err)
	}
	return nil
}

// addGradImage reads t.gimg back and adds c times it to grad.
func (t *arrayTerm) addGradImage(grad []float64, c float64) error {
	if cap(t.host) < t.n {
		t.host = make([]float64, t.n)
	}
	h := t.host[:t.n]
	if err := t.ops.CopyOut(h, t.gimg); err != nil {
		return fmt.Errorf("models: parameter gradient: %w", err)
	}
	kernels.AxpyLarge(grad, c, h)
	return nil
}

// GradInSum implements DeviceGradTerm: a scalar term's gradient is one
// float64 sum of a readout.
func (t *arrayTerm) GradInSum() bool { return t.kind == scalarTerm }

// AddParamGradOn implements DeviceGradTerm: the gradient is computed as
// AddParamGrad's and added on the device (gpu.Ops.AddDot for a scalar term,
// gpu.SliceOps.AxpyAt for the others), nothing read back.
func (t *arrayTerm) AddParamGradOn(dst gpu.Buffer, off int, v, r gpu.Buffer, c float64) error {
	if t.kind == scalarTerm {
		if err := t.ops.AddDot(dst, off, c, r, v); err != nil {
			return fmt.Errorf("models: parameter gradient: %w", err)
		}
		return nil
	}
	if err := t.gradImage(v, r); err != nil {
		return err
	}
	return t.addGradImageOn(dst, off, c)
}

// addGradImageOn adds c times t.gimg to the values off, … of the readout
// dst, on the device.
func (t *arrayTerm) addGradImageOn(dst gpu.Buffer, off int, c float64) error {
	so, ok := t.ops.(gpu.SliceOps)
	if !ok {
		return fmt.Errorf("models: device %s cannot add a parameter gradient into a readout (gpu.SliceOps)", t.ops.Name())
	}
	if err := so.AxpyAt(dst, off, c, t.gimg); err != nil {
		return fmt.Errorf("models: parameter gradient: %w", err)
	}
	return nil
}

// addParamGradOnSpectra is AddParamGradOn for a PC term with r given by
// its spectra: v transformed here, r̂ left as it is.
func (t *arrayTerm) addParamGradOnSpectra(dst gpu.Buffer, off int, v, rSpec gpu.Buffer, c float64) error {
	if t.kind != spectralTerm {
		return fmt.Errorf("models: addParamGradOnSpectra on a %v term", t.kind)
	}
	if err := t.spectra(); err != nil {
		return fmt.Errorf("models: parameter gradient: %w", err)
	}
	if err := t.ops.RFFT2(t.specA, v, t.s); err != nil {
		return fmt.Errorf("models: parameter gradient: %w", err)
	}
	if err := t.gradImageSpectra(t.specA, rSpec); err != nil {
		return err
	}
	return t.addGradImageOn(dst, off, c)
}

// spectra makes the PC term's two batches of spectra on first use.
func (t *arrayTerm) spectra() error {
	if err := t.lazy(&t.specA, t.s.N*t.s.SpectrumLen()); err != nil {
		return err
	}
	return t.lazy(&t.specB, t.s.N*t.s.SpectrumLen())
}

// conjugate writes conj(θ̂) into conjTheta: the spectrum of θ reflected,
// θ(−i mod H, −j mod W), transformed on the device.
func (t *arrayTerm) conjugate() error {
	h, w := t.s.H, t.s.W
	if len(t.thetaHost) != h*w {
		return fmt.Errorf("models: conj θ̂: θ was set on the device (SetParamsOn), not on the host")
	}
	flip := t.host[:h*w]
	for i := range h {
		for j := range w {
			flip[i*w+j] = t.thetaHost[((h-i)%h)*w+(w-j)%w]
		}
	}
	if err := t.transform(t.conjTheta, flip); err != nil {
		return fmt.Errorf("models: conj θ̂: %w", err)
	}
	return nil
}

// product is the product θ̂·v̂_n of a PC term for gpu.Ops.SpectralMulSum:
// v̂ are the spectra of the operands (gpu.Ops.RFFT2), kept by a caller that
// applies the term to the same operands many times.
func (t *arrayTerm) product(vSpec gpu.Buffer) gpu.SpectralProduct {
	return gpu.SpectralProduct{T: t.theta, V: vSpec, C: t.thetaScale, Scaled: t.thetaScaled}
}

// addConjSum adds Σ_n conj(v̂_n)·r̂_n, a PC term's parameter gradient
// before its inverse transform, to dst (one spectrum on the host, in
// float64) from the spectra of v and r: one copy from the device.
func (t *arrayTerm) addConjSum(dst []kernels.Complex[float64], vSpec, rSpec gpu.Buffer) error {
	if t.kind != spectralTerm {
		return fmt.Errorf("models: addConjSum on a %v term", t.kind)
	}
	if len(dst) != t.specLen {
		return fmt.Errorf("models: a spectrum of %d values, want %d", len(dst), t.specLen)
	}
	if err := t.ops.SpectralConjSum(t.gsum, vSpec, rSpec, t.s); err != nil {
		return fmt.Errorf("models: parameter gradient: %w", err)
	}
	if err := t.ops.CopyOut(t.host[:2*t.specLen], t.gsum); err != nil {
		return fmt.Errorf("models: parameter gradient: %w", err)
	}
	for q, c := range kernels.ComplexView(t.host[:2*t.specLen]) {
		dst[q].Re += c.Re
		dst[q].Im += c.Im
	}
	return nil
}

// addParamGradSpectra is AddParamGrad for a PC term from the spectra of v
// and r: grad += c·F⁻¹(Σ_n conj(v̂_n)·r̂_n), the sum and its inverse
// transform on the device, one image read back.
func (t *arrayTerm) addParamGradSpectra(grad []float64, vSpec, rSpec gpu.Buffer, c float64) error {
	if t.kind != spectralTerm {
		return fmt.Errorf("models: addParamGradSpectra on a %v term", t.kind)
	}
	if len(grad) != t.n {
		return fmt.Errorf("models: parameter gradient of %d values, want %d", len(grad), t.n)
	}
	if err := t.gradImageSpectra(vSpec, rSpec); err != nil {
		return err
	}
	return t.addGradImage(grad, c)
}
