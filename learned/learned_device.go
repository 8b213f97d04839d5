package learned

import (
	"fmt"
	"math"
	"runtime"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Evaluated is an iterator that evaluates its functions at its iterates with
// every iteration (the learned optimizer on a device: on the device, read
// back by one copy), so that its caller need not copy the iterates to
// evaluate them.
type Evaluated interface {
	baselines.Iterator
	// Evaluated returns Σ_k f_k(x_k) at the current iterates and writes
	// ‖∇f_k(x_k)‖² into sq[k] for every function.
	Evaluated(sq []float64) (float64, error)
}

// deviceIterator runs Algorithm 2 with the iterates, ∇f and the update on a
// device (Optimizer.Target, ondevice.Iteration): each iteration computes
// x^{k+1} = x^k − G_θ ∇f(x^k) + H_φ (x^k − x^{k−1}), then f and ∇f at
// x^{k+1}, there, and reads back Σ_k f_k and every ‖∇f_k‖² (Evaluated); it
// stops where the sum is not finite (a non-finite iterate gives one). The iterates stay on the device
// until X asks for them.
type deviceIterator struct {
	run       *ondevice.Iteration
	l         *Optimizer
	host      []float64 // the iterates, when fresh
	fresh     bool      // host holds the current iterates
	err       error     // X's failed copy, returned by Next and Close
	sum       float64   // Σ_k f_k at the current iterates
	sq        []float64 // ‖∇f_k‖² at the current iterates
	t, loaded int
}

// startOnDevice is Start for an Optimizer on a device.
func (l *Optimizer) startOnDevice(o *problem.Objective) (*deviceIterator, error) {
	run, err := ondevice.NewIteration(l.Target.Device, l.Method, o)
	if err != nil {
		return nil, fmt.Errorf("learned optimizer %s: %w", l.Label, err)
	}
	it := &deviceIterator{run: run, l: l, loaded: -1, host: append([]float64(nil), o.X0...), fresh: true, sq: make([]float64, o.N)}
	if it.sum, err = run.Evaluated(it.sq); err != nil {
		run.Close()
		return nil, fmt.Errorf("learned optimizer %s: %w", l.Label, err)
	}
	// The device buffers are freed by Close, or when the iterator is collected.
	runtime.AddCleanup(it, func(r *ondevice.Iteration) { r.Close() }, run)
	return it, nil
}

// X implements baselines.Iterator: the current iterates, copied from the
// device at the first call after an iteration. A failed copy gives NaN
// values, and its error is returned by the next Next and by Close.
func (it *deviceIterator) X() []float64 {
	if it.fresh {
		return it.host
	}
	if err := it.run.X(it.host); err != nil {
		for i := range it.host {
			it.host[i] = math.NaN()
		}
		it.err = fmt.Errorf("learned optimizer %s: %w", it.l.Label, err)
	}
	it.fresh = true
	return it.host
}

// Evaluated implements Evaluated, from the values read back by Next.
func (it *deviceIterator) Evaluated(sq []float64) (float64, error) {
	if len(sq) != len(it.sq) {
		return 0, fmt.Errorf("learned optimizer %s: %d gradient norms for %d functions", it.l.Label, len(sq), len(it.sq))
	}
	copy(sq, it.sq)
	return it.sum, nil
}

// Close frees the device buffers now rather than when the iterator is
// collected, and returns X's failed copy if there was one.
func (it *deviceIterator) Close() error {
	it.run.Close()
	return it.err
}

// Next implements baselines.Iterator.
func (it *deviceIterator) Next() error {
	if it.err != nil {
		return it.err
	}
	if err := it.load(min(it.t, it.l.Steps-1)); err != nil {
		return err
	}
	if err := it.run.Step(); err != nil {
		return fmt.Errorf("learned optimizer %s: %w", it.l.Label, err)
	}
	it.fresh = false
	sum, err := it.run.Evaluated(it.sq)
	if err != nil {
		return fmt.Errorf("learned optimizer %s: %w", it.l.Label, err)
	}
	it.sum = sum
	if math.IsNaN(sum) || math.IsInf(sum, 0) {
		return fmt.Errorf("%s: iteration %d produced a non-finite value: the learned step %w on these functions; check the certificate with 'l2o certify'", it.l.Label, it.t, baselines.ErrDiverged)
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
