package banert

import (
	"fmt"
	"math"
	"runtime"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
)

// arraysLoss is the unrolled loss on the array operations of a target
// (ondevice.BanertLoss): Eval runs T iterations from x0 on the functions
// with data y, returns f(x^T) summed over them and writes its gradient in
// the parameters theta into grad.
type arraysLoss interface {
	Eval(T int, theta, x0, y, grad []float64) (float64, error)
	Close()
}

// newArraysLoss returns the unrolled loss of up to maxT iterations on
// batches of n of o's functions, for a network of the given inputs, on the
// array operations t.Arrays() (which must not be nil).
func newArraysLoss(t execution.Target, o *problem.Objective, maxT, inputs, n int) (arraysLoss, error) {
	l, err := ondevice.NewBanertLoss(t.Arrays(), o, maxT, inputs, n)
	if err != nil {
		return nil, fmt.Errorf("banert: %w", err)
	}
	return l, nil
}

// arraysRun is a network's iterations on a device (ondevice.BanertIteration):
// Step advances every function one iteration there; X copies the iterates
// back; Device names the device.
type arraysRun interface {
	Step() error
	X(dst []float64) error
	Device() string
	Close()
}

// CheckTarget reports, before training or iterating starts, whether a
// network of the given number of inputs can compute on o's functions on
// the array operations of t (execution.Target.Arrays: a device, or the
// CPU's float32 arrays): they must have network operations, the network 3
// or 4 inputs and o a device form (deblurring or CT with Huber-TV, WCRR or
// no regularizer). On the CPU in float64 it returns nil.
func CheckTarget(t execution.Target, o *problem.Objective, inputs int) error {
	arrays := t.Arrays()
	if arrays == nil {
		return nil
	}
	if err := ondevice.CheckBanert(arrays, o, inputs); err != nil {
		return fmt.Errorf("banert: %w", err)
	}
	return nil
}

// deviceIterator runs a trained network on a device (Method.Target): the
// iterates, ∇f, the network and the safeguard stay there, and each
// iteration copies x^{t+1} back for X.
type deviceIterator struct {
	run   arraysRun
	label string
	host  []float64
	hw    int
	iter  int
}

// startOnDevice is Start for a Method with a Device.
func (m *Method) startOnDevice(o *problem.Objective) (*deviceIterator, error) {
	run, err := ondevice.NewBanertIteration(m.Target.Device, m.Net.Inputs, m.Net.Theta, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name(), err)
	}
	it := &deviceIterator{run: run, label: m.Name(), host: append([]float64(nil), o.X0...), hw: o.ImageLen()}
	// The device buffers are freed by Close, or when the iterator is collected.
	runtime.AddCleanup(it, func(r arraysRun) { r.Close() }, arraysRun(run))
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

// Next implements baselines.Iterator: x ← x − (1/L)(∇f(x) + Δ) on the device.
func (it *deviceIterator) Next() error {
	if err := it.run.Step(); err != nil {
		return fmt.Errorf("%s: iteration %d on %s: %w", it.label, it.iter+1, it.run.Device(), err)
	}
	if err := it.run.X(it.host); err != nil {
		return fmt.Errorf("%s: iteration %d on %s: %w", it.label, it.iter+1, it.run.Device(), err)
	}
	it.iter++
	for i, x := range it.host {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: function %d, iteration %d: iterate is not finite (NaN or ±Inf): the method %w", it.label, i/it.hw, it.iter, baselines.ErrDiverged)
		}
	}
	return nil
}
