package optest

import (
	"errors"
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/gpu/gputest"
	"github.com/greedyl2o/greedyl2o/tomo"
)

// CheckRay tests the ray transform on device d (tomo.NewDeviceRay) of geometry g on a batch of 2, to
// relative tolerance tol: Forward against tomo's float64 projector and the
// adjoint identity ⟨y, Rx⟩ = ⟨Rᵀy, x⟩. It returns every failure, joined.
func CheckRay(d gpu.Ops, g tomo.Geometry, tol float64) error {
	r, err := tomo.NewDeviceRay(d, g)
	if err != nil {
		return err
	}
	defer r.Close()
	p, err := tomo.NewProjector(g)
	if err != nil {
		return err
	}
	c := gputest.NewChecker(d, tol, 13, uint64(g.N))
	defer c.Free()
	const batch = 2
	x, xb, err := c.Random(batch * g.ImageLen())
	if err != nil {
		return err
	}
	y, yb, err := c.Random(batch * g.SinoLen())
	if err != nil {
		return err
	}
	rx, err := c.Zeros(batch * g.SinoLen())
	if err != nil {
		return err
	}
	rty, err := c.Zeros(batch * g.ImageLen())
	if err != nil {
		return err
	}
	if err := r.Forward(rx, xb, batch); err != nil {
		return fmt.Errorf("ray forward: %w", err)
	}
	if err := r.Adjoint(rty, yb, batch); err != nil {
		return fmt.Errorf("ray adjoint: %w", err)
	}
	want := make([]float64, batch*g.SinoLen())
	if err := p.Forward(want, x, batch); err != nil {
		return err
	}
	got, err := c.Read(rx)
	if err != nil {
		return err
	}
	back, err := c.Read(rty)
	if err != nil {
		return err
	}
	return errors.Join(c.CloseVec("ray forward against tomo's projector", got, want),
		c.Adjoint("ray transform and its adjoint", y, got, back, x))
}
