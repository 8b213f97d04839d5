package models

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// SummedBound is implemented by bound operators whose adjoint is one sum
// over the batch, weighted once at the end, that a block of the batch can
// continue: the step loss divided into blocks of functions (its shards, or
// processes) passes the running sum from block to block in function order
// and weights it once, so that any division gives the bits of AddAdjoint
// on the whole batch. AddAdjoint(dst, r, c) is, bit for bit, AddSum from a
// zero sum over the batch's n functions of n, then FinishSum(dst, sum, c).
type SummedBound interface {
	Bound
	// SumLen is the number of float64 values of the running sum.
	SumLen() int
	// AddSum continues sum (zero at the start) with this batch's part of
	// ∇_θ⟨G_θ v, r⟩ for r [N,H,W], the batch being the next functions of a
	// sum over total functions.
	AddSum(sum, r []float64, total int) error
	// FinishSum adds c times the completed sum's adjoint to dst. It
	// panics if dst or sum have the wrong length.
	FinishSum(dst, sum []float64, c float64)
}

// addAdjointBySum is AddAdjoint through the running sum of a SummedBound
// on n functions.
func addAdjointBySum(b SummedBound, dst, r []float64, c float64, n int) error {
	sum := make([]float64, b.SumLen())
	if err := b.AddSum(sum, r, n); err != nil {
		return err
	}
	b.FinishSum(dst, sum, c)
	return nil
}

// mustSum panics unless a gradient and a running sum have the lengths
// FinishSum needs.
func mustSum(name string, dst, wantDst, sum, wantSum int) {
	if dst != wantDst || sum != wantSum {
		panic(fmt.Sprintf("%s: FinishSum of a running sum of %d values into %d, want %d into %d", name, sum, dst, wantSum, wantDst))
	}
}

func checkSum(name string, sum, want int) error {
	if sum != want {
		return fmt.Errorf("%s: running sum of %d values, want %d", name, sum, want)
	}
	return nil
}

// PS: one dot product ⟨v, r⟩ over the batch (kernels.DotRunAdd).

func (b *boundScalar) SumLen() int { return kernels.DotRunLen }

func (b *boundScalar) AddSum(sum, r []float64, total int) error {
	if err := checkLens("ps", len(r), 1, len(b.v), 1); err != nil {
		return err
	}
	if err := checkSum("ps", len(sum), kernels.DotRunLen); err != nil {
		return err
	}
	kernels.DotRunAdd(sum, b.v, r, total*(len(b.v)/b.n))
	return nil
}

func (b *boundScalar) FinishSum(dst, sum []float64, c float64) {
	mustSum("ps", len(dst), 1, len(sum), kernels.DotRunLen)
	dst[0] += c * kernels.DotRunValue(sum)
}

// AddAdjoint adds c·⟨v, r⟩ to dst[0].
func (b *boundScalar) AddAdjoint(dst, r []float64, c float64) error {
	return addAdjointBySum(b, dst, r, c, b.n)
}

// npolyD: one dot product ⟨K_j, r⟩ per coefficient, each over the batch.

func (b *boundNormalPoly) SumLen() int { return kernels.DotRunLen * len(b.ks) }

func (b *boundNormalPoly) AddSum(sum, r []float64, total int) error {
	if err := checkLens(b.p.Name(), len(r), 1, len(b.ks[0]), 1); err != nil {
		return err
	}
	if err := checkSum(b.p.Name(), len(sum), b.SumLen()); err != nil {
		return err
	}
	whole := total * b.in[1] * b.in[2]
	kernels.ParallelFor(len(b.ks), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			kernels.DotRunAdd(sum[j*kernels.DotRunLen:(j+1)*kernels.DotRunLen], b.ks[j], r, whole)
		}
	})
	return nil
}

func (b *boundNormalPoly) FinishSum(dst, sum []float64, c float64) {
	mustSum(b.p.Name(), len(dst), len(b.ks), len(sum), b.SumLen())
	for j := range dst {
		dst[j] += c * kernels.DotRunValue(sum[j*kernels.DotRunLen:])
	}
}

// AddAdjoint adds c·⟨K_j, r⟩ to dst[j].
func (b *boundNormalPoly) AddAdjoint(dst, r []float64, c float64) error {
	return addAdjointBySum(b, dst, r, c, len(b.ks[0])/(b.in[1]*b.in[2]))
}

// PC-k: the K×K kernel gradient, each image's part added in image order.

func (b *boundSmallConv) SumLen() int { return b.conv.K * b.conv.K }

func (b *boundSmallConv) AddSum(sum, r []float64, total int) error {
	kk := b.SumLen()
	if err := checkSum(fmt.Sprintf("pc%d", b.conv.K), len(sum), kk); err != nil {
		return err
	}
	if len(b.tmpK) != b.conv.N*kk {
		b.tmpK = make([]float64, b.conv.N*kk)
	}
	if err := b.conv.AdjointKernelImages(b.tmpK, sum, b.v, r); err != nil {
		return err
	}
	for n := range b.conv.N {
		for i, t := range b.tmpK[n*kk : (n+1)*kk] {
			sum[i] += t
		}
	}
	return nil
}

func (b *boundSmallConv) FinishSum(dst, sum []float64, c float64) {
	mustSum(fmt.Sprintf("pc%d", b.conv.K), len(dst), b.SumLen(), len(sum), b.SumLen())
	for i, t := range sum {
		dst[i] += c * t
	}
}

// AddAdjoint adds c·∇_θ⟨K_θ v, r⟩ to dst.
func (b *boundSmallConv) AddAdjoint(dst, r []float64, c float64) error {
	return addAdjointBySum(b, dst, r, c, b.conv.N)
}
