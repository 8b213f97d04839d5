//go:build l2ocuda

package cuda

import "github.com/greedyl2o/greedyl2o/gpu"

var _ gpu.SliceOps = (*Device)(nil)

// AxpyAt implements gpu.SliceOps: one kernel, l2o_axpy_at, in float32.
func (d *Device) AxpyAt(y gpu.Buffer, off int, a float64, x gpu.Buffer) error {
	bs, err := d.buffers("axpy at", y, -1, x, -1)
	if err != nil {
		return err
	}
	if err := gpu.CheckAxpyAt(d.Name(), y, off, x); err != nil {
		return err
	}
	return d.launchEach("l2o_axpy_at", bs[1].n, ptrArg(bs[0]), intArg(off), f32Arg(a), ptrArg(bs[1]), intArg(bs[1].n))
}
