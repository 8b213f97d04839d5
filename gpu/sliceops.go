package gpu

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// SliceOps add a buffer into part of a larger one on a device: many small
// results (the parameter gradients of every step of an unrolled trajectory)
// gathered in one readout (Ops.AllocReadout) and brought back by one copy.
// Both host devices and the CUDA device implement it.
type SliceOps interface {
	// AxpyAt adds a·x to the len(x) values of y from value off, value by
	// value: y[off+i] += a·x[i]. y and x must differ.
	AxpyAt(y Buffer, off int, a float64, x Buffer) error
}

var (
	_ SliceOps = CPU()
	_ SliceOps = Host32()
)

// AxpyAt implements SliceOps, in the device's precision F (kernels.Axpy).
func (d *hostOps[F]) AxpyAt(y Buffer, off int, a float64, x Buffer) error {
	yv, err := d.values(y, -1, "axpy at", "y")
	if err != nil {
		return err
	}
	xv, err := d.values(x, -1, "axpy at", "x")
	if err != nil {
		return err
	}
	if err := CheckAxpyAt(d.name, y, off, x); err != nil {
		return err
	}
	kernels.Axpy(yv[off:off+len(xv)], F(a), xv)
	return nil
}

// CheckAxpyAt checks the arguments of SliceOps.AxpyAt against the buffers'
// lengths, for every device.
func CheckAxpyAt(device string, y Buffer, off int, x Buffer) error {
	if y == nil || x == nil {
		return fmt.Errorf("gpu: %s axpy at: a buffer is nil", device)
	}
	if y == x {
		return fmt.Errorf("gpu: %s axpy at: y and x are the same buffer", device)
	}
	if off < 0 || off > y.Len()-x.Len() {
		return fmt.Errorf("gpu: %s axpy at: %d values from value %d do not fit in y's %d values", device, x.Len(), off, y.Len())
	}
	return nil
}
