package models

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// ---- PF ----

// boundFull is θ ↦ θ vec(v_k) for a full (H·W)×(H·W) matrix θ: a
// matrix–matrix product with the N columns v_k, O(N·(HW)²) per call, where
// the graph path builds and differentiates a dense product of the same size
// with far more overhead.
type boundFull struct {
	v  []float64 // [N, HW]
	hw int
}

// Bind implements Binder.
func (Full) Bind(v []float64, n, h, w int) (Bound, error) {
	if err := checkBatch("pf", v, n, h, w); err != nil {
		return nil, err
	}
	return &boundFull{v: append([]float64(nil), v...), hw: h * w}, nil
}

func (b *boundFull) AddApply(dst, theta []float64, c float64) error {
	if err := checkLens("pf", len(dst), len(theta), len(b.v), b.hw*b.hw); err != nil {
		return err
	}
	hw, n := b.hw, len(b.v)/b.hw
	// Rows of θ in parallel; each row meets every image while in cache.
	kernels.ParallelFor(hw, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := theta[i*hw : (i+1)*hw]
			for k := 0; k < n; k++ {
				dst[k*hw+i] += c * kernels.Dot(row, b.v[k*hw:(k+1)*hw])
			}
		}
	})
	return nil
}

func (b *boundFull) AddAdjoint(dst, r []float64, c float64) error {
	if err := checkLens("pf", len(r), len(dst), len(b.v), b.hw*b.hw); err != nil {
		return err
	}
	hw, n := b.hw, len(b.v)/b.hw
	// ∇_θ⟨θ v_k, r_k⟩ = Σk r_k v_kᵀ, row by row.
	kernels.ParallelFor(hw, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := dst[i*hw : (i+1)*hw]
			for k := 0; k < n; k++ {
				a := c * r[k*hw+i]
				if a == 0 {
					continue
				}
				for j, vj := range b.v[k*hw : (k+1)*hw] {
					row[j] += a * vj
				}
			}
		}
	})
	return nil
}

func (b *boundFull) Bytes() int64 { return int64(8 * len(b.v)) }

// OpNorm implements Normer: the spectral norm of the HW×HW matrix θ by power
// iteration on θᵀθ with plain loops (as PowerNorm does through the graph, to
// the same tolerance, without its overhead).
func (Full) OpNorm(theta []float64, h, w int) (float64, error) {
	n := h * w
	if len(theta) != n*n {
		return 0, fmt.Errorf("pf: norm of %d parameters, want %d for %d×%d images", len(theta), n*n, h, w)
	}
	y := make([]float64, n)
	return powerNorm(n, func(x []float64) error {
		// y = θx, then x = θᵀy row by row.
		kernels.ParallelFor(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				y[i] = kernels.Dot(theta[i*n:(i+1)*n], x)
			}
		})
		clear(x)
		for i, yi := range y {
			if yi == 0 {
				continue
			}
			for j, t := range theta[i*n : (i+1)*n] {
				x[j] += yi * t
			}
		}
		return nil
	})
}
