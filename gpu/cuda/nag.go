//go:build l2ocuda

package cuda

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
)

// The CUDA device runs NAG's update as one kernel, l2o_nag_update: every
// thread reads the iteration count, and the block that finishes last adds
// 1 to it (counting the blocks done in the device's scratch ticket, as
// the reductions do), so that no thread of the update sees it change.
var _ gpu.NAGOps = (*Device)(nil)

// NAGUpdate implements gpu.NAGOps.
func (d *Device) NAGUpdate(u, y, g, ref, betas, count gpu.Buffer, c, lambda, step float64) error {
	const op = "nag update"
	bs, err := d.buffers(op, u, -1, y, -1, g, -1, ref, -1, betas, -1, count, 1)
	if err != nil {
		return err
	}
	n := bs[0].n
	for i, name := range []string{"y", "the gradient", "the reference"} {
		if bs[i+1].n != n {
			return fmt.Errorf("cuda: %s: %s has %d values, want %d", op, name, bs[i+1].n, n)
		}
	}
	for i := range bs {
		for j := i + 1; j < len(bs); j++ {
			if bs[i] == bs[j] {
				return fmt.Errorf("cuda: %s: its buffers must be distinct", op)
			}
		}
	}
	if n == 0 {
		return nil
	}
	d.scratchMu.Lock()
	defer d.scratchMu.Unlock()
	ticket, err := d.scratch(&d.ticketBuf, 1, 4)
	if err != nil {
		return err
	}
	return d.launchEach("l2o_nag_update", n, ptrArg(bs[0]), ptrArg(bs[1]), ptrArg(bs[2]), ptrArg(bs[3]), ptrArg(bs[4]), ptrArg(bs[5]),
		ptrArg(ticket), intArg(bs[4].n), f32Arg(c), f32Arg(lambda), f32Arg(step), intArg(n))
}
