package models

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// An AdjointSum is a bound operator whose adjoint Σk Bkᵀ rk is one sum of
// spectra over the functions, continued function by function (PC:
// Σk conj(v̂k)·r̂k, then one inverse transform): processes that each hold
// a block of the functions pass the running sum (AdjointSumLen values,
// zero at the start) from block to block, each adding its block's, and
// finish it once, bitwise AddAdjoint on every function.
type AdjointSum interface {
	Bound
	// AdjointSumLen is the length of the running sum.
	AdjointSumLen() int
	// AddAdjointSum continues sum with r's functions ([n,H,W], the bound
	// functions), in order.
	AddAdjointSum(sum, r []float64) error
	// FinishAdjointSum adds c times the completed sum's adjoint to dst.
	FinishAdjointSum(dst, sum []float64, c float64) error
}

// AdjointSumLen implements AdjointSum: the half spectrum's real and
// imaginary parts.
func (b *boundFullConv) AdjointSumLen() int { return 2 * b.pool.SpectrumLen() }

// AddAdjointSum implements AdjointSum.
func (b *boundFullConv) AddAdjointSum(sum, r []float64) error {
	hw, sl := b.h*b.w, b.pool.SpectrumLen()
	if len(r) != b.n*hw || len(sum) != 2*sl {
		return fmt.Errorf("pc: adjoint sum of %d values into %d, want %d into %d", len(r), len(sum), b.n*hw, 2*sl)
	}
	acc := make([]complex128, sl)
	for i := range acc {
		acc[i] = complex(sum[2*i], sum[2*i+1])
	}
	b.pool.Run(1, func(w *kernels.FFTWorker, _, _ int) {
		for k := range b.n {
			w.Forward(w.Spectrum, r[k*hw:(k+1)*hw])
			b.AccumulateAdjoint(acc, w.Spectrum, k)
		}
	})
	for i, c := range acc {
		sum[2*i], sum[2*i+1] = real(c), imag(c)
	}
	return nil
}

// FinishAdjointSum implements AdjointSum.
func (b *boundFullConv) FinishAdjointSum(dst, sum []float64, c float64) error {
	acc := make([]complex128, len(sum)/2)
	for i := range acc {
		acc[i] = complex(sum[2*i], sum[2*i+1])
	}
	return b.FinishAdjoint(dst, acc, c)
}
