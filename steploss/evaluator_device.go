package steploss

import (
	"errors"
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
)

// CheckDevice returns nil if the step loss of m on o can run on a device
// (package gpu's Ops), or the reason it cannot: an objective without a
// device form (deblurring or CT with Huber-TV or no regularizer:
// problem.DeviceForm). Terms without a device kind (PF, user
// parametrizations) run on the host with the objective on the device.
func CheckDevice(m models.Method, o *problem.Objective) error {
	if ondevice.CheckMethod(m) != nil {
		if _, ok := o.DeviceForm(); !ok {
			return fmt.Errorf("step loss: objective with operator %v and regularizer %v has no device path (deblurring or CT with Huber-TV, WCRR or no regularizer only); use --device cpu", o.A, o.Reg)
		}
		return nil
	}
	if err := ondevice.Check(m, o); err != nil {
		return fmt.Errorf("step loss: %w", err)
	}
	return nil
}

// newDeviceEngine returns the float64 engine whose pass runs on the device
// ops: the terms too where every term has a device kind (devicePass),
// otherwise only the objective (ondevice.BatchEvaluator), the terms on the
// host by their own bound operators or their graphs; each evaluation then
// copies x⁺ to the device and brings back fk(x⁺) and r = ∇f(x⁺).
func newDeviceEngine(m models.Method, o *problem.Objective, ops gpu.Ops) (*engine[float64], error) {
	if err := CheckDevice(m, o); err != nil {
		return nil, err
	}
	if ondevice.CheckMethod(m) != nil {
		be, err := ondevice.NewBatchEvaluator(ops, o)
		if err != nil {
			return nil, fmt.Errorf("step loss: %w", err)
		}
		ev, err := newEngine[float64](m, o.OnEvaluator(be), engineOptions{})
		if err != nil {
			be.Close()
			return nil, err
		}
		ev.objectiveOn = be
		return ev, nil
	}
	d, err := newDevicePass(m, o, ops)
	if err != nil {
		return nil, err
	}
	kinds := d.kinds()
	r := &engineRun[float64]{hw: o.ImageLen(), sl: o.H * (o.W/2 + 1), kinds: kinds, n: o.N}
	return &engine[float64]{n: o.N, total: o.N, h: o.H, w: o.W, signs: termSigns[:len(kinds)], run: r, dev: d}, nil
}

// devicePass is the engine's pass over a device's array operations
// (gpu.Ops, the update ondevice.Update), keeping the step's arrays on the
// device: load copies x, g = ∇f(x) and p = x − x⁻ there once (and
// transforms them for PC terms); a pass copies in the parameters of the
// terms whose parameters changed (PC: θ as an image, transformed on the
// device) and evaluates, for the block's functions,
//
//	x⁺ = x − G_θ g + H_φ p
//	res = A x⁺ − y,  f = ½‖res‖² + α Σ huber(|Dx⁺|)   (problem.DeviceForm)
//	r = ∇f(x⁺) = kᵀres + α DᵀΨ(Dx⁺)
//
// with the value Σk fk(xk⁺) summed on the device (ondevice.Objective.
// AddValueGrad) and a PC term's parameter gradient F⁻¹(Σk conj(v̂k)·r̂k)
// summed and inverse transformed there, both into a readout
// (gpu.Ops.AllocReadout); addTo reads them back, one copy for the value and
// the first PC gradient, and adds the block's part of the engine's running
// sums (partialSums) with the weight sign/N. The engine's finish applies
// 1/N to the value. On the CPU device it computes in float64 (tests
// bound the difference from the CPU engine); on CUDA in float32 with
// float64 sums.
type devicePass struct {
	ops gpu.Ops
	mem *gpu.Arena // everything on the device: the objective, the update, the step's buffers
	s   gpu.Batch
	obj *ondevice.Objective
	up  *ondevice.Update // its terms bind on the device (models.DeviceBinder)

	x, xPlus, r, rSpec, gSpec gpu.Buffer
	vs                        []gpu.Buffer // per term: g or p
	loaded, spectral          bool

	// The pass's results stay on the device until addTo reads them back:
	// outs[i] (a PC term's readout: its parameter gradient image and one
	// sum) or valueOut (a readout of the sum alone) hold them. The last
	// pass's value Σk fk(xk⁺) was added to the sum of valueAt, whose
	// image, with that of every other readout in reads, holds a gradient.
	outs     []gpu.Buffer
	valueOut gpu.Buffer
	valueAt  gpu.Buffer
	reads    []int // the terms whose readouts the last pass wrote
	img      []float64

	// On a device that captures (gpu.Capturer), with every term PC, a
	// pass's work after SetParams depends on no host value: it is
	// captured at its second run in a step (the first allocates what it
	// needs) and replayed by one launch, a graph for each set of
	// gradients asked for (graphKey), dropped at the next load.
	capture gpu.Capturer
	graphs  map[graphKey]*graphUse

	// nag holds NAG's iterates on the device (StepLoss.DescendBlock), made
	// on first use.
	nag *nagState

	// iterates evaluates the functions at given iterates on the device,
	// sharing obj (StepLoss.DeviceObjective), made on first use.
	iterates *ondevice.BatchEvaluator
}

// graphKey is which of the (at most two) terms' gradients a pass computes,
// and whether it computes r at all.
type graphKey struct{ grad, term0, term1 bool }

// graphUse is a pass's graph, or the count of its uncaptured runs.
type graphUse struct {
	runs  int
	graph gpu.Graph
}

// newDevicePass returns the device pass of m on o, or an error if a term
// or o has no device path, or the device cannot hold the buffers.
func newDevicePass(m models.Method, o *problem.Objective, ops gpu.Ops) (d *devicePass, err error) {
	s := gpu.Batch{N: o.N, H: o.H, W: o.W}
	d = &devicePass{ops: ops, mem: gpu.NewArena(ops), s: s}
	defer func() {
		if err != nil {
			d.close()
			d = nil
		}
	}()
	if d.obj, err = ondevice.NewObjective(d.mem, o, o.N); err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	if err = d.obj.SetData(o.Y); err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	if d.up, err = ondevice.NewUpdate(d.mem, m, s); err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	for _, b := range []*gpu.Buffer{&d.x, &d.xPlus, &d.r} {
		if *b, err = d.alloc(s.Len()); err != nil {
			return nil, err
		}
	}
	for i := range d.up.Terms() {
		v, err := d.alloc(s.Len())
		if err != nil {
			return nil, err
		}
		d.vs = append(d.vs, v)
		d.spectral = d.spectral || d.spectralTerm(i) != nil
	}
	if d.valueOut, err = d.readout(0); err != nil {
		return nil, err
	}
	d.outs = make([]gpu.Buffer, len(d.vs))
	if d.spectral {
		if d.rSpec, err = d.alloc(s.N * s.SpectrumLen()); err != nil {
			return nil, err
		}
		if d.gSpec, err = d.alloc(s.SpectrumLen()); err != nil {
			return nil, err
		}
		for i := range d.outs {
			if d.spectralTerm(i) == nil {
				continue
			}
			if d.outs[i], err = d.readout(s.H * s.W); err != nil {
				return nil, err
			}
		}
		d.img = make([]float64, s.H*s.W)
	}
	if c, ok := ops.(gpu.Capturer); ok && d.allSpectral() {
		d.capture, d.graphs = c, map[graphKey]*graphUse{}
	}
	return d, nil
}

// allSpectral says whether every term is a PC term.
func (d *devicePass) allSpectral() bool {
	for i := range d.vs {
		if d.spectralTerm(i) == nil {
			return false
		}
	}
	return true
}

// dropGraphs destroys the captured graphs.
func (d *devicePass) dropGraphs() {
	for k, u := range d.graphs {
		if u.graph != nil {
			u.graph.Destroy()
		}
		delete(d.graphs, k)
	}
}

// readout allocates a readout of n values and one sum.
func (d *devicePass) readout(n int) (gpu.Buffer, error) {
	b, err := d.mem.AllocReadout(n, 1)
	if err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	return b, nil
}

func (d *devicePass) alloc(n int) (gpu.Buffer, error) {
	b, err := d.mem.Alloc(n)
	if err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	return b, nil
}

// spectralTerm returns term i if it sums its products on spectra (PC), or
// nil.
func (d *devicePass) spectralTerm(i int) models.SpectralDeviceTerm {
	t, _ := d.up.Term(i).(models.SpectralDeviceTerm)
	return t
}

// kinds are the engine's kinds of the device terms: each adds its
// parameter gradient to the running sums (partialSums.grads), a PC term's
// summed and inverse transformed on the device.
func (d *devicePass) kinds() []termKind {
	out := make([]termKind, d.up.Terms())
	for i := range out {
		out[i] = boundTerm
	}
	return out
}

// objective returns the evaluator of the pass's functions at given
// iterates, sharing the pass's objective on the device.
func (d *devicePass) objective() (problem.BatchEvaluator, error) {
	if d.iterates == nil {
		be, err := d.obj.Evaluator(d.mem)
		if err != nil {
			return nil, fmt.Errorf("step loss: %w", err)
		}
		d.iterates = be
	}
	return d.iterates, nil
}

// close frees the graphs and the device buffers.
func (d *devicePass) close() {
	if d.iterates != nil {
		d.iterates.Close()
	}
	d.dropGraphs()
	d.mem.Close()
	d.obj, d.up = nil, nil
}

// bytes are the device buffers (the arena's meter).
func (d *devicePass) bytes() int64 { return d.mem.Bytes() }

// load copies the step's data to the device and holds the operands in the
// update (PC terms transform theirs).
func (d *devicePass) load(x, g, p []float64) error {
	d.loaded = false
	d.dropGraphs()
	if err := d.ops.CopyIn(d.x, x); err != nil {
		return fmt.Errorf("step loss: copy x to %s: %w", d.ops.Name(), err)
	}
	for i, v := range d.vs {
		if err := d.ops.CopyIn(v, [2][]float64{g, p}[i]); err != nil {
			return fmt.Errorf("step loss: copy term %d's operand to %s: %w", i, d.ops.Name(), err)
		}
	}
	if err := d.up.Hold(d.vs...); err != nil {
		return fmt.Errorf("step loss: %w", err)
	}
	d.loaded = true
	return nil
}

// advance writes x⁺ for params into d.xPlus.
func (d *devicePass) advance(params [][]float64) error {
	if err := d.setParams(params); err != nil {
		return err
	}
	if err := d.up.Advance(d.xPlus, d.x); err != nil {
		return fmt.Errorf("step loss: x⁺: %w", err)
	}
	return nil
}

// setParams copies in the parameters that changed (and transforms them).
func (d *devicePass) setParams(params [][]float64) error {
	if !d.loaded {
		return errors.New("step loss: SetStep was not called")
	}
	if err := d.up.SetParams(params...); err != nil {
		return fmt.Errorf("step loss: %w", err)
	}
	return nil
}

// pass queues, on the device, x⁺, Σk fk(xk⁺) and, with grads, r = ∇f(x⁺)
// and each PC term's parameter gradient F⁻¹(Σk conj(v̂k)·r̂k) (one forward
// transform of r serves them all) into its readout; the value goes to the
// sum of the first of those readouts, or of valueOut. Nothing is read back.
// After the parameters, the work is the same at every pass with the same
// gradients: on a device that captures, a graph (see devicePass.capture).
func (d *devicePass) pass(params, grads [][]float64) error {
	if err := d.setParams(params); err != nil {
		return err
	}
	d.reads, d.valueAt = d.reads[:0], d.valueOut
	key := graphKey{grad: grads != nil}
	if grads != nil {
		for i, out := range d.outs {
			if out != nil && grads[i] != nil {
				d.reads = append(d.reads, i)
			}
		}
		if len(d.reads) > 0 {
			d.valueAt = d.outs[d.reads[0]]
		}
		key.term0 = grads[0] != nil
		key.term1 = len(grads) > 1 && grads[1] != nil
	}
	if d.capture == nil {
		return d.queue(key.grad)
	}
	u := d.graphs[key]
	if u == nil {
		u = &graphUse{}
		d.graphs[key] = u
	}
	if u.graph == nil && u.runs > 0 {
		g, err := d.capture.CaptureGraph(func() error { return d.queue(key.grad) })
		if err != nil {
			return fmt.Errorf("step loss on %s: capture the evaluation: %w", d.ops.Name(), err)
		}
		u.graph = g
	}
	if u.graph == nil {
		u.runs++
		return d.queue(key.grad)
	}
	if err := u.graph.Launch(); err != nil {
		return fmt.Errorf("step loss on %s: %w", d.ops.Name(), err)
	}
	return nil
}

// queue queues the pass's work after SetParams (see pass).
func (d *devicePass) queue(grad bool) error {
	if err := d.up.Advance(d.xPlus, d.x); err != nil {
		return fmt.Errorf("step loss: x⁺: %w", err)
	}
	var r gpu.Buffer
	if grad {
		r = d.r
	}
	if err := d.obj.SetValueGrad(d.valueAt, 0, 1, d.xPlus, r); err != nil {
		return fmt.Errorf("step loss on %s: %w", d.ops.Name(), err)
	}
	if len(d.reads) == 0 {
		return nil
	}
	if err := d.ops.RFFT2(d.rSpec, d.r, d.s); err != nil {
		return fmt.Errorf("step loss on %s: %w", d.ops.Name(), err)
	}
	for _, i := range d.reads {
		if err := d.ops.ConjSumIRFFT2(d.outs[i], d.up.HeldSpectrum(i), d.rSpec, d.gSpec, d.s); err != nil {
			return fmt.Errorf("step loss on %s: %w", d.ops.Name(), err)
		}
	}
	return nil
}

// addTo reads the last pass's results back and adds them to acc: the
// value, each PC term's gradient image read with it (one copy a readout)
// weighted sign/total, and, for the other terms with grads[i] not nil,
// their adjoints at r.
func (d *devicePass) addTo(grads [][]float64, acc *partialSums, total int) error {
	var value [1]float64
	if len(d.reads) == 0 {
		if err := d.ops.ReadOut(nil, value[:], d.valueOut); err != nil {
			return fmt.Errorf("step loss on %s: %w", d.ops.Name(), err)
		}
	}
	for k, i := range d.reads {
		var sum [1]float64
		if err := d.ops.ReadOut(d.img, sum[:], d.outs[i]); err != nil {
			return fmt.Errorf("step loss on %s: %w", d.ops.Name(), err)
		}
		if k == 0 {
			value = sum
		}
		kernels.AxpyLarge(acc.grads[i], d.up.Sign(i)/float64(total), d.img)
	}
	acc.value += value[0]
	if grads == nil {
		return nil
	}
	for i := range d.vs {
		if grads[i] == nil || d.outs[i] != nil {
			continue
		}
		if err := d.up.AddParamGrad(i, acc.grads[i], d.vs[i], d.r, 1/float64(total)); err != nil {
			return fmt.Errorf("step loss on %s: %w", d.ops.Name(), err)
		}
	}
	return nil
}

// next writes x⁺ into dst.
func (d *devicePass) next(dst []float64, params [][]float64) error {
	if err := d.advance(params); err != nil {
		return err
	}
	if err := d.ops.CopyOut(dst, d.xPlus); err != nil {
		return fmt.Errorf("step loss: copy x⁺ from %s: %w", d.ops.Name(), err)
	}
	return nil
}
