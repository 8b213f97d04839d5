package models

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/kernels"
	"gonum.org/v1/gonum/mat"
)

// Reducer is implemented by parametrizations with far more parameters than
// one greedy step can determine. The step loss depends on θ only through the
// N images G_θ vk for the step's fixed operands vk, and the penalty
// λ/2‖θ − θ̃‖² is smallest on a subspace E of small dimension, so the
// minimiser of the step loss lies in θ̃ + E. Gradient methods started at θ̃
// (L-BFGS, NAG) never leave θ̃ + E either, so solving the step in
// coordinates of E gives the same iterates at a fraction of the cost.
//
// For PF, θ̃ + E is the set of matrices τI + D Qᵀ, where the orthonormal
// columns of Q span the vk: N·H·W coordinates instead of (H·W)².
type Reducer interface {
	// Reduce returns the subspace E for the batch v of n images of h×w.
	// It copies what it needs of v.
	Reduce(v []float64, n, h, w int) (Reduction, error)
}

// Reduction is a subspace E of a parametrization's parameters with
// orthonormal coordinates z: θ = θ̃ + E z and ‖E z‖ = ‖z‖, so that the
// penalty ‖θ − θ̃‖² is ‖z‖². As a Bound it is the linear map z ↦ G_{Ez} vk
// (AddApply) and its adjoint in z (AddAdjoint).
type Reduction interface {
	Bound
	// Len is the number of coordinates z (0 when every vk is zero).
	Len() int
	// AddExpand adds E z to theta (the parametrization's full parameters).
	AddExpand(theta, z []float64) error
	// Curvature is ‖(1/N) Σk Bkᵀ Bk‖ for Bk z = G_{Ez} vk, exactly.
	Curvature() float64
	// Precondition returns the symmetric positive definite map
	// P = (C + shift)^(−1/2) for the curvature C of z ↦ (G_{Ez} vk)k, as
	// Preconditioner.Precondition does for the full parameters.
	Precondition(shift float64) func(dst, src []float64)
	// Restrict returns the reduction as seen by a block of the functions,
	// [lo, hi) of those it was built from: the same subspace and
	// coordinates, the maps Bk of the block's functions (AddApply,
	// AddAdjoint on the block's images), and the curvature and
	// preconditioner of all of them. A step loss divided into blocks
	// builds the reduction from every function's operand, gathered in
	// function order, and restricts it to its block.
	Restrict(lo, hi int) (Reduction, error)
}

// reducedFull is the PF subspace: z = D (HW×r, row-major), E z = D Qᵀ, with
// V = [v1 … vN] = Q S Wᵀ (thin SVD, the r singular values above a relative
// cut-off). Then G_{Ez} vk = D (Qᵀ vk) = D c_k with C = S Wᵀ (r×N), and the
// curvature (1/N) C Cᵀ = S²/N is diagonal.
type reducedFull struct {
	hw, n, r int
	total    int       // the functions the reduction was built from (n but in a block)
	q        []float64 // [HW, r]: Q row-major
	c        []float64 // [r, N]: C row-major
	ct       []float64 // [N, r]: Cᵀ row-major, for AddAdjoint's contiguous rows
	s        []float64 // singular values
}

// reduceCut is the smallest singular value kept, relative to the largest.
const reduceCut = 1e-12

// Reduce implements Reducer.
func (Full) Reduce(v []float64, n, h, w int) (Reduction, error) {
	if err := checkBatch("pf", v, n, h, w); err != nil {
		return nil, err
	}
	hw := h * w
	red := &reducedFull{hw: hw, n: n, total: n}
	if kernels.Dot(v, v) == 0 {
		return red, nil
	}
	// Vᵀ is v itself ([N, HW] row-major); its thin SVD Vᵀ = U S Wᵀ gives
	// V = W S Uᵀ, so Q = W and C = S Uᵀ.
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(n, hw, v), mat.SVDThin) {
		return nil, fmt.Errorf("pf: the SVD of the %d step operands failed", n)
	}
	s := svd.Values(nil)
	r := 0
	for _, sv := range s {
		if sv > reduceCut*s[0] {
			r++
		}
	}
	var u, wm mat.Dense
	svd.UTo(&u)
	svd.VTo(&wm)
	red.r = r
	red.s = s[:r]
	red.q = make([]float64, hw*r)
	for i := 0; i < hw; i++ {
		for m := 0; m < r; m++ {
			red.q[i*r+m] = wm.At(i, m)
		}
	}
	red.c, red.ct = make([]float64, r*n), make([]float64, n*r)
	for m := 0; m < r; m++ {
		for k := 0; k < n; k++ {
			red.c[m*n+k] = s[m] * u.At(k, m)
			red.ct[k*r+m] = red.c[m*n+k]
		}
	}
	return red, nil
}

func (b *reducedFull) Len() int { return b.hw * b.r }

// Restrict implements Reduction: the columns [lo, hi) of C.
func (b *reducedFull) Restrict(lo, hi int) (Reduction, error) {
	if lo < 0 || hi > b.n || lo >= hi {
		return nil, fmt.Errorf("pf (reduced): block [%d, %d) of %d functions", lo, hi, b.n)
	}
	n := hi - lo
	blk := &reducedFull{hw: b.hw, n: n, r: b.r, total: b.total, q: b.q, s: b.s}
	blk.c, blk.ct = make([]float64, b.r*n), append([]float64(nil), b.ct[lo*b.r:hi*b.r]...)
	for m := 0; m < b.r; m++ {
		copy(blk.c[m*n:(m+1)*n], b.c[m*b.n+lo:m*b.n+hi])
	}
	return blk, nil
}

func (b *reducedFull) check(dst, z int) error {
	return checkLens("pf (reduced)", dst, z, b.n*b.hw, b.hw*b.r)
}

// AddApply adds c·D c_k to image k of dst (kernels.MatMulAddT: the
// transposed product D C, each sum in the order of the coordinates).
func (b *reducedFull) AddApply(dst, z []float64, c float64) error {
	if err := b.check(len(dst), len(z)); err != nil {
		return err
	}
	kernels.MatMulAddT(dst, z, b.c, b.hw, b.r, b.n, c)
	return nil
}

// AddAdjoint adds c·Σk r_k c_kᵀ to dst (the coordinates D), each coordinate
// accumulated in the order of k (kernels.MatTMulAdd with Cᵀ).
func (b *reducedFull) AddAdjoint(dst, res []float64, c float64) error {
	if err := b.check(len(res), len(dst)); err != nil {
		return err
	}
	kernels.MatTMulAdd(dst, res, b.ct, b.hw, b.r, b.n, c)
	return nil
}

// AddExpand adds D Qᵀ to the HW×HW matrix theta.
func (b *reducedFull) AddExpand(theta, z []float64) error {
	if err := checkLens("pf (reduced)", len(theta), len(z), b.hw*b.hw, b.hw*b.r); err != nil {
		return err
	}
	hw, r := b.hw, b.r
	kernels.ParallelFor(hw, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			d := z[i*r : (i+1)*r]
			row := theta[i*hw : (i+1)*hw]
			for j := range row {
				var s float64
				for m, dm := range d {
					s += dm * b.q[j*r+m]
				}
				row[j] += s
			}
		}
	})
	return nil
}

func (b *reducedFull) Curvature() float64 {
	if b.r == 0 {
		return 0
	}
	return b.s[0] * b.s[0] / float64(b.total)
}

// Precondition scales column m of D by (s_m²/N + shift)^(−1/2).
func (b *reducedFull) Precondition(shift float64) func(dst, src []float64) {
	d := make([]float64, b.r)
	for m, sv := range b.s {
		d[m] = sv * sv / float64(b.total)
	}
	invSqrt(d, shift)
	r := b.r
	return func(dst, src []float64) {
		for i := 0; i < len(src); i += r {
			for m, dm := range d {
				dst[i+m] = dm * src[i+m]
			}
		}
	}
}

func (b *reducedFull) Bytes() int64 { return int64(8 * (len(b.q) + len(b.c) + len(b.ct) + len(b.s))) }
