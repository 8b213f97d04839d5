package models

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// DeviceTerm is a parametrized operator G_θ of the learned update on a
// device's arrays (package gpu's Ops), for batches of one shape, at the
// parameters last given to SetParams. Parameters and their gradients live
// on the host; images on the device.
type DeviceTerm interface {
	// ParamLen is the number of parameters θ.
	ParamLen() int
	// SetParams sets θ.
	SetParams(theta []float64) error
	// Apply adds c·G_θ v to dst (dst may not be v).
	Apply(dst, v gpu.Buffer, c float64) error
	// Transpose writes dst = G_θᵀ b (dst may not be b).
	Transpose(dst, b gpu.Buffer) error
	// AddParamGrad adds c·∇_θ⟨r, G_θ v⟩ (which does not depend on θ) to
	// grad.
	AddParamGrad(grad []float64, v, r gpu.Buffer, c float64) error
}

// DeviceBinder is implemented by families whose operator binds on a device:
// BindOn builds it for batches of shape s on mem's device, allocating from
// mem (mem.Close frees it). A family without it runs on a device through
// its graph (package ondevice's GraphTerm).
type DeviceBinder interface {
	BindOn(mem *gpu.Arena, s gpu.Batch) (DeviceTerm, error)
}

// SpectralDeviceTerm is a DeviceTerm that is an image-sized circular
// convolution (PC): its products can be summed on the operands' spectra, so
// that a caller applying it to the same operands many times (the greedy
// step loss) transforms them once and several such terms share one inverse
// transform.
type SpectralDeviceTerm interface {
	DeviceTerm
	// Product is the product θ̂·v̂_n for every image n, from the operands'
	// spectra vSpec (gpu.Ops.RFFT2), for gpu.Ops.SpectralMulSum: F⁻¹ of the
	// sum of the terms' products is then Σ G_θ v.
	Product(vSpec gpu.Buffer) gpu.SpectralProduct
	// AddParamGradSpectra is AddParamGrad from the spectra of v and r:
	// grad += c·F⁻¹(Σ_n conj(v̂_n)·r̂_n), the sum and the inverse transform
	// on the device.
	AddParamGradSpectra(grad []float64, vSpec, rSpec gpu.Buffer, c float64) error
	// AddConjSum adds Σ_n conj(v̂_n)·r̂_n, the parameter gradient before its
	// inverse transform, to dst (one spectrum on the host, in float64).
	AddConjSum(dst []kernels.Complex[float64], vSpec, rSpec gpu.Buffer) error
	// TransposeSpectra is Transpose from the spectra of b (bSpec, left
	// as it is): a caller that transposes several terms at the same b
	// transforms it once.
	TransposeSpectra(dst, bSpec gpu.Buffer) error
	// AddParamGradOnSpectra is AddParamGradOn with r given by its spectra
	// (rSpec, left as it is).
	AddParamGradOnSpectra(dst gpu.Buffer, off int, v, rSpec gpu.Buffer, c float64) error
	// PrepareTranspose makes what Transpose needs at the parameters set
	// (conj(θ̂), copied to the device and transformed there), so that the
	// transposes that follow queue only work on the device (a capture,
	// gpu.Capturer, records them).
	PrepareTranspose() error
}

// DeviceParamTerm is a DeviceTerm whose parameters can also be set from a
// buffer on its device: the iterates of an inner solver that lives there.
type DeviceParamTerm interface {
	DeviceTerm
	// SetParamsOn sets θ = c·theta, theta a buffer of ParamLen values on
	// the term's device. It queues its work on the device and reads
	// nothing back.
	SetParamsOn(theta gpu.Buffer, c float64) error
}

// DeviceGradTerm is a DeviceTerm whose parameter gradient can stay on its
// device, added into a readout (gpu.Ops.AllocReadout) that gathers many of
// them (every step of an unrolled trajectory) for one copy back.
type DeviceGradTerm interface {
	DeviceTerm
	// GradInSum reports where the gradient goes in a readout: one of its
	// float64 sums (a term of one parameter), or ParamLen of its values.
	GradInSum() bool
	// AddParamGradOn adds c·∇_θ⟨r, G_θ v⟩ (AddParamGrad's gradient) to the
	// readout dst: to its sum off where GradInSum, else to its values off,
	// …, off+ParamLen−1. It queues its work on the device and reads
	// nothing back.
	AddParamGradOn(dst gpu.Buffer, off int, v, r gpu.Buffer, c float64) error
}

var (
	_ DeviceGradTerm     = (*arrayTerm)(nil)
	_ DeviceGradTerm     = spectralArrayTerm{}
	_ DeviceParamTerm    = spectralArrayTerm{}
	_ DeviceBinder       = Scalar{}
	_ DeviceBinder       = Pointwise{}
	_ DeviceBinder       = SmallConv{}
	_ DeviceBinder       = (*FullConv)(nil)
	_ DeviceBinder       = Full{}
	_ SpectralDeviceTerm = spectralArrayTerm{}
)

// spectralArrayTerm is PC's device term: an arrayTerm of kind spectralTerm,
// with the products on spectra.
type spectralArrayTerm struct{ *arrayTerm }

// Product implements SpectralDeviceTerm.
func (t spectralArrayTerm) Product(vSpec gpu.Buffer) gpu.SpectralProduct { return t.product(vSpec) }

// AddParamGradSpectra implements SpectralDeviceTerm.
func (t spectralArrayTerm) AddParamGradSpectra(grad []float64, vSpec, rSpec gpu.Buffer, c float64) error {
	return t.addParamGradSpectra(grad, vSpec, rSpec, c)
}

// AddConjSum implements SpectralDeviceTerm.
func (t spectralArrayTerm) AddConjSum(dst []kernels.Complex[float64], vSpec, rSpec gpu.Buffer) error {
	return t.addConjSum(dst, vSpec, rSpec)
}

// TransposeSpectra implements SpectralDeviceTerm.
func (t spectralArrayTerm) TransposeSpectra(dst, bSpec gpu.Buffer) error {
	return t.transposeSpectra(dst, bSpec)
}

// PrepareTranspose implements SpectralDeviceTerm.
func (t spectralArrayTerm) PrepareTranspose() error { return t.conjugated() }

// AddParamGradOnSpectra implements SpectralDeviceTerm.
func (t spectralArrayTerm) AddParamGradOnSpectra(dst gpu.Buffer, off int, v, rSpec gpu.Buffer, c float64) error {
	return t.addParamGradOnSpectra(dst, off, v, rSpec, c)
}

// SetParamsOn implements DeviceParamTerm: θ̂ = c·F(theta), transformed on
// the device, c applied in the products (Product: no pass of its own).
// Transpose, which needs θ on the host, then fails until SetParams.
func (t spectralArrayTerm) SetParamsOn(theta gpu.Buffer, c float64) error {
	if err := t.ops.RFFT2(t.theta, theta, t.one()); err != nil {
		return fmt.Errorf("models: θ̂ from the device: %w", err)
	}
	t.thetaScale, t.thetaScaled = c, true
	t.thetaHost, t.conjValid = t.thetaHost[:0], false
	return nil
}

// BindOn implements DeviceBinder.
func (Scalar) BindOn(mem *gpu.Arena, s gpu.Batch) (DeviceTerm, error) {
	return bindArray(mem, scalarTerm, SmallConv{}, 1, s)
}

// BindOn implements DeviceBinder.
func (Pointwise) BindOn(mem *gpu.Arena, s gpu.Batch) (DeviceTerm, error) {
	return bindArray(mem, pointwiseTerm, SmallConv{}, s.H*s.W, s)
}

// BindOn implements DeviceBinder.
func (c SmallConv) BindOn(mem *gpu.Arena, s gpu.Batch) (DeviceTerm, error) {
	return bindArray(mem, smallConvTerm, c, c.K*c.K, s)
}

// BindOn implements DeviceBinder (a SpectralDeviceTerm).
func (*FullConv) BindOn(mem *gpu.Arena, s gpu.Batch) (DeviceTerm, error) {
	t, err := newArrayTerm(mem, spectralTerm, SmallConv{}, s.H*s.W, s)
	if err != nil {
		return nil, err
	}
	return spectralArrayTerm{t}, nil
}

// BindOn implements DeviceBinder: the device must have gpu.MatOps.
func (Full) BindOn(mem *gpu.Arena, s gpu.Batch) (DeviceTerm, error) {
	hw := s.H * s.W
	return bindArray(mem, fullTerm, SmallConv{}, hw*hw, s)
}

// bindArray returns the arrayTerm as a DeviceTerm (no nil pointer in the
// interface on an error).
func bindArray(mem *gpu.Arena, kind arrayKind, small SmallConv, n int, s gpu.Batch) (DeviceTerm, error) {
	t, err := newArrayTerm(mem, kind, small, n, s)
	if err != nil {
		return nil, err
	}
	return t, nil
}
