package banert

import (
	"fmt"
	"math"
	"runtime"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
)

// stackInput writes the network's input channels ([n][C][hw], C =
// len(channels)) into in.
func stackInput(ops gpu.NetOps, in gpu.Buffer, n, hw int, channels ...gpu.Buffer) error {
	for c, b := range channels {
		if err := ops.CopyPlanes(in, c, len(channels), b, 0, 1, n, hw); err != nil {
			return err
		}
	}
	return nil
}

// safeguardOn writes Δ_k = α·h_k·‖g_k‖/√(1 + ‖h_k‖²) for each of the n
// images into delta, with scale (length n) as scratch.
func safeguardOn(ops gpu.NetOps, delta, h, g gpu.Buffer, n, hw int, scale []float64) error {
	gn, hn := make([]float64, n), make([]float64, n)
	if err := ops.PlaneDots(gn, g, g, hw); err != nil {
		return err
	}
	if err := ops.PlaneDots(hn, h, h, hw); err != nil {
		return err
	}
	for k := range scale {
		scale[k] = SafeguardAlpha * math.Sqrt(gn[k]) / math.Sqrt(1+hn[k])
	}
	return ops.PlaneCombine(delta, scale, h, nil, nil, nil, hw)
}

// deviceIterator runs a trained network on a device (Method.Target): the
// iterates, ∇f, the network and the safeguard stay there, and each
// iteration copies x^{t+1} back for X.
type deviceIterator struct {
	*deviceRun
	label string
	host  []float64
	scale []float64
	step  float64
	n, hw int
	iter  int
}

// deviceRun is what a deviceIterator holds on the device; freed by Close or
// when the iterator is collected.
type deviceRun struct {
	ops                gpu.NetOps
	mem                *gpu.Arena // everything on the device: objective, network, iterates
	obj                *ondevice.Objective
	net                *deviceNet
	x, g, delta, h, in gpu.Buffer
	gd, gr             gpu.Buffer // 4 inputs: the two parts of ∇f
}

func (r *deviceRun) free() {
	r.mem.Close()
	r.obj = nil
}

// startOnDevice is Start for a Method with a Device.
func (m *Method) startOnDevice(o *problem.Objective) (it *deviceIterator, err error) {
	if err := CheckDevice(m.Target.Device, o, m.Net.Inputs); err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name(), err)
	}
	ops := m.Target.Device.(gpu.NetOps)
	run := &deviceRun{ops: ops, mem: gpu.NewArena(ops)}
	hw := o.ImageLen()
	it = &deviceIterator{deviceRun: run, label: m.Name(), host: append([]float64(nil), o.X0...), scale: make([]float64, o.N),
		step: 1 / o.L, n: o.N, hw: hw}
	defer func() {
		if err != nil {
			run.free()
			it = nil
		}
	}()
	if run.obj, err = ondevice.NewObjective(run.mem, o, o.N); err != nil {
		return nil, err
	}
	if err = run.obj.SetData(o.Y); err != nil {
		return nil, err
	}
	if run.net, err = newDeviceNet(run.mem, m.Net.Inputs, o.N, o.H, o.W); err != nil {
		return nil, err
	}
	if err = run.net.setParams(m.Net.Theta); err != nil {
		return nil, err
	}
	for _, b := range []struct {
		p *gpu.Buffer
		n int
	}{{&run.x, o.N * hw}, {&run.g, o.N * hw}, {&run.delta, o.N * hw}, {&run.h, o.N * hw}, {&run.in, m.Net.Inputs * o.N * hw},
		{&run.gd, o.N * hw}, {&run.gr, o.N * hw}} {
		if b.p == &run.gd && m.Net.Inputs == 3 {
			break
		}
		if *b.p, err = run.mem.Alloc(b.n); err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name(), err)
		}
	}
	if err = ops.CopyIn(run.x, o.X0); err != nil {
		return nil, fmt.Errorf("%s: copy x⁰ to %s: %w", m.Name(), ops.Name(), err)
	}
	runtime.AddCleanup(it, func(r *deviceRun) { r.free() }, run)
	return it, nil
}

// X implements baselines.Iterator: the host copy of the current iterates.
func (it *deviceIterator) X() []float64 { return it.host }

// Close frees the device buffers now rather than when the iterator is
// collected.
func (it *deviceIterator) Close() error {
	it.free()
	return nil
}

// Next implements baselines.Iterator: x ← x − (1/L)(∇f(x) + Δ) on the device.
func (it *deviceIterator) Next() error {
	if it.obj == nil {
		return fmt.Errorf("%s: the iterator was closed", it.label)
	}
	ops := it.ops
	wrap := func(err error) error {
		return fmt.Errorf("%s: iteration %d on %s: %w", it.label, it.iter+1, ops.Name(), err)
	}
	if _, err := it.obj.ValueGrad(it.x, it.g); err != nil {
		return wrap(err)
	}
	channels := []gpu.Buffer{it.x, it.g, it.delta}
	if it.gr != nil {
		if err := it.obj.RegGrad(it.gr, it.x); err != nil {
			return wrap(err)
		}
		if err := dataPart(ops, it.gd, it.g, it.gr); err != nil {
			return wrap(err)
		}
		channels = []gpu.Buffer{it.x, it.gd, it.gr, it.delta}
	}
	if err := stackInput(ops, it.in, it.n, it.hw, channels...); err != nil {
		return wrap(err)
	}
	if err := it.net.forward(it.h, it.in); err != nil {
		return wrap(err)
	}
	if err := safeguardOn(ops, it.delta, it.h, it.g, it.n, it.hw, it.scale); err != nil {
		return wrap(err)
	}
	if err := ops.Axpby(it.x, -it.step, it.g, 1); err != nil {
		return wrap(err)
	}
	if err := ops.Axpby(it.x, -it.step, it.delta, 1); err != nil {
		return wrap(err)
	}
	if err := ops.CopyOut(it.host, it.x); err != nil {
		return wrap(err)
	}
	it.iter++
	for i, x := range it.host {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: function %d, iteration %d: iterate is not finite (NaN or ±Inf): the method %w", it.label, i/it.hw, it.iter, baselines.ErrDiverged)
		}
	}
	return nil
}
