package gputest

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/tomo"
)

// CheckRay tests a device's ray transform of geometry g on a batch of 2, to
// relative tolerance tol: Forward against tomo's float64 projector and the
// adjoint identity ⟨y, Rx⟩ = ⟨Rᵀy, x⟩. It returns every failure, joined.
func CheckRay(d gpu.RayOps, g tomo.Geometry, tol float64) error {
	ops, ok := d.(gpu.Ops)
	if !ok {
		return fmt.Errorf("gputest: check ray: %T has no array operations", d)
	}
	r, err := d.NewRay(g)
	if err != nil {
		return err
	}
	defer r.Close()
	p, err := tomo.NewProjector(g)
	if err != nil {
		return err
	}
	c := &opsCheck{d: ops, tol: tol, rng: rand.New(rand.NewPCG(13, uint64(g.N)))}
	defer c.free()
	const batch = 2
	x, xb, err := c.random(batch * g.ImageLen())
	if err != nil {
		return err
	}
	y, yb, err := c.random(batch * g.SinoLen())
	if err != nil {
		return err
	}
	rx, err := c.zeros(batch * g.SinoLen())
	if err != nil {
		return err
	}
	rty, err := c.zeros(batch * g.ImageLen())
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
	got, err := c.read(rx)
	if err != nil {
		return err
	}
	back, err := c.read(rty)
	if err != nil {
		return err
	}
	return errors.Join(c.closeVec("ray forward against tomo's projector", got, want),
		c.adjoint("ray transform and its adjoint", y, got, back, x))
}
