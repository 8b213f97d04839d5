package learned

import (
	"fmt"
	"math"
	"runtime"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
)

// deviceIterator runs Algorithm 2 with the iterates, ∇f and the update on a
// device (Optimizer.Target, ondevice.Iteration): each iteration computes
// ∇f(x^k) and x^{k+1} = x^k − G_θ ∇f(x^k) + H_φ (x^k − x^{k−1}) there and
// copies only x^{k+1} back, for X.
type deviceIterator struct {
	run       *ondevice.Iteration
	l         *Optimizer
	host      []float64
	t, loaded int
	imageLen  int
}

// startOnDevice is Start for an Optimizer on a device.
func (l *Optimizer) startOnDevice(o *problem.Objective) (*deviceIterator, error) {
	run, err := ondevice.NewIteration(l.Target.Device, l.Method, o)
	if err != nil {
		return nil, fmt.Errorf("learned optimizer %s: %w", l.Label, err)
	}
	it := &deviceIterator{run: run, l: l, loaded: -1, imageLen: o.ImageLen(), host: append([]float64(nil), o.X0...)}
	// The device buffers are freed by Close, or when the iterator is collected.
	runtime.AddCleanup(it, func(r *ondevice.Iteration) { r.Close() }, run)
	return it, nil
}

// X implements baselines.Iterator: the host copy of the current iterates.
func (it *deviceIterator) X() []float64 { return it.host }

// Close frees the device buffers now rather than when the iterator is
// collected.
func (it *deviceIterator) Close() error {
	it.run.Close()
	return nil
}

// Next implements baselines.Iterator.
func (it *deviceIterator) Next() error {
	if err := it.load(min(it.t, it.l.Steps-1)); err != nil {
		return err
	}
	if err := it.run.Step(); err != nil {
		return fmt.Errorf("learned optimizer %s: %w", it.l.Label, err)
	}
	if err := it.run.X(it.host); err != nil {
		return fmt.Errorf("learned optimizer %s: %w", it.l.Label, err)
	}
	for i, x := range it.host {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: iteration %d produced a non-finite iterate (function %d): the learned step %w on these functions; check the certificate with 'l2o certify'", it.l.Label, it.t, i/it.imageLen, baselines.ErrDiverged)
		}
	}
	it.t++
	return nil
}

// load sets the update at the parameters of learned step step, unless set.
func (it *deviceIterator) load(step int) error {
	if it.loaded == step {
		return nil
	}
	theta, phi, err := it.l.params(step)
	if err != nil {
		return err
	}
	if err := it.run.SetParams(theta, phi); err != nil {
		return err
	}
	it.loaded = step
	return nil
}
