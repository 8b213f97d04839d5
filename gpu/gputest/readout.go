package gputest

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// readout checks a readout of the batch's size with three sums: sum 0
// accumulates ½·Dot(x, y) twice, sum 1 the Huber values of Grad(x) times
// 3, sum 2 −Σx after a ZeroSums of a first value; ReadOut brings back the
// values written into the readout by Copy, and the sums.
func (c *opsCheck) readout() error {
	n, s := c.s.Len(), c.s
	x, xb, err := c.random(n)
	if err != nil {
		return err
	}
	y, yb, err := c.random(n)
	if err != nil {
		return err
	}
	r, err := c.d.AllocReadout(n, 3)
	if err != nil {
		return err
	}
	c.bufs = append(c.bufs, r)
	field, err := c.zeros(2 * n)
	if err != nil {
		return err
	}
	const eps = 0.05
	steps := []func() error{
		func() error { return c.d.AddSum(r, 2, 1, xb) },
		func() error { return c.d.ZeroSums(r) },
		func() error { return c.d.AddDot(r, 0, 0.5, xb, yb) },
		func() error { return c.d.AddDot(r, 0, 0.5, xb, yb) },
		func() error { return c.d.Grad(field, xb, s) },
		func() error { return c.d.AddHuberValue(r, 1, 3, field, s, eps) },
		func() error { return c.d.AddSum(r, 2, -1, xb) },
		func() error { return c.d.Copy(r, yb) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("readout: %w", err)
		}
	}
	vals, sums := make([]float64, n), make([]float64, 3)
	if err := c.d.ReadOut(vals, sums, r); err != nil {
		return fmt.Errorf("readout: %w", err)
	}
	dv, err := c.read(field)
	if err != nil {
		return err
	}
	hv := make([]float64, s.N)
	if err := (kernels.Huber{Eps: eps}).Value(hv, dv, s.N, s.H*s.W); err != nil {
		return err
	}
	var huber, sum, abs float64
	for _, v := range hv {
		huber += v
	}
	for _, v := range x {
		sum += v
		abs += math.Abs(v)
	}
	if err := c.close("readout: 2·½·dot", sums[0], dot(x, y), math.Sqrt(dot(x, x)*dot(y, y))); err != nil {
		return err
	}
	if err := c.close("readout: 3·Σ huber", sums[1], 3*huber, 3*huber); err != nil {
		return err
	}
	if err := c.close("readout: −Σx after ZeroSums", sums[2], -sum, abs); err != nil {
		return err
	}
	return c.closeVec("readout: values", vals, y)
}
