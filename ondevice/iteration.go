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
// learned optimizer's iterations). Each step also computes, at the new
// iterates, F = Σ_k f_k and every ‖∇f_k‖² (the gradient serves the next
// step), which Evaluated reads back by one copy; X copies the iterates back.
//
// On a device that captures (gpu.Capturer), with every term of a built-in
// device kind (CheckMethod), a step at parameters that have already made
// one step run one operation at a time (it allocates what the terms need)
// is one graph launch. The iterates rotate through three buffers, so there
// are three graphs, captured at their first use. With every term PC the
// graphs read the parameters' spectra that SetParams queues into the terms'
// buffers, and serve every parameter; otherwise (a PS term's coefficient is
// a launch argument) they are captured again after SetParams, as Algorithm
// 2 repeats its last step.
type Iteration struct {
	deviceIterates // the arena holds the objective, the update and the iterates
	ops            gpu.NetOps
	up             *Update

	prev, grad, next, mom gpu.Buffer
	// stats is a readout of the N values ‖∇f_k(x_k)‖² and the sum F(x) at
	// the current iterates, written by every step.
	stats  gpu.Buffer
	sq     []float64 // the host's copy of the norms when Evaluated is given none
	graphs *capturedSteps
	steps  int // steps made: the rotation's phase is steps mod 3
	// key is the graphs' key (capturedSteps): nil with every term PC,
	// otherwise the number of SetParams calls.
	key []float64
}

// NewIteration returns the iterations of m on o's functions from o.X0, on
// the device ops, or an error if o has no device form, the device has no
// per-image sums (gpu.NetOps) or it cannot hold them. It computes ∇f(x^0)
// there.
func NewIteration(ops gpu.Ops, m models.Method, o *problem.Objective) (_ *Iteration, err error) {
	if err := CheckObjective(o); err != nil {
		return nil, err
	}
	net, ok := ops.(gpu.NetOps)
	if !ok {
		return nil, fmt.Errorf("ondevice: device %s has no per-image sums (gpu.NetOps) for the learned iterations; use --device cpu", ops.Name())
	}
	s := gpu.Batch{N: o.N, H: o.H, W: o.W}
	it := &Iteration{ops: net, deviceIterates: deviceIterates{mem: gpu.NewArena(ops)}, sq: make([]float64, o.N)}
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
	img := s.Len()
	if err = allocAll(it.mem, "learned iteration", sized{&it.x, img}, sized{&it.prev, img}, sized{&it.grad, img},
		sized{&it.next, img}, sized{&it.mom, img}); err != nil {
		return nil, err
	}
	if it.stats, err = it.mem.AllocReadout(o.N, 1); err != nil {
		return nil, fmt.Errorf("ondevice: learned iteration: %w", err)
	}
	for _, b := range []gpu.Buffer{it.x, it.prev} {
		if err = ops.CopyIn(b, o.X0); err != nil {
			return nil, fmt.Errorf("ondevice: copy x⁰ to %s: %w", ops.Name(), err)
		}
	}
	if err = it.evaluate(it.x); err != nil {
		return nil, err
	}
	it.graphs = newCapturedSteps(it.mem, "learned iteration", 3, CheckMethod(m) == nil)
	if !it.up.AllSpectral() {
		it.key = []float64{0}
	}
	return it, nil
}

// Device names the device.
func (it *Iteration) Device() string { return it.ops.Name() }

// SetParams sets θ and φ (φ is ignored without H) for the next steps.
func (it *Iteration) SetParams(theta, phi []float64) error {
	if it.key != nil {
		it.key[0]++
	}
	return it.up.SetParams(theta, phi)
}

// Step computes x^{k+1} from x^k and ∇f(x^k) on the device, then F, ∇f and
// the ‖∇f_k‖² at x^{k+1}: one graph launch where the device captures.
func (it *Iteration) Step() error {
	if it.obj == nil {
		return fmt.Errorf("ondevice: the iteration was closed")
	}
	r := it.graphs.runner(it.key, true)
	if err := r.run(it.steps%3, it.queueStep); err != nil {
		return err
	}
	r.done()
	// Rotate: prev ← x, x ← next.
	it.prev, it.x, it.next = it.x, it.next, it.prev
	it.steps++
	return nil
}

// queueStep queues a step's work: next from x, prev and grad, then
// evaluate at next.
func (it *Iteration) queueStep() error {
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
	return it.evaluate(it.next)
}

// evaluate queues ∇f(x) into grad, and F(x) and every ‖∇f_k(x_k)‖² into
// the readout stats.
func (it *Iteration) evaluate(x gpu.Buffer) error {
	s := it.obj.Batch()
	if err := it.ops.ZeroSums(it.stats); err != nil {
		return fmt.Errorf("ondevice: learned iteration: %w", err)
	}
	if err := it.ops.Zero(it.stats); err != nil {
		return fmt.Errorf("ondevice: learned iteration: %w", err)
	}
	if err := it.obj.AddValueGrad(it.stats, 0, 1, x, it.grad); err != nil {
		return err
	}
	if err := it.ops.PlaneDotsAdd(it.stats, it.grad, it.grad, s.N, s.H*s.W); err != nil {
		return fmt.Errorf("ondevice: learned iteration: ‖∇f_k‖²: %w", err)
	}
	return nil
}

// Evaluated returns F(x) = Σ_k f_k(x_k) at the current iterates and writes
// ‖∇f_k(x_k)‖² into sq[k] for every function (sq may be nil), computed on
// the device with the iterates (reductions in float64, the norms stored in
// the device's precision) and read back together by one copy: the host's
// one wait for the queued steps.
func (it *Iteration) Evaluated(sq []float64) (float64, error) {
	if it.obj == nil {
		return 0, fmt.Errorf("ondevice: the iteration was closed")
	}
	if sq == nil {
		sq = it.sq
	}
	if len(sq) != len(it.sq) {
		return 0, fmt.Errorf("ondevice: %d gradient norms for %d functions", len(sq), len(it.sq))
	}
	var sum [1]float64
	if err := it.ops.ReadOut(sq, sum[:], it.stats); err != nil {
		return 0, fmt.Errorf("ondevice: read the values and gradient norms from %s: %w", it.ops.Name(), err)
	}
	return sum[0], nil
}

// deviceIterates are what an iteration on a device holds: the arena with
// everything it put on the device, its objective and the iterates x.
type deviceIterates struct {
	mem *gpu.Arena
	obj *Objective
	x   gpu.Buffer
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
