package ondevice

import (
	"fmt"
	"sync"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/problem"
)

// BatchEvaluator evaluates every f_k and ∇f_k of an objective on a device
// (problem.BatchEvaluator): each Eval copies the batch x to the device,
// computes there, and brings back the N values and the gradient. It lets the
// classical methods (package baselines) and the safeguards take their ∇f
// from the device with one round trip per evaluation; attach it with
// problem.Objective.OnEvaluator. The device must implement gpu.NetOps (for
// the per-function values). It is safe for concurrent use; calls are
// serialised.
type BatchEvaluator struct {
	mu   sync.Mutex
	ops  gpu.NetOps
	mem  *gpu.Arena // everything on the device: the objective, x and g
	obj  *Objective
	x, g gpu.Buffer
	hw   int
	// shared: mem and obj belong to another user (Objective.Evaluator),
	// which frees them; Close only stops the evaluator.
	shared bool
}

var _ problem.BatchEvaluator = (*BatchEvaluator)(nil)

// NewBatchEvaluator returns the evaluator of o's N functions on the device
// ops, with o's data copied there, or an error if the device lacks the
// operations or o has no device form (problem.DeviceForm). Close frees its
// buffers.
func NewBatchEvaluator(ops gpu.Ops, o *problem.Objective) (be *BatchEvaluator, err error) {
	net, ok := ops.(gpu.NetOps)
	if !ok {
		return nil, fmt.Errorf("ondevice: device %s has no per-plane reductions (gpu.NetOps) for the functions' values; use --device cpu", ops.Name())
	}
	be = &BatchEvaluator{ops: net, mem: gpu.NewArena(ops), hw: o.ImageLen()}
	defer func() {
		if err != nil {
			be.Close()
		}
	}()
	if be.obj, err = NewObjective(be.mem, o, o.N); err != nil {
		return nil, err
	}
	if err := be.obj.SetData(o.Y); err != nil {
		return nil, err
	}
	n := o.N * be.hw
	if be.x, err = be.mem.Alloc(n); err != nil {
		return nil, fmt.Errorf("ondevice: the iterates: %w", err)
	}
	if be.g, err = be.mem.Alloc(n); err != nil {
		return nil, fmt.Errorf("ondevice: the gradients: %w", err)
	}
	return be, nil
}

// Evaluator returns an evaluator of ob's functions that shares ob (its
// data and scratch buffers) and keeps its iterates and gradients in mem,
// ob's arena: for a user that holds ob already (the step loss's device
// pass), so that the functions' data is on the device once. Its calls queue
// on ob's device after whatever the other user queued; they must not run
// concurrently with that user's. Freeing mem frees it; Close only stops it.
func (ob *Objective) Evaluator(mem *gpu.Arena) (*BatchEvaluator, error) {
	net, ok := ob.ops.(gpu.NetOps)
	if !ok {
		return nil, fmt.Errorf("ondevice: device %s has no per-plane reductions (gpu.NetOps) for the functions' values", ob.ops.Name())
	}
	be := &BatchEvaluator{ops: net, mem: mem, obj: ob, hw: ob.s.H * ob.s.W, shared: true}
	var err error
	if be.x, err = mem.Alloc(ob.s.Len()); err != nil {
		return nil, fmt.Errorf("ondevice: the iterates: %w", err)
	}
	if be.g, err = mem.Alloc(ob.s.Len()); err != nil {
		return nil, fmt.Errorf("ondevice: the gradients: %w", err)
	}
	return be, nil
}

// Name implements problem.BatchEvaluator: the device's name.
func (be *BatchEvaluator) Name() string { return be.ops.Name() }

// Eval implements problem.BatchEvaluator.
func (be *BatchEvaluator) Eval(vals, grad, x []float64) error {
	be.mu.Lock()
	defer be.mu.Unlock()
	if be.x == nil {
		return fmt.Errorf("ondevice: the evaluator on %s was closed", be.ops.Name())
	}
	s := be.obj.Batch()
	if len(x) != s.Len() || (vals != nil && len(vals) != s.N) || (grad != nil && len(grad) != s.Len()) {
		return fmt.Errorf("ondevice: evaluation of %d functions of %d values got %d values, %d value slots and %d gradient values", s.N, be.hw, len(x), len(vals), len(grad))
	}
	if err := be.ops.CopyIn(be.x, x); err != nil {
		return fmt.Errorf("ondevice: copy the iterates to %s: %w", be.ops.Name(), err)
	}
	var g gpu.Buffer
	if grad != nil {
		g = be.g
	}
	if err := be.obj.values(vals, be.x, g); err != nil {
		return err
	}
	if grad != nil {
		if err := be.ops.CopyOut(grad, be.g); err != nil {
			return fmt.Errorf("ondevice: copy the gradients from %s: %w", be.ops.Name(), err)
		}
	}
	return nil
}

// Bytes is what the evaluator's device buffers hold (the objective's and
// the batch's iterates and gradients): its arena's meter.
func (be *BatchEvaluator) Bytes() int64 { return be.mem.Bytes() }

// Close frees the device buffers (an evaluator from Objective.Evaluator:
// none, its owner does); Eval fails after it.
func (be *BatchEvaluator) Close() {
	be.mu.Lock()
	defer be.mu.Unlock()
	if !be.shared {
		be.mem.Close()
	}
	be.x, be.g = nil, nil
}

// values writes f_k(x_k) of every function into vals (if not nil) and
// ∇F(x) into grad (if not nil); the device must implement gpu.NetOps.
func (ob *Objective) values(vals []float64, x, grad gpu.Buffer) error {
	if err := ob.Gradient(x, grad); err != nil {
		return err
	}
	if vals == nil {
		return nil
	}
	net, ok := ob.ops.(gpu.NetOps)
	if !ok {
		return fmt.Errorf("ondevice: device %s has no per-plane reductions for per-function values", ob.ops.Name())
	}
	// Gradient left the residuals A x − y in res.
	if err := net.PlaneDots(vals, ob.res, ob.res, ob.res.Len()/len(vals)); err != nil {
		return fmt.Errorf("ondevice: objective values: %w", err)
	}
	if ob.form.Alpha != 0 {
		if err := ob.regValues(x); err != nil {
			return fmt.Errorf("ondevice: objective values: %w", err)
		}
	}
	for k := range vals {
		vals[k] /= 2
		if ob.form.Alpha != 0 {
			vals[k] += ob.form.Alpha * ob.vals[k]
		}
	}
	return nil
}
