package ondevice

import (
	"fmt"
	"slices"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/problem"
)

// BanertIteration runs a trained Banert network's iterations on a batch of
// functions on a device,
//
//	x^{t+1} = x^t − (1/L)(∇f(x^t) + Δ_t),   Δ_t = α·h_t·‖∇f(x^t)‖/√(1 + ‖h_t‖²),
//
// with h_t the network at [x^t, ∇f(x^t), Δ_{t−1}] (4 inputs: ∇f in its data
// and regularizer parts) and Δ_{−1} = 0: the iterates, ∇f, the network and
// the safeguard stay on the device; X copies the iterates back.
type BanertIteration struct {
	deviceIterates  // the arena holds the objective, the network and the iterates
	ops             gpu.NetOps
	net             *banertNet
	g, delta, h, in gpu.Buffer
	gd, gr          gpu.Buffer // 4 inputs: the two parts of ∇f
	step            float64
	n, hw           int
}

// NewBanertIteration returns the iterations of the network with the given
// number of inputs and parameters theta (in the order of arch.Layout) on
// o's functions from o.X0, on the device ops, or the error of CheckBanert
// or of a device that cannot hold them. Close frees its buffers.
func NewBanertIteration(ops gpu.Ops, inputs int, theta []float64, o *problem.Objective) (_ *BanertIteration, err error) {
	if err := CheckBanert(ops, o, inputs); err != nil {
		return nil, err
	}
	hw := o.ImageLen()
	it := &BanertIteration{ops: ops.(gpu.NetOps), deviceIterates: deviceIterates{mem: gpu.NewArena(ops)}, step: 1 / o.L, n: o.N, hw: hw}
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
	if it.net, err = newBanertNet(it.mem, inputs, o.N, o.H, o.W); err != nil {
		return nil, err
	}
	// A copy: the norms' scales and offsets stay views of what it is given.
	if err = it.net.setParams(slices.Clone(theta)); err != nil {
		return nil, err
	}
	img := o.N * hw
	bufs := []sized{{&it.x, img}, {&it.g, img}, {&it.delta, img}, {&it.h, img}, {&it.in, inputs * img}}
	if inputs == 4 {
		bufs = append(bufs, sized{&it.gd, img}, sized{&it.gr, img})
	}
	if err = allocAll(it.mem, "Banert iteration", bufs...); err != nil {
		return nil, err
	}
	if err = it.ops.CopyIn(it.x, o.X0); err != nil {
		return nil, fmt.Errorf("ondevice: copy x⁰ to %s: %w", it.ops.Name(), err)
	}
	return it, nil
}

// Device names the device.
func (it *BanertIteration) Device() string { return it.ops.Name() }

// Step computes ∇f(x^t), the network's direction, the safeguarded Δ_t and
// x^{t+1} on the device.
func (it *BanertIteration) Step() error {
	if it.obj == nil {
		return fmt.Errorf("ondevice: the iteration was closed")
	}
	ops := it.ops
	if err := it.obj.Gradient(it.x, it.g); err != nil {
		return err
	}
	channels := []gpu.Buffer{it.x, it.g, it.delta}
	if it.gr != nil {
		if err := it.obj.RegGrad(it.gr, it.x); err != nil {
			return err
		}
		if err := dataPart(ops, it.gd, it.g, it.gr); err != nil {
			return err
		}
		channels = []gpu.Buffer{it.x, it.gd, it.gr, it.delta}
	}
	if err := stackInput(ops, it.in, it.n, it.hw, channels...); err != nil {
		return err
	}
	if err := it.net.forward(it.h, it.in); err != nil {
		return err
	}
	if err := safeguardOn(ops, it.delta, it.h, it.g, it.n, it.hw); err != nil {
		return err
	}
	if err := ops.Axpby(it.x, -it.step, it.g, 1); err != nil {
		return err
	}
	return ops.Axpby(it.x, -it.step, it.delta, 1)
}
