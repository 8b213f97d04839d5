//go:build l2ocuda

package cuda

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/gpu/cudasrc"
)

// The CUDA device runs the PF parametrization's dense products
// (gpu.MatOps) with the l2o_mat_mul_add and l2o_outer_sum kernels (double
// sums, one thread an output in tiles of cudasrc.TileSize² outputs).
var _ gpu.MatOps = (*Device)(nil)

// MatMulAdd implements gpu.MatOps.
func (d *Device) MatMulAdd(dst, a, v gpu.Buffer, s gpu.Batch, c float64, transpose bool) error {
	if err := gpu.CheckMatArgs("cuda mat mul add", s, a, dst, v); err != nil {
		return err
	}
	if dst == v {
		return fmt.Errorf("cuda: mat mul add: dst may not be v")
	}
	bs, err := d.buffers("mat mul add", dst, -1, a, -1, v, -1)
	if err != nil {
		return err
	}
	tr := 0
	if transpose {
		tr = 1
	}
	m := s.H * s.W
	return d.launchBlocks("l2o_mat_mul_add", tiles(m)*tiles(s.N), ptrArg(bs[0]), ptrArg(bs[1]), ptrArg(bs[2]), f32Arg(c), intArg(tr), intArg(s.N), intArg(m))
}

// OuterSum implements gpu.MatOps.
func (d *Device) OuterSum(dst, r, v gpu.Buffer, s gpu.Batch) error {
	if err := gpu.CheckMatArgs("cuda outer sum", s, dst, r, v); err != nil {
		return err
	}
	bs, err := d.buffers("outer sum", dst, -1, r, -1, v, -1)
	if err != nil {
		return err
	}
	m := s.H * s.W
	return d.launchBlocks("l2o_outer_sum", tiles(m)*tiles(m), ptrArg(bs[0]), ptrArg(bs[1]), ptrArg(bs[2]), intArg(s.N), intArg(m))
}

// tiles is the number of cudasrc.TileSize tiles that cover n values.
func tiles(n int) int { return (n + cudasrc.TileSize - 1) / cudasrc.TileSize }
