package gpu

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// MatOps are the dense products of the PF parametrization, G_θ v = Θ v with
// Θ an (H·W)×(H·W) matrix (row-major) acting on each image of a batch as a
// vector. Both host devices and the CUDA device implement them.
type MatOps interface {
	// MatMulAdd adds c·A v_n (c·Aᵀ v_n when transpose) to dst_n for every
	// image n of s; dst may not be v.
	MatMulAdd(dst, a, v Buffer, s Batch, c float64, transpose bool) error
	// OuterSum writes dst = Σ_n r_n v_nᵀ ((H·W)×(H·W)), accumulated in
	// float64: the gradient of ⟨r, A v⟩ in A.
	OuterSum(dst, r, v Buffer, s Batch) error
}

var (
	_ MatOps = CPU()
	_ MatOps = Host32()
)

// CheckMatArgs checks MatMulAdd's and OuterSum's buffers against s, for every
// device: a batch dst, v (or r, v) and an (H·W)² matrix.
func CheckMatArgs(op string, s Batch, mat Buffer, batches ...Buffer) error {
	if err := s.check(op); err != nil {
		return err
	}
	hw := s.H * s.W
	if int64(hw)*int64(hw) > 1<<31-1 {
		return fmt.Errorf("gpu: %s: a %d×%d matrix exceeds 2³¹ values", op, hw, hw)
	}
	if mat == nil || mat.Len() != hw*hw {
		return fmt.Errorf("gpu: %s: the matrix must hold (H·W)² = %d values", op, hw*hw)
	}
	for i, b := range batches {
		if b == nil || b.Len() != s.Len() {
			return fmt.Errorf("gpu: %s: batch operand %d must hold %d values", op, i+1, s.Len())
		}
	}
	return nil
}

// matValues returns the values of the named buffers of a host device.
func (d *hostOps[F]) matValues(op string, bufs map[string]Buffer) (map[string][]F, error) {
	out := map[string][]F{}
	for name, b := range bufs {
		v, err := d.values(b, -1, op, name)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}

// MatMulAdd implements MatOps.
func (d *hostOps[F]) MatMulAdd(dst, a, v Buffer, s Batch, c float64, transpose bool) error {
	if err := CheckMatArgs(d.name+" mat mul add", s, a, dst, v); err != nil {
		return err
	}
	if dst == v {
		return fmt.Errorf("gpu: %s mat mul add: dst may not be v", d.name)
	}
	vals, err := d.matValues("mat mul add", map[string]Buffer{"dst": dst, "the matrix": a, "v": v})
	if err != nil {
		return err
	}
	dv, av, vv := vals["dst"], vals["the matrix"], vals["v"]
	hw := s.H * s.W
	kernels.ParallelFor(s.N*hw, func(lo, hi int) {
		for idx := lo; idx < hi; idx++ {
			n, i := idx/hw, idx%hw
			vn := vv[n*hw : (n+1)*hw]
			var sum float64
			if transpose {
				for j, x := range vn {
					sum += float64(av[j*hw+i]) * float64(x)
				}
			} else {
				row := av[i*hw : (i+1)*hw]
				for j, x := range vn {
					sum += float64(row[j]) * float64(x)
				}
			}
			dv[idx] += F(c * sum)
		}
	})
	return nil
}

// OuterSum implements MatOps.
func (d *hostOps[F]) OuterSum(dst, r, v Buffer, s Batch) error {
	if err := CheckMatArgs(d.name+" outer sum", s, dst, r, v); err != nil {
		return err
	}
	vals, err := d.matValues("outer sum", map[string]Buffer{"dst": dst, "r": r, "v": v})
	if err != nil {
		return err
	}
	dv, rv, vv := vals["dst"], vals["r"], vals["v"]
	hw := s.H * s.W
	kernels.ParallelFor(hw, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := 0; j < hw; j++ {
				var sum float64
				for n := 0; n < s.N; n++ {
					sum += float64(rv[n*hw+i]) * float64(vv[n*hw+j])
				}
				dv[i*hw+j] = F(sum)
			}
		}
	})
	return nil
}
