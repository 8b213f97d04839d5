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

// A SummedPreconditioner is a Preconditioner whose curvature estimate is
// a sum over the functions in function order: processes that each hold a
// block of the functions continue one running sum (CurvatureSumLen
// values, zero at the start), each adding its block's operands, and build
// the same preconditioner from the complete sum, bitwise Precondition on
// every function.
type SummedPreconditioner interface {
	Preconditioner
	// CurvatureSumLen is the length of the running sum for h×w images.
	CurvatureSumLen(h, w int) int
	// AddCurvature continues sum with the operands v of the next functions
	// ([n,H,W]) of a sum over total functions.
	AddCurvature(sum, v []float64, h, w, total int)
	// PreconditionSum returns the preconditioner of the completed sum.
	PreconditionSum(sum []float64, h, w int, shift float64) func(dst, src []float64)
}

// precondition is Precondition through the running sum of p.
func precondition(p SummedPreconditioner, v []float64, n, h, w int, shift float64) (func(dst, src []float64), bool) {
	sum := make([]float64, p.CurvatureSumLen(h, w))
	p.AddCurvature(sum, v, h, w, n)
	return p.PreconditionSum(sum, h, w, shift), true
}

// Precondition implements Preconditioner: the scalar (1/N)Σ‖vk‖².
func (s Scalar) Precondition(v []float64, n, h, w int, shift float64) (func(dst, src []float64), bool) {
	return precondition(s, v, n, h, w, shift)
}

// CurvatureSumLen implements SummedPreconditioner: Dot's running state
// (kernels.DotRunAdd) over every function's values.
func (Scalar) CurvatureSumLen(h, w int) int { return kernels.DotRunLen }

// AddCurvature implements SummedPreconditioner.
func (Scalar) AddCurvature(sum, v []float64, h, w, total int) {
	kernels.DotRunAdd(sum, v, v, total*h*w)
}

// PreconditionSum implements SummedPreconditioner.
func (Scalar) PreconditionSum(sum []float64, h, w int, shift float64) func(dst, src []float64) {
	d := []float64{kernels.DotRunValue(sum) / (sum[4] / float64(h*w))}
	invSqrt(d, shift)
	s := d[0]
	return func(dst, src []float64) { dst[0] = s * src[0] }
}

// Precondition implements Preconditioner: the diagonal (1/N)Σk vk[i,j]².
func (p Pointwise) Precondition(v []float64, n, h, w int, shift float64) (func(dst, src []float64), bool) {
	return precondition(p, v, n, h, w, shift)
}

// CurvatureSumLen implements SummedPreconditioner: the diagonal.
func (Pointwise) CurvatureSumLen(h, w int) int { return h * w }

// AddCurvature implements SummedPreconditioner.
func (Pointwise) AddCurvature(d, v []float64, h, w, total int) {
	hw := h * w
	for k := 0; k < len(v)/hw; k++ {
		for i, x := range v[k*hw : (k+1)*hw] {
			d[i] += x * x / float64(total)
		}
	}
}

// PreconditionSum implements SummedPreconditioner.
func (Pointwise) PreconditionSum(sum []float64, h, w int, shift float64) func(dst, src []float64) {
	d := append([]float64(nil), sum...)
	invSqrt(d, shift)
	return func(dst, src []float64) {
		for i := range d {
			dst[i] = d[i] * src[i]
		}
	}
}

// Precondition implements Preconditioner: diagonal in the Fourier basis,
// (1/N)Σk |v̂k(ω)|².
func (c *FullConv) Precondition(v []float64, n, h, w int, shift float64) (func(dst, src []float64), bool) {
	return precondition(c, v, n, h, w, shift)
}

// CurvatureSumLen implements SummedPreconditioner: the diagonal in the
// Fourier basis, one value per frequency of the half spectrum.
func (*FullConv) CurvatureSumLen(h, w int) int { return kernels.NewFFT2(h, w).SpectrumLen() }

// AddCurvature implements SummedPreconditioner.
func (*FullConv) AddCurvature(d, v []float64, h, w, total int) {
	f := kernels.NewFFT2(h, w)
	spec := make([]complex128, f.SpectrumLen())
	hw := h * w
	for k := 0; k < len(v)/hw; k++ {
		f.Forward(spec, v[k*hw:(k+1)*hw])
		for i, c := range spec {
			d[i] += (real(c)*real(c) + imag(c)*imag(c)) / float64(total)
		}
	}
}

// PreconditionSum implements SummedPreconditioner.
func (*FullConv) PreconditionSum(sum []float64, h, w int, shift float64) func(dst, src []float64) {
	f := kernels.NewFFT2(h, w)
	spec := make([]complex128, f.SpectrumLen())
	d := append([]float64(nil), sum...)
	invSqrt(d, shift)
	return func(dst, src []float64) {
		f.Forward(spec, src)
		for i := range spec {
			spec[i] *= complex(d[i], 0)
		}
		f.Inverse(dst, spec)
	}
}
