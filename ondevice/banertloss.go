package ondevice

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/baselines/banert/arch"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/problem"
)

// BanertLoss is the unrolled training loss f(x^T) of Banert et al.'s
// learned method (package baselines/banert, network arch) and its gradient
// in the network parameters, computed with a device's network operations
// by a hand-written reverse pass instead of a gorgonia graph: the same value
// and gradient as banert.TrainingGraph, its oracle in the tests.
//
// The forward pass keeps x^t, ∇f(x^t) and Δ_t on the device (3 images per
// iteration and function: memory linear in T, as the graph's, but without
// the network's activations); the reverse pass recomputes the network at
// each iteration and carries the adjoints b of x^{t+1} and c of Δ_t back:
//
//	b_Δ = −b/L + c,   b_g = −b/L + S_gᵀ b_Δ,   b_h = S_hᵀ b_Δ,
//	(b_x', b_g', c') = net(x^t, ∇f(x^t), Δ_{t−1})ᵀ b_h   (and the parameters' gradient),
//	b ← b + b_x' + ∇²f(x^t)(b_g + b_g'),   c ← c',
//
// where S is the safeguard Δ = α·h·‖g‖/√(1+‖h‖²). An evaluation queues
// the forward pass, the loss f(x^T) summed into a readout
// (gpu.Ops.AllocReadout), the reverse pass and the gradient's sums gathered
// into that readout's values, and brings the loss and the gradient back by
// one copy. On a device that captures (gpu.Capturer) and reads the norms'
// coefficients from its buffers (gpu.PlaneCombinerOn), that work for T
// iterations is captured as one graph at the first evaluation of that T
// after one uncaptured evaluation (which allocates what it needs), and
// replayed from then on: the parameters, x⁰ and the data are copied in, and
// the readout read back, outside it. A BanertLoss is not safe for
// concurrent use.
type BanertLoss struct {
	ops    gpu.NetOps
	mem    *gpu.Arena // everything on the device: objective, network, trajectory
	s      gpu.Batch
	o      *problem.Objective
	obj    *Objective
	net    *banertNet
	maxT   int
	inputs int
	xs     []gpu.Buffer // x^t, t = 0..maxT
	gs, ds []gpu.Buffer // ∇f(x^t) and Δ_t, t = 0..maxT−1
	grs    []gpu.Buffer // 4 inputs: the regularizer's part of ∇f(x^t)
	gd     gpu.Buffer   // 4 inputs: the data term's part of ∇f (scratch)
	// adjoints and scratch: b, c, b_Δ, b_g, b_h, h, the stacked input and its adjoint, zero
	bx, carry, bd, bg, bh, h, in, din, zero, tmp gpu.Buffer
	// The loss (its one sum) and the gradient's sums (its values), read
	// back by one copy into vals.
	readout gpu.Buffer
	vals    []float64
	// On a device that captures, with the norms' coefficients on the
	// device: the evaluation of T iterations as graph T−1.
	passes *capturedSteps
}

// NewBanertLoss returns the unrolled loss of up to maxT iterations on
// batches of n functions of o's kind, for a network with the given number
// of inputs (3 or 4), on the device ops, or the error of CheckBanert. Close
// frees its buffers.
func NewBanertLoss(ops gpu.Ops, o *problem.Objective, maxT, inputs, n int) (d *BanertLoss, err error) {
	if err := CheckBanert(ops, o, inputs); err != nil {
		return nil, err
	}
	if maxT < 1 || n < 1 {
		return nil, fmt.Errorf("ondevice: Banert loss with T = %d on %d functions: both must be at least 1", maxT, n)
	}
	s := gpu.Batch{N: n, H: o.H, W: o.W}
	loss := &BanertLoss{ops: ops.(gpu.NetOps), mem: gpu.NewArena(ops), s: s, o: o, maxT: maxT, inputs: inputs}
	d = loss
	defer func() {
		if err != nil {
			loss.Close() // d is nil by now
		}
	}()
	if d.obj, err = NewObjective(d.mem, o, n); err != nil {
		return nil, err
	}
	if d.net, err = newBanertNet(d.mem, inputs, n, o.H, o.W); err != nil {
		return nil, err
	}
	img := s.Len()
	d.xs, d.gs, d.ds = make([]gpu.Buffer, maxT+1), make([]gpu.Buffer, maxT), make([]gpu.Buffer, maxT)
	bufs := []sized{{&d.xs[maxT], img}}
	for t := range maxT {
		bufs = append(bufs, sized{&d.xs[t], img}, sized{&d.gs[t], img}, sized{&d.ds[t], img})
	}
	if inputs == 4 {
		d.grs = make([]gpu.Buffer, maxT)
		for t := range maxT {
			bufs = append(bufs, sized{&d.grs[t], img})
		}
		bufs = append(bufs, sized{&d.gd, img})
	}
	for _, b := range []*gpu.Buffer{&d.bx, &d.carry, &d.bd, &d.bg, &d.bh, &d.h, &d.zero, &d.tmp} {
		bufs = append(bufs, sized{b, img})
	}
	bufs = append(bufs, sized{&d.in, inputs * img}, sized{&d.din, inputs * img})
	if err := allocAll(d.mem, "Banert loss", bufs...); err != nil {
		return nil, err
	}
	d.vals = make([]float64, d.net.gradLen())
	if d.readout, err = d.mem.AllocReadout(len(d.vals), 1); err != nil {
		return nil, fmt.Errorf("ondevice: Banert loss: %w", err)
	}
	d.passes = newCapturedSteps(d.mem, "Banert loss", maxT, d.net.on != nil)
	return d, nil
}

// Bytes is what the loss's device buffers hold: the trajectory, the
// objective's and the network's buffers (its arena's meter).
func (d *BanertLoss) Bytes() int64 { return d.mem.Bytes() }

// Close frees the device buffers.
func (d *BanertLoss) Close() { d.mem.Close() }

// stack writes the network's input [x^t, ∇f(x^t), Δ_{t−1}] (4 inputs:
// [x^t, ∇f_data, ∇f_reg, Δ_{t−1}]) into d.in.
func (d *BanertLoss) stack(t int) error {
	prev := d.zero
	if t > 0 {
		prev = d.ds[t-1]
	}
	n, hw := d.s.N, d.s.H*d.s.W
	if d.inputs == 3 {
		return stackInput(d.ops, d.in, n, hw, d.xs[t], d.gs[t], prev)
	}
	if err := dataPart(d.ops, d.gd, d.gs[t], d.grs[t]); err != nil {
		return err
	}
	return stackInput(d.ops, d.in, n, hw, d.xs[t], d.gd, d.grs[t], prev)
}

// Eval runs T ≤ maxT iterations from x0 on the functions with data y (one
// batch: n images each) with network parameters theta, returns f(x^T)
// summed over the batch, and writes its gradient in theta into grad.
func (d *BanertLoss) Eval(T int, theta, x0, y, grad []float64) (float64, error) {
	if T < 1 || T > d.maxT {
		return 0, fmt.Errorf("ondevice: Banert loss of %d iterations, built for 1 to %d", T, d.maxT)
	}
	if len(grad) != len(theta) {
		return 0, fmt.Errorf("ondevice: Banert loss: gradient has %d slots for %d parameters", len(grad), len(theta))
	}
	if len(x0) != d.s.Len() {
		return 0, fmt.Errorf("ondevice: Banert loss: starting points of %d values, want %d", len(x0), d.s.Len())
	}
	if err := d.net.setParams(theta); err != nil {
		return 0, err
	}
	if err := d.obj.SetData(y); err != nil {
		return 0, err
	}
	ops := d.ops
	if err := ops.CopyIn(d.xs[0], x0); err != nil {
		return 0, fmt.Errorf("ondevice: Banert loss: copy x⁰ to %s: %w", ops.Name(), err)
	}
	passes := d.passes.runner(nil, true)
	if err := passes.run(T-1, func() error { return d.evaluate(T) }); err != nil {
		return 0, err
	}
	passes.done()
	var loss [1]float64
	if err := ops.ReadOut(d.vals, loss[:], d.readout); err != nil {
		return 0, fmt.Errorf("ondevice: Banert loss: read the loss and gradient back from %s: %w", ops.Name(), err)
	}
	clear(grad)
	if math.IsNaN(loss[0]) || math.IsInf(loss[0], 0) {
		// Diverged: the loss says so; the gradient is left at zero.
		return loss[0], nil
	}
	return loss[0], d.net.addGrads(grad, d.vals)
}

// evaluate queues an evaluation of T iterations on the device: the forward
// pass, f(x^T) into the readout's sum and ∇f(x^T) into d.bx, the reverse
// pass, and the gradient's sums into the readout's values.
func (d *BanertLoss) evaluate(T int) error {
	for t := 0; t < T; t++ {
		if err := d.forwardStep(t); err != nil {
			return err
		}
	}
	if err := d.ops.ZeroSums(d.readout); err != nil {
		return fmt.Errorf("ondevice: Banert loss: %w", err)
	}
	if err := d.obj.AddValueGrad(d.readout, 0, 1, d.xs[T], d.bx); err != nil {
		return err
	}
	if err := d.reverse(T); err != nil {
		return err
	}
	return d.net.gatherGrads(d.readout)
}

// reverse runs the reverse pass from b = ∇f(x^T) in d.bx: the adjoints
// back through the T iterations and the parameters' gradient summed on
// the device.
func (d *BanertLoss) reverse(T int) error {
	if err := d.ops.Zero(d.carry); err != nil {
		return err
	}
	if err := d.net.zeroGrads(); err != nil {
		return err
	}
	for t := T - 1; t >= 0; t-- {
		if err := d.reverseStep(t); err != nil {
			return err
		}
	}
	return nil
}

// forwardStep computes ∇f(x^t), Δ_t and x^{t+1} = x^t − (∇f(x^t) + Δ_t)/L.
func (d *BanertLoss) forwardStep(t int) error {
	ops, step := d.ops, 1/d.o.L
	if err := d.obj.Gradient(d.xs[t], d.gs[t]); err != nil {
		return err
	}
	if d.inputs == 4 {
		if err := d.obj.RegGrad(d.grs[t], d.xs[t]); err != nil {
			return err
		}
	}
	if err := d.stack(t); err != nil {
		return err
	}
	if err := d.net.forward(d.h, d.in); err != nil {
		return err
	}
	if err := safeguardOn(ops, d.ds[t], d.h, d.gs[t], d.s.N, d.s.H*d.s.W); err != nil {
		return err
	}
	if err := ops.Copy(d.xs[t+1], d.xs[t]); err != nil {
		return err
	}
	if err := ops.Axpby(d.xs[t+1], -step, d.gs[t], 1); err != nil {
		return err
	}
	return ops.Axpby(d.xs[t+1], -step, d.ds[t], 1)
}

// reverseStep carries the adjoints b (of x^{t+1}) and c (of Δ_t) back
// through iteration t, to those of x^t and Δ_{t−1}, recomputing the
// network there, and adds the parameters' gradient at t to the network's
// sums on the device.
func (d *BanertLoss) reverseStep(t int) error {
	ops, step := d.ops, 1/d.o.L
	// b_Δ = −b/L + c, b_g = −b/L.
	if err := ops.Copy(d.bd, d.carry); err != nil {
		return err
	}
	if err := ops.Axpby(d.bd, -step, d.bx, 1); err != nil {
		return err
	}
	if err := ops.Copy(d.bg, d.bx); err != nil {
		return err
	}
	if err := ops.Axpby(d.bg, 0, d.bx, -step); err != nil {
		return err
	}
	if err := d.stack(t); err != nil {
		return err
	}
	if err := d.net.forward(d.h, d.in); err != nil {
		return err
	}
	if err := d.safeguardBackward(d.gs[t]); err != nil {
		return err
	}
	if err := d.net.backward(d.din, d.bh); err != nil {
		return err
	}
	return d.unstack(t)
}

// unstack adds the adjoint of the network's input at iteration t: its x
// channel to b, its Δ_{t−1} channel into c, and its gradient channels, with
// b_g, through ∇²f(x^t) to b (the 4-input network's two parts through their
// own Hessians).
func (d *BanertLoss) unstack(t int) error {
	ops, n, hw, C := d.ops, d.s.N, d.s.H*d.s.W, d.inputs
	if err := ops.CopyPlanes(d.tmp, 0, 1, d.din, 0, C, n, hw); err != nil {
		return err
	}
	if err := ops.Axpby(d.bx, 1, d.tmp, 1); err != nil {
		return err
	}
	if err := ops.CopyPlanes(d.carry, 0, 1, d.din, C-1, C, n, hw); err != nil {
		return err
	}
	if C == 3 {
		if err := ops.CopyPlanes(d.tmp, 0, 1, d.din, 1, C, n, hw); err != nil {
			return err
		}
		if err := ops.Axpby(d.bg, 1, d.tmp, 1); err != nil {
			return err
		}
		if err := d.obj.HessVec(d.tmp, d.xs[t], d.bg); err != nil {
			return err
		}
		return ops.Axpby(d.bx, 1, d.tmp, 1)
	}
	for part := 1; part <= 2; part++ {
		// u = b_g + the channel's adjoint; b += H_part(x^t) u.
		if err := ops.CopyPlanes(d.tmp, 0, 1, d.din, part, C, n, hw); err != nil {
			return err
		}
		if err := ops.Axpby(d.tmp, 1, d.bg, 1); err != nil {
			return err
		}
		var err error
		if part == 1 {
			err = d.obj.HessVecData(d.gd, d.tmp)
		} else {
			err = d.obj.HessVecReg(d.gd, d.xs[t], d.tmp)
		}
		if err != nil {
			return err
		}
		if err := ops.Axpby(d.bx, 1, d.gd, 1); err != nil {
			return err
		}
	}
	return nil
}

// safeguardBackward adds S_gᵀ b_Δ to b_g and writes b_h = S_hᵀ b_Δ at
// h = d.h and g, on the device:
//
//	S_hᵀu = α‖g‖(u/s − h⟨h,u⟩/s³),  S_gᵀu = α⟨h,u⟩ g/(‖g‖ s),  s = √(1+‖h‖²).
func (d *BanertLoss) safeguardBackward(g gpu.Buffer) error {
	return d.ops.PlaneSafeguardBackward(d.bh, d.bg, d.bd, d.h, g, d.s.N, d.s.H*d.s.W, arch.SafeguardAlpha)
}
