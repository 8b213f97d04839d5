package ondevice

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Iteration runs a learned update's iterations on a batch of functions on a
// device,
//
//	x^{k+1} = x^k − G_θ ∇f(x^k) + H_φ (x^k − x^{k−1}),  x^{−1} = x^0,
//
// keeping the iterates, ∇f and the update there (Algorithm 2 and the
// learned optimizer's iterations); X copies the iterates back.
type Iteration struct {
	deviceIterates // the arena holds the objective, the update and the iterates
	ops            gpu.Ops
	up             *Update

	prev, grad, next, mom gpu.Buffer
}

// deviceIterates are what an iteration on a device holds: the arena with
// everything it put on the device, its objective and the iterates x.
type deviceIterates struct {
	mem *gpu.Arena
	obj *Objective
	x   gpu.Buffer
}

// NewIteration returns the iterations of m on o's functions from o.X0, on
// the device ops, or an error if o has no device form or the device cannot
// hold them.
func NewIteration(ops gpu.Ops, m models.Method, o *problem.Objective) (_ *Iteration, err error) {
	if err := CheckObjective(o); err != nil {
		return nil, err
	}
	s := gpu.Batch{N: o.N, H: o.H, W: o.W}
	it := &Iteration{ops: ops, deviceIterates: deviceIterates{mem: gpu.NewArena(ops)}}
	defer func() {
		if err != nil {
			it.Close()
		}
	}()
	if it.obj, err = NewObjective(it.mem, o, o.N); err != nil {
		return nil, err
	}
	if err = it.obj.SetData(o.Y); err != nil {
		return nil, err
	}
	if it.up, err = NewUpdate(it.mem, m.ForOperator(o.A), s); err != nil {
		return nil, err
	}
	for _, b := range []*gpu.Buffer{&it.x, &it.prev, &it.grad, &it.next, &it.mom} {
		if *b, err = it.mem.Alloc(s.Len()); err != nil {
			return nil, fmt.Errorf("ondevice: %w", err)
		}
	}
	for _, b := range []gpu.Buffer{it.x, it.prev} {
		if err = ops.CopyIn(b, o.X0); err != nil {
			return nil, fmt.Errorf("ondevice: copy x⁰ to %s: %w", ops.Name(), err)
		}
	}
	return it, nil
}

// Device names the device.
func (it *Iteration) Device() string { return it.ops.Name() }

// SetParams sets θ and φ (φ is ignored without H) for the next steps.
func (it *Iteration) SetParams(theta, phi []float64) error {
	return it.up.SetParams(theta, phi)
}

// Step computes ∇f(x^k) and x^{k+1} on the device.
func (it *Iteration) Step() error {
	if it.obj == nil {
		return fmt.Errorf("ondevice: the iteration was closed")
	}
	if err := it.obj.Gradient(it.x, it.grad); err != nil {
		return err
	}
	var mom gpu.Buffer // x − x⁻ (H only)
	if it.up.Terms() == 2 {
		if err := it.ops.Copy(it.mom, it.x); err != nil {
			return err
		}
		if err := it.ops.Axpby(it.mom, -1, it.prev, 1); err != nil {
			return err
		}
		mom = it.mom
	}
	if err := it.up.Forward(it.next, it.x, it.grad, mom); err != nil {
		return err
	}
	// Rotate: prev ← x, x ← next.
	it.prev, it.x, it.next = it.x, it.next, it.prev
	return nil
}

// X writes the current iterates into dst.
func (d *deviceIterates) X(dst []float64) error {
	ops := d.mem.Ops()
	if err := ops.CopyOut(dst, d.x); err != nil {
		return fmt.Errorf("ondevice: copy the iterates from %s: %w", ops.Name(), err)
	}
	return nil
}

// Close frees the device buffers; the iteration cannot step after it.
func (d *deviceIterates) Close() {
	d.mem.Close()
	d.obj = nil
}
