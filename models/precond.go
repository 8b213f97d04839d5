package models

import (
	"math"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// Preconditioner is implemented by parametrizations that can approximate the
// curvature of θ ↦ (1/N) Σk ½‖G_θ vk‖² by an operator diagonal in a known basis.
// The curvature estimate plus shift (the penalty weight λ, scaled like the
// estimate) is inverted. Precondition returns the symmetric positive definite map P ≈ (curvature)^(−1/2)
// (applied as apply(dst, src)); inner solvers work in the variable z with
// θ = θ̃ + P z, which equalises the very different scales of the parameters
// (for PC, the spectrum of the training gradients spans many orders of magnitude).
type Preconditioner interface {
	Precondition(v []float64, n, h, w int, shift float64) (apply func(dst, src []float64), ok bool)
}

// floorRel is the smallest curvature kept, relative to the largest.
const floorRel = 1e-8

func invSqrt(d []float64, shift float64) {
	var m float64
	for _, v := range d {
		m = math.Max(m, v)
	}
	floor := m * floorRel
	if m == 0 {
		floor = 1
	}
	for i, v := range d {
		d[i] = 1 / math.Sqrt(math.Max(v, floor)+shift)
	}
}

// Precondition implements Preconditioner: the scalar (1/N)Σ‖vk‖².
func (Scalar) Precondition(v []float64, n, h, w int, shift float64) (func(dst, src []float64), bool) {
	d := []float64{kernels.Dot(v, v) / float64(n)}
	invSqrt(d, shift)
	s := d[0]
	return func(dst, src []float64) { dst[0] = s * src[0] }, true
}

// Precondition implements Preconditioner: the diagonal (1/N)Σk vk[i,j]².
func (Pointwise) Precondition(v []float64, n, h, w int, shift float64) (func(dst, src []float64), bool) {
	hw := h * w
	d := make([]float64, hw)
	for k := 0; k < n; k++ {
		for i, x := range v[k*hw : (k+1)*hw] {
			d[i] += x * x / float64(n)
		}
	}
	invSqrt(d, shift)
	return func(dst, src []float64) {
		for i := range d {
			dst[i] = d[i] * src[i]
		}
	}, true
}

// Precondition implements Preconditioner: diagonal in the Fourier basis,
// (1/N)Σk |v̂k(ω)|².
func (*FullConv) Precondition(v []float64, n, h, w int, shift float64) (func(dst, src []float64), bool) {
	f := kernels.NewFFT2(h, w)
	sl := f.SpectrumLen()
	spec := make([]complex128, sl)
	d := make([]float64, sl)
	hw := h * w
	for k := 0; k < n; k++ {
		f.Forward(spec, v[k*hw:(k+1)*hw])
		for i, c := range spec {
			d[i] += (real(c)*real(c) + imag(c)*imag(c)) / float64(n)
		}
	}
	invSqrt(d, shift)
	return func(dst, src []float64) {
		f.Forward(spec, src)
		for i := range spec {
			spec[i] *= complex(d[i], 0)
		}
		f.Inverse(dst, spec)
	}, true
}
