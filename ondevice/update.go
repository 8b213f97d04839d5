package ondevice

import (
	"fmt"
	"slices"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
)

// Update is the learned update of a method on a device, for batches of
// shape s,
//
//	x⁺ = x − G_θ g + H_φ p,
//
// with its vector–Jacobian product: the greedy step loss, Algorithm 2 and
// unrolled training all run it. Term i (0: G, 1: H) is set at sign_i times
// its parameters (sign −1 for G, +1 for H), so that x⁺ = x + Σi G_{sign_i·θi} vi.
//
// Two ways to apply it: Forward, with the operands of each call (Algorithm
// 2, unrolled training), and Hold then Advance, for many parameters on the
// same operands (the step loss): PC terms then keep the operands' spectra
// and share one inverse transform an advance.
type Update struct {
	ops    gpu.Ops
	mem    *gpu.Arena
	s      gpu.Batch
	terms  []DeviceTerm
	scaled [2][]float64 // sign·θ, sign·φ (host)
	last   [2][]float64 // the parameters term i was last set at (set[i])
	set    [2]bool

	// Hold's operands and, for PC terms (spectral), their spectra; acc and
	// tmp are the advance's spectral sum and its inverse transform.
	held, specs []gpu.Buffer
	onSpec      [2]bool // specs[i] holds term i's held operand's spectra
	acc, tmp    gpu.Buffer
	spectral    bool

	// HoldAdjoint's b and, with a PC term, its spectra.
	adj, adjSpec gpu.Buffer
	adjOnSpec    bool
}

// updateSigns are the signs of the terms in x⁺ = x − G_θ g + H_φ p.
var updateSigns = [2]float64{-1, 1}

// NewUpdate returns the update of m (G, and H if any) for batches of shape s
// on mem's device: each term the family's own (models.DeviceBinder) or a
// GraphTerm (NewDeviceTerm).
func NewUpdate(mem *gpu.Arena, m models.Method, s gpu.Batch) (*Update, error) {
	u := &Update{ops: mem.Ops(), mem: mem, s: s}
	for _, p := range []models.Parametrization{m.G, m.H} {
		if p == nil {
			continue
		}
		t, err := NewDeviceTerm(mem, p, s)
		if err != nil {
			return nil, err
		}
		u.terms = append(u.terms, t)
	}
	if len(u.terms) == 0 {
		return nil, fmt.Errorf("ondevice: the method has no parametrization of G")
	}
	return u, nil
}

// Terms is the number of terms: 1 (G), or 2 (G and H).
func (u *Update) Terms() int { return len(u.terms) }

// Term is term i (0: G, 1: H), set at sign_i times its parameters.
func (u *Update) Term(i int) DeviceTerm { return u.terms[i] }

// Sign is term i's sign in the update: −1 for G, +1 for H.
func (u *Update) Sign(i int) float64 { return updateSigns[i] }

// SetParams sets term i at sign_i·params[i], for every term; a term whose
// parameters are those it was last set at is left as it is (the frozen
// block of a block evaluation: nothing copied or transformed).
func (u *Update) SetParams(params ...[]float64) error {
	if len(params) < len(u.terms) {
		return fmt.Errorf("ondevice: %d parameter blocks for %d terms", len(params), len(u.terms))
	}
	for i := range u.terms {
		if err := u.SetTermParams(i, params[i]); err != nil {
			return err
		}
	}
	return nil
}

// SetTermParams sets term i at sign_i·th, or leaves it as it is if th are
// the parameters it was last set at.
func (u *Update) SetTermParams(i int, th []float64) error {
	t := u.terms[i]
	if len(th) != t.ParamLen() {
		return fmt.Errorf("ondevice: term %d has %d parameters, want %d", i, len(th), t.ParamLen())
	}
	if u.set[i] && slices.Equal(th, u.last[i]) {
		return nil
	}
	u.set[i] = false
	u.scaled[i] = slices.Grow(u.scaled[i][:0], len(th))[:len(th)]
	kernels.ScaleLarge(u.scaled[i], updateSigns[i], th)
	if err := t.SetParams(u.scaled[i]); err != nil {
		return fmt.Errorf("ondevice: term %d: %w", i, err)
	}
	u.last[i], u.set[i] = append(u.last[i][:0], th...), true
	return nil
}

// CanSetParamsOn reports whether term i's parameters can be set from a
// device buffer (models.DeviceParamTerm).
func (u *Update) CanSetParamsOn(i int) bool {
	_, ok := u.terms[i].(models.DeviceParamTerm)
	return ok
}

// SetParamsOn sets term i at sign_i times the parameters in theta, a
// buffer on the device (models.DeviceParamTerm): its work is queued there,
// nothing read back. The next SetParams sets the term again.
func (u *Update) SetParamsOn(i int, theta gpu.Buffer) error {
	t, ok := u.terms[i].(models.DeviceParamTerm)
	if !ok {
		return fmt.Errorf("ondevice: term %d (%T) cannot take its parameters from the device", i, u.terms[i])
	}
	u.set[i] = false
	if err := t.SetParamsOn(theta, updateSigns[i]); err != nil {
		return fmt.Errorf("ondevice: term %d: %w", i, err)
	}
	return nil
}

// Forward writes dst = x + Σi G_{sign_i·θi} vi: v holds g, then p (a nil
// p, or none, leaves H out: x⁻ = x). dst may not be an operand.
func (u *Update) Forward(dst, x gpu.Buffer, v ...gpu.Buffer) error {
	if err := u.ops.Copy(dst, x); err != nil {
		return fmt.Errorf("ondevice: update: %w", err)
	}
	for i, t := range u.terms {
		if i >= len(v) || v[i] == nil {
			continue
		}
		if err := t.Apply(dst, v[i], 1); err != nil {
			return fmt.Errorf("ondevice: update, term %d: %w", i, err)
		}
	}
	return nil
}

// AddParamGrad adds to grad the gradient of ⟨b, x⁺⟩ in term i's
// parameters (unscaled), times c: c·sign_i·∇θ⟨b, G_θ vi⟩.
func (u *Update) AddParamGrad(i int, grad []float64, v, b gpu.Buffer, c float64) error {
	return u.terms[i].AddParamGrad(grad, v, b, c*updateSigns[i])
}

// GradOn reports whether term i's parameter gradient can stay on the
// device (models.DeviceGradTerm), and if so whether it takes one sum of a
// readout (inSum) or ParamLen of its values.
func (u *Update) GradOn(i int) (ok, inSum bool) {
	t, ok := u.terms[i].(models.DeviceGradTerm)
	return ok, ok && t.GradInSum()
}

// HoldAdjoint keeps b, the point of the vector–Jacobian products of
// TransposeHeld and AddParamGradOn, transformed here once where a term is a
// PC term (models.SpectralDeviceTerm) instead of once a product. b must not
// change until the next HoldAdjoint.
func (u *Update) HoldAdjoint(b gpu.Buffer) error {
	u.adj, u.adjOnSpec = b, false
	spectral := false
	for _, t := range u.terms {
		_, ok := t.(models.SpectralDeviceTerm)
		spectral = spectral || ok
	}
	if !spectral {
		return nil
	}
	if err := u.lazy(&u.adjSpec, u.s.N*u.s.SpectrumLen()); err != nil {
		return err
	}
	if err := u.ops.RFFT2(u.adjSpec, b, u.s); err != nil {
		return fmt.Errorf("ondevice: update: %w", err)
	}
	u.adjOnSpec = true
	return nil
}

// PrepareTransposes makes what the PC terms' transposes need at the
// parameters set (models.SpectralDeviceTerm.PrepareTranspose), so that
// the transposes queue only work on the device.
func (u *Update) PrepareTransposes() error {
	for i, t := range u.terms {
		if st, ok := t.(models.SpectralDeviceTerm); ok {
			if err := st.PrepareTranspose(); err != nil {
				return fmt.Errorf("ondevice: term %d: %w", i, err)
			}
		}
	}
	return nil
}

// AllSpectral reports whether every term is a PC term
// (models.SpectralDeviceTerm): products whose parameters are read on the
// device.
func (u *Update) AllSpectral() bool {
	for _, t := range u.terms {
		if _, ok := t.(models.SpectralDeviceTerm); !ok {
			return false
		}
	}
	return true
}

// TransposeHeld is Transpose at the adjoint held by HoldAdjoint.
func (u *Update) TransposeHeld(i int, dst gpu.Buffer) error {
	if u.adj == nil {
		return fmt.Errorf("ondevice: update: transpose before HoldAdjoint")
	}
	if t, ok := u.terms[i].(models.SpectralDeviceTerm); ok && u.adjOnSpec {
		return t.TransposeSpectra(dst, u.adjSpec)
	}
	return u.terms[i].Transpose(dst, u.adj)
}

// AddParamGradOn is AddParamGrad at the adjoint held by HoldAdjoint, added
// into the readout dst on the device at its sum or values off
// (models.DeviceGradTerm.AddParamGradOn).
func (u *Update) AddParamGradOn(i int, dst gpu.Buffer, off int, v gpu.Buffer, c float64) error {
	t, ok := u.terms[i].(models.DeviceGradTerm)
	if !ok {
		return fmt.Errorf("ondevice: term %d (%T) cannot keep its parameter gradient on the device", i, u.terms[i])
	}
	if u.adj == nil {
		return fmt.Errorf("ondevice: update: parameter gradient before HoldAdjoint")
	}
	c *= updateSigns[i]
	if st, ok := t.(models.SpectralDeviceTerm); ok && u.adjOnSpec {
		return st.AddParamGradOnSpectra(dst, off, v, u.adjSpec, c)
	}
	return t.AddParamGradOn(dst, off, v, u.adj, c)
}

// Transpose writes dst = G_{sign_i·θi}ᵀ b, term i's part of the update's
// vector–Jacobian product in its operand.
func (u *Update) Transpose(i int, dst, b gpu.Buffer) error {
	return u.terms[i].Transpose(dst, b)
}

// Hold keeps the operands v (g, then p; nil for a term left out) for
// Advance; a PC term's operand is transformed here, once.
func (u *Update) Hold(v ...gpu.Buffer) error {
	u.held = append(u.held[:0], v...)
	u.spectral, u.onSpec = false, [2]bool{}
	for len(u.specs) < len(u.terms) {
		u.specs = append(u.specs, nil)
	}
	sl := u.s.N * u.s.SpectrumLen()
	for i, t := range u.terms {
		if _, ok := t.(models.SpectralDeviceTerm); !ok || i >= len(v) || v[i] == nil {
			continue
		}
		for _, b := range []*gpu.Buffer{&u.specs[i], &u.acc} {
			if err := u.lazy(b, sl); err != nil {
				return err
			}
		}
		if err := u.lazy(&u.tmp, u.s.Len()); err != nil {
			return err
		}
		if err := u.ops.RFFT2(u.specs[i], v[i], u.s); err != nil {
			return fmt.Errorf("ondevice: update: %w", err)
		}
		u.spectral, u.onSpec[i] = true, true
	}
	return nil
}

// HeldSpectrum is the spectra of term i's held operand (a PC term), or nil.
func (u *Update) HeldSpectrum(i int) gpu.Buffer {
	if i >= len(u.specs) || !u.onSpec[i] {
		return nil
	}
	return u.specs[i]
}

// Held is term i's held operand (Hold), or nil.
func (u *Update) Held(i int) gpu.Buffer {
	if i >= len(u.held) {
		return nil
	}
	return u.held[i]
}

// Advance is Forward with the held operands: the PC terms' products summed
// on the operands' spectra in one pass (gpu.Ops.SpectralMulSum), inverse
// transformed once and added to x (gpu.Ops.AddIRFFT2), after the other
// terms' products.
func (u *Update) Advance(dst, x gpu.Buffer) error {
	o := u.ops
	base := x // what the PC terms' sum is added to
	var prods []gpu.SpectralProduct
	for i, t := range u.terms {
		switch {
		case u.HeldSpectrum(i) != nil:
			prods = append(prods, t.(models.SpectralDeviceTerm).Product(u.specs[i]))
		case u.Held(i) != nil:
			if base == x {
				if err := o.Copy(dst, x); err != nil {
					return fmt.Errorf("ondevice: update: %w", err)
				}
				base = dst
			}
			if err := t.Apply(dst, u.held[i], 1); err != nil {
				return fmt.Errorf("ondevice: update, term %d: %w", i, err)
			}
		}
	}
	if !u.spectral {
		if base == x {
			if err := o.Copy(dst, x); err != nil {
				return fmt.Errorf("ondevice: update: %w", err)
			}
		}
		return nil
	}
	if err := o.SpectralMulSum(u.acc, u.s, prods...); err != nil {
		return fmt.Errorf("ondevice: update: %w", err)
	}
	if err := o.AddIRFFT2(dst, base, u.acc, u.tmp, u.s); err != nil {
		return fmt.Errorf("ondevice: update: %w", err)
	}
	return nil
}

func (u *Update) lazy(b *gpu.Buffer, n int) error {
	if *b != nil {
		return nil
	}
	nb, err := u.mem.Alloc(n)
	if err != nil {
		return fmt.Errorf("ondevice: %w", err)
	}
	*b = nb
	return nil
}
