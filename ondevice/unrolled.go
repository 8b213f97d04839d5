package ondevice

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Unrolled evaluates the unrolled loss of T learned steps on a batch of
// functions, and its gradient in every step's parameters, with a device's
// array operations: the update's vector–Jacobian product (Update) and the
// objective's Hessian-vector product (Objective.HessVec) instead of a
// gorgonia graph (package unroll's graph is the oracle it is tested
// against). The forward pass keeps the trajectory
// x^0, …, x^T and the gradients ∇F(x^0), …, ∇F(x^T) on the device (2(T+1)
// batches: memory linear in T, as the graph's); the reverse pass carries the
// adjoint b^{t+1} of x^{t+1} back through
//
//	∂ℓ/∂θt  = −∇θ⟨b^{t+1}, G_θt ∇F(x^t)⟩,   ∂ℓ/∂φt = ∇φ⟨b^{t+1}, H_φt (x^t − x^{t−1})⟩,
//	b^t     = c_t ∇F(x^t) + b^{t+1} − ∇²F(x^t) G_θtᵀ b^{t+1} + H_φtᵀ b^{t+1} − H_φ(t+1)ᵀ b^{t+2},
//
// with c_t = ω_t/B, the exact gradient the graph's autodiff computes. The
// parameter gradients of terms that keep them on the device
// (models.DeviceGradTerm) are gathered there, every step's, with the loss
// values, and read back by one copy an evaluation.
type Unrolled struct {
	ops        gpu.Ops
	mem        *gpu.Arena // everything on the device: objective, terms, trajectory
	s          gpu.Batch
	obj        *Objective
	up         *Update      // term i set at sign_i times its parameters
	xs, gs     []gpu.Buffer // x^t and ∇F(x^t), t = 0..T
	adj, next  gpu.Buffer   // b^{t+1}, b^t: the buffers of adjoints, swapped a step
	adjoints   [2]gpu.Buffer
	carry, tmp gpu.Buffer  // −H_φ(t+1)ᵀ b^{t+2}; scratch
	mom, hv    gpu.Buffer  // x^t − x^{t−1}; ∇²F(x^t)·G_θtᵀ b
	values     []float64   // F(x^t), t = 1..T
	sums       gpu.Buffer  // a readout of T sums: F(x^t) summed on the device
	grads      gpu.Buffer  // a readout: the device terms' gradients, then in its sums F(x^t) and the one-parameter terms' gradients
	slots      [2]gradSlot // where term i's gradient of each step goes in grads
	readout    []float64   // the values of grads, read back
	gradSums   int         // the number of sums of grads
	captured   *capturedSteps
}

// gradSlot is where a term's parameter gradient of step t goes in the
// readout of gradients: nothing (the term's gradient comes to the host
// step by step), its sum base + t·stride, or its values from base + t·stride.
type gradSlot struct {
	onDevice, inSum bool
	base, stride    int
}

func (g gradSlot) at(t int) int { return g.base + t*g.stride }

// NewUnrolled returns the unrolled loss of m on o for steps learned steps
// and batches of batch functions, on the device ops.
func NewUnrolled(ops gpu.Ops, m models.Method, o *problem.Objective, steps, batch int) (d *Unrolled, err error) {
	s := gpu.Batch{N: batch, H: o.H, W: o.W}
	d = &Unrolled{ops: ops, mem: gpu.NewArena(ops), s: s, values: make([]float64, steps)}
	defer func() {
		if err != nil {
			d.Close()
		}
	}()
	if d.obj, err = NewObjective(d.mem, o, batch); err != nil {
		return nil, err
	}
	if d.up, err = NewUpdate(d.mem, m, s); err != nil {
		return nil, err
	}
	for t := 0; t <= steps; t++ {
		x, err := d.alloc()
		if err != nil {
			return nil, err
		}
		g, err := d.alloc()
		if err != nil {
			return nil, err
		}
		d.xs, d.gs = append(d.xs, x), append(d.gs, g)
	}
	if d.sums, err = d.mem.AllocReadout(0, steps); err != nil {
		return nil, fmt.Errorf("ondevice: unrolled loss: %w", err)
	}
	if err := d.allocGrads(steps); err != nil {
		return nil, err
	}
	for _, b := range []*gpu.Buffer{&d.adjoints[0], &d.adjoints[1], &d.carry, &d.tmp, &d.mom, &d.hv} {
		if *b, err = d.alloc(); err != nil {
			return nil, err
		}
	}
	d.captured = newCapturedSteps(d.mem, "unrolled loss", 2*steps, d.up.AllSpectral())
	return d, nil
}

// allocGrads lays out and allocates the readout of gradients: its values
// hold, step after step, G's then H's gradient (the terms with ParamLen
// values); its sums the T values F(x^t), then the T gradients of each
// one-parameter term.
func (d *Unrolled) allocGrads(steps int) error {
	var vals, sums int
	for i := range d.up.Terms() {
		ok, inSum := d.up.GradOn(i)
		slot := gradSlot{onDevice: ok, inSum: inSum}
		switch {
		case !ok:
		case inSum:
			slot.base, sums = sums, sums+1
		default:
			slot.base, vals = vals, vals+d.up.Term(i).ParamLen()
		}
		d.slots[i] = slot
	}
	for i := range d.slots {
		if d.slots[i].inSum {
			d.slots[i].base, d.slots[i].stride = steps+d.slots[i].base*steps, 1
		} else {
			d.slots[i].stride = vals
		}
	}
	d.readout, d.gradSums = make([]float64, steps*vals), steps+steps*sums
	var err error
	if d.grads, err = d.mem.AllocReadout(len(d.readout), d.gradSums); err != nil {
		return fmt.Errorf("ondevice: unrolled loss's gradients: %w", err)
	}
	return nil
}

func (d *Unrolled) alloc() (gpu.Buffer, error) {
	b, err := d.mem.Alloc(d.s.Len())
	if err != nil {
		return nil, fmt.Errorf("ondevice: a batch: %w", err)
	}
	return b, nil
}

// Close frees everything the loss holds on the device.
func (d *Unrolled) Close() { d.mem.Close() }

// SetBatch loads the batch's starting points and data.
func (d *Unrolled) SetBatch(x0, y []float64) error {
	if err := d.ops.CopyIn(d.xs[0], x0); err != nil {
		return fmt.Errorf("ondevice: copy x⁰ to %s: %w", d.ops.Name(), err)
	}
	return d.obj.SetData(y)
}

// hasH returns whether the update has H.
func (d *Unrolled) hasH() bool { return d.up.Terms() == 2 }

// setStep sets the update at step t's parameters.
func (d *Unrolled) setStep(theta, phi [][]float64, t int) error {
	if d.hasH() {
		return d.up.SetParams(theta[t], phi[t])
	}
	return d.up.SetParams(theta[t])
}

// moment writes x^t − x^{t−1} into d.mom and returns it; nil at t = 0 (and
// without H): x^{−1} = x^0.
func (d *Unrolled) moment(t int) (gpu.Buffer, error) {
	if t == 0 || !d.hasH() {
		return nil, nil
	}
	if err := d.ops.Copy(d.mom, d.xs[t]); err != nil {
		return nil, err
	}
	return d.mom, d.ops.Axpby(d.mom, -1, d.xs[t-1], 1)
}

// Eval runs the trajectory for the parameters theta[t], phi[t] and returns
// the loss Σ_t c_t F(x^{t+1}); with gradT (and gradP with momentum) not nil
// it writes the gradient blocks.
func (d *Unrolled) Eval(theta, phi [][]float64, c []float64, gradT, gradP [][]float64) (float64, error) {
	T := len(theta)
	out := d.sums // F(x^t); with the gradients, d.grads holds them too
	if gradT != nil {
		out = d.grads
		if err := d.ops.Zero(out); err != nil {
			return math.NaN(), err
		}
	}
	if err := d.obj.Gradient(d.xs[0], d.gs[0]); err != nil {
		return math.NaN(), err
	}
	if err := d.ops.ZeroSums(out); err != nil {
		return math.NaN(), err
	}
	steps := d.steps(T, c, gradT != nil)
	for t := 0; t < T; t++ {
		err := d.setStep(theta, phi, t)
		if err == nil {
			err = steps.run(t, func() error { return d.forwardStep(t, out) })
		}
		if err != nil {
			return math.NaN(), err
		}
	}
	if gradT != nil {
		if err := d.reverse(theta, phi, c, gradT, gradP, steps); err != nil {
			return math.NaN(), err
		}
		steps.done()
	}
	// Every F(x^{t+1}), and the gradients kept on the device, in one copy.
	vals, sums := d.readout[:0], make([]float64, len(d.values))
	if gradT != nil {
		vals, sums = d.readout, make([]float64, d.gradSums)
	}
	if err := d.ops.ReadOut(vals, sums, out); err != nil {
		return math.NaN(), err
	}
	var loss float64
	for t := 0; t < T; t++ {
		d.values[t] = sums[t]
		loss += c[t] * sums[t]
	}
	if gradT != nil {
		d.scatter(vals, sums, gradT, gradP)
	}
	return loss, nil
}

// scatter copies the gradients read back from d.grads (its values vals and
// sums sums) into the blocks of the terms that keep them on the device.
func (d *Unrolled) scatter(vals, sums []float64, gradT, gradP [][]float64) {
	for i, g := range [][][]float64{gradT, gradP} {
		if i >= d.up.Terms() || !d.slots[i].onDevice {
			continue
		}
		for t := range g {
			if at := d.slots[i].at(t); d.slots[i].inSum {
				g[t][0] = sums[at]
			} else {
				copy(g[t], vals[at:at+len(g[t])])
			}
		}
	}
}

// forwardStep writes x^{t+1} and ∇F(x^{t+1}), the update set at step t's
// parameters, and adds F(x^{t+1}) to sum t of out.
func (d *Unrolled) forwardStep(t int, out gpu.Buffer) error {
	p, err := d.moment(t)
	if err == nil {
		err = d.up.Forward(d.xs[t+1], d.xs[t], d.gs[t], p)
	}
	if err == nil {
		err = d.obj.AddValueGrad(out, t, 1, d.xs[t+1], d.gs[t+1])
	}
	return err
}

// reverse is the reverse pass: adj = b^{t+1}, starting from
// b^T = c_T ∇F(x^T), each step's parameter gradients from the update's
// vector–Jacobian product, added into d.grads (or, for a term that cannot
// keep them on the device, into gradT[t] and gradP[t] on the host).
func (d *Unrolled) reverse(theta, phi [][]float64, c []float64, gradT, gradP [][]float64, steps *stepRunner) error {
	o, T := d.ops, len(theta)
	d.adj, d.next = d.adjoints[0], d.adjoints[1]
	if err := o.Zero(d.adj); err != nil {
		return err
	}
	if err := o.Axpby(d.adj, c[T-1], d.gs[T], 0); err != nil {
		return err
	}
	if err := o.Zero(d.carry); err != nil {
		return err
	}
	for t := T - 1; t >= 0; t-- {
		err := d.setStep(theta, phi, t)
		if err == nil && steps.capturing() {
			err = d.up.PrepareTransposes()
		}
		if err == nil {
			err = steps.run(T+t, func() error { return d.reverseStep(c, gradT, gradP, t) })
		}
		if err != nil {
			return err
		}
		d.adj, d.next = d.next, d.adj
	}
	return nil
}

// reverseStep adds step t's parameter gradients at the adjoint b^{t+1}
// (d.adj), the update set at step t's parameters, and writes b^t into
// d.next (t > 0).
func (d *Unrolled) reverseStep(c []float64, gradT, gradP [][]float64, t int) error {
	p, err := d.moment(t)
	if err == nil {
		err = d.up.HoldAdjoint(d.adj)
	}
	if err == nil {
		err = d.addParamGrad(0, gradT[t], t, d.gs[t])
	}
	if err == nil && d.hasH() {
		err = d.addParamGrad(1, gradP[t], t, p)
	}
	if err == nil && t > 0 {
		err = d.adjointStep(c[t-1], t)
	}
	return err
}

// addParamGrad adds term i's gradient of step t, at operand v (nil: none),
// to its slot of d.grads, or to grad on the host, cleared first.
func (d *Unrolled) addParamGrad(i int, grad []float64, t int, v gpu.Buffer) error {
	if d.slots[i].onDevice {
		if v == nil {
			return nil
		}
		return d.up.AddParamGradOn(i, d.grads, d.slots[i].at(t), v, 1)
	}
	clear(grad)
	if v == nil {
		return nil
	}
	return d.up.AddParamGrad(i, grad, v, d.adj, 1)
}

// adjointStep writes b^t into d.next from b^{t+1} (d.adj), the update set
// at step t's parameters:
//
//	b^t = c ∇F(x^t) + b^{t+1} + ∇²F(x^t) G_{−θt}ᵀ b^{t+1} + carry (+ H_φtᵀ b^{t+1}),
//
// and the carry −H_φtᵀ b^{t+1} for b^{t−1}.
func (d *Unrolled) adjointStep(c float64, t int) error {
	o := d.ops
	if err := d.up.TransposeHeld(0, d.tmp); err != nil {
		return err
	}
	if err := d.obj.HessVec(d.hv, d.xs[t], d.tmp); err != nil {
		return err
	}
	if err := o.Copy(d.next, d.adj); err != nil {
		return err
	}
	if err := o.Axpby(d.next, 1, d.hv, 1); err != nil {
		return err
	}
	if err := o.Axpby(d.next, 1, d.carry, 1); err != nil {
		return err
	}
	if err := o.Axpby(d.next, c, d.gs[t], 1); err != nil {
		return err
	}
	if !d.hasH() {
		return nil
	}
	if err := d.up.TransposeHeld(1, d.tmp); err != nil {
		return err
	}
	if err := o.Axpby(d.next, 1, d.tmp, 1); err != nil {
		return err
	}
	if err := o.Zero(d.carry); err != nil {
		return err
	}
	return o.Axpby(d.carry, -1, d.tmp, 0)
}

// Bytes is what the device buffers hold: the arena's meter.
func (d *Unrolled) Bytes() int64 { return d.mem.Bytes() }

// Device names the device.
func (d *Unrolled) Device() string { return d.ops.Name() }

// Values are F(x^t), t = 1..T, of the last Eval (sums over the batch).
func (d *Unrolled) Values() []float64 { return d.values }

// Iterate writes the batch of iterates x^t of the last Eval into dst.
func (d *Unrolled) Iterate(dst []float64, t int) error {
	if err := d.ops.CopyOut(dst, d.xs[t]); err != nil {
		return fmt.Errorf("ondevice: iterate %d from %s: %w", t, d.ops.Name(), err)
	}
	return nil
}

// BatchLen is the number of values of a batch.
func (d *Unrolled) BatchLen() int { return d.s.Len() }
