package gputest

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
)

// slices checks gpu.SliceOps, where the device has them: two images added
// by AxpyAt into the values of a readout of three, at offsets 0 and 2·HW,
// against host arithmetic (the middle image and the sums untouched), and
// an offset past the end refused.
func (c *opsCheck) slices() error {
	so, ok := c.d.(gpu.SliceOps)
	if !ok {
		return nil
	}
	hw := c.s.H * c.s.W
	base, bb, err := c.random(3 * hw)
	if err != nil {
		return err
	}
	r, err := c.d.AllocReadout(3*hw, 2)
	if err != nil {
		return err
	}
	c.bufs = append(c.bufs, r)
	x, xb, err := c.random(hw)
	if err != nil {
		return err
	}
	z, zb, err := c.random(hw)
	if err != nil {
		return err
	}
	if err := c.d.Copy(r, bb); err != nil {
		return fmt.Errorf("axpy at: %w", err)
	}
	if err := so.AxpyAt(r, 0, -0.75, xb); err != nil {
		return fmt.Errorf("axpy at: %w", err)
	}
	if err := so.AxpyAt(r, 2*hw, 1.25, zb); err != nil {
		return fmt.Errorf("axpy at: %w", err)
	}
	if err := so.AxpyAt(r, 2*hw+1, 1, zb); err == nil {
		return fmt.Errorf("axpy at: %d values from value %d of a buffer of %d accepted", hw, 2*hw+1, 3*hw)
	}
	vals, sums := make([]float64, 3*hw), make([]float64, 2)
	if err := c.d.ReadOut(vals, sums, r); err != nil {
		return fmt.Errorf("axpy at: %w", err)
	}
	want := append([]float64(nil), base...)
	for i := range hw {
		want[i] += -0.75 * x[i]
		want[2*hw+i] += 1.25 * z[i]
	}
	if sums[0] != 0 || sums[1] != 0 {
		return fmt.Errorf("axpy at: the readout's sums %v, want 0", sums)
	}
	return c.closeVec("axpy at", vals, want)
}
