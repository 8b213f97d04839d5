package learned

import (
	"fmt"
	"math"
	"runtime"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
)

// deviceIterator runs Algorithm 2 with the iterates, ∇f and the update on a
// device (Optimizer.Target): each iteration computes ∇f(x^k) and
// x^{k+1} = x^k − G_θ ∇f(x^k) + H_φ (x^k − x^{k−1}) there and copies only
// x^{k+1} back, for X.
type deviceIterator struct {
	*deviceResources
	l             *Optimizer
	x, prev, grad gpu.Buffer
	next, mom     gpu.Buffer
	host          []float64
	t, loaded     int
	imageLen      int
}

// deviceResources are what a deviceIterator holds on the device; they are
// freed by Close, or when the iterator is collected (runtime.AddCleanup).
type deviceResources struct {
	mem  *gpu.Arena // everything on the device: objective, terms, iterates
	obj  *ondevice.Objective
	g, h ondevice.DeviceTerm
}

// startOnDevice is Start for an Optimizer with a Device.
func (l *Optimizer) startOnDevice(o *problem.Objective) (it *deviceIterator, err error) {
	if err := ondevice.CheckObjective(o); err != nil {
		return nil, fmt.Errorf("learned optimizer %s: %w", l.Label, err)
	}
	s := gpu.Batch{N: o.N, H: o.H, W: o.W}
	res := &deviceResources{mem: gpu.NewArena(l.Target.Device)}
	it = &deviceIterator{deviceResources: res, l: l, loaded: -1, imageLen: o.ImageLen(), host: append([]float64(nil), o.X0...)}
	defer func() {
		if err != nil {
			it.free()
			it = nil
		}
	}()
	if it.obj, err = ondevice.NewObjective(it.mem, o, o.N); err != nil {
		return nil, err
	}
	if err = it.obj.SetData(o.Y); err != nil {
		return nil, err
	}
	m := l.Method.ForOperator(o.A) // operator-aware terms take these functions' operator
	if it.g, err = ondevice.NewDeviceTerm(it.mem, m.G, s); err != nil {
		return nil, err
	}
	if m.H != nil {
		if it.h, err = ondevice.NewDeviceTerm(it.mem, m.H, s); err != nil {
			return nil, err
		}
	}
	for _, b := range []*gpu.Buffer{&it.x, &it.prev, &it.grad, &it.next, &it.mom} {
		if *b, err = it.mem.Alloc(s.Len()); err != nil {
			return nil, fmt.Errorf("learned optimizer %s: %w", l.Label, err)
		}
	}
	for _, b := range []gpu.Buffer{it.x, it.prev} {
		if err = l.Target.Device.CopyIn(b, o.X0); err != nil {
			return nil, fmt.Errorf("learned optimizer %s: copy x⁰ to %s: %w", l.Label, l.Target.Device.Name(), err)
		}
	}
	runtime.AddCleanup(it, func(r *deviceResources) { r.free() }, res)
	return it, nil
}

func (it *deviceResources) free() {
	it.mem.Close()
	it.obj = nil
}

// X implements baselines.Iterator: the host copy of the current iterates.
func (it *deviceIterator) X() []float64 { return it.host }

// Close frees the device buffers now rather than when the iterator is
// collected.
func (it *deviceIterator) Close() error {
	it.free()
	return nil
}

// Next implements baselines.Iterator.
func (it *deviceIterator) Next() error {
	if it.obj == nil {
		return fmt.Errorf("learned optimizer %s: the iterator was closed", it.l.Label)
	}
	o := it.mem.Ops()
	step := min(it.t, it.l.Steps-1)
	if it.loaded != step {
		theta, phi, err := it.l.params(step)
		if err != nil {
			return err
		}
		if err := it.g.SetParams(theta); err != nil {
			return err
		}
		if it.h != nil {
			if err := it.h.SetParams(phi); err != nil {
				return err
			}
		}
		it.loaded = step
	}
	if _, err := it.obj.ValueGrad(it.x, it.grad); err != nil {
		return err
	}
	if err := o.Copy(it.next, it.x); err != nil {
		return err
	}
	if err := it.g.Apply(it.next, it.grad, -1); err != nil {
		return err
	}
	if it.h != nil {
		if err := o.Copy(it.mom, it.x); err != nil {
			return err
		}
		if err := o.Axpby(it.mom, -1, it.prev, 1); err != nil {
			return err
		}
		if err := it.h.Apply(it.next, it.mom, 1); err != nil {
			return err
		}
	}
	// Rotate: prev ← x, x ← next.
	it.prev, it.x, it.next = it.x, it.next, it.prev
	if err := o.CopyOut(it.host, it.x); err != nil {
		return fmt.Errorf("learned optimizer %s: copy the iterates from %s: %w", it.l.Label, o.Name(), err)
	}
	for i, x := range it.host {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: iteration %d produced a non-finite iterate (function %d): the learned step %w on these functions; check the certificate with 'l2o certify'", it.l.Label, it.t, i/it.imageLen, baselines.ErrDiverged)
		}
	}
	it.t++
	return nil
}
