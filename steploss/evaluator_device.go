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
// parametrizations) take the graph path with the objective on the device.
func CheckDevice(m models.Method, o *problem.Objective) error {
	if ondevice.CheckMethod(m) != nil {
		// Terms without device kinds (PF, user parametrizations) take the
		// graph path with the objective on the device (deviceGraphStep).
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

// deviceGraphStep is the float64 engine (engine[float64]) with the objective on
// the device, for methods with a term that has no device kind (user
// parametrizations): the terms run on the host, by their own bound operators
// or their graphs (models.GraphBinder), and each evaluation copies x⁺ to the
// device and brings back f_k(x⁺) and r = ∇f(x⁺) (ondevice.BatchEvaluator).
// The objective, the part that costs, runs on the device and its buffers are
// on the device's allocator; the terms hold host memory.
type deviceGraphStep struct {
	*engine[float64]
	be *ondevice.BatchEvaluator
}

func newDeviceGraphStep(m models.Method, o *problem.Objective, ops gpu.Ops) (*deviceGraphStep, error) {
	be, err := ondevice.NewBatchEvaluator(ops, o)
	if err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	ev, err := newEngine[float64](m, o.OnEvaluator(be), engineOptions{})
	if err != nil {
		be.Close()
		return nil, err
	}
	return &deviceGraphStep{engine: ev, be: be}, nil
}

// kind implements stepEvaluator.
func (d *deviceGraphStep) kind() string { return "device-graph" }

// bytes implements stepEvaluator: the terms' host memory and the
// objective's device buffers.
func (d *deviceGraphStep) bytes() int64 { return d.engine.bytes() + d.be.Bytes() }

// close implements stepEvaluator.
func (d *deviceGraphStep) close() error {
	err := d.engine.close()
	d.be.Close()
	return err
}

// deviceStep evaluates the data part of the greedy step loss with a
// device's array operations (gpu.Ops), keeping the step's arrays on the
// device: setStep copies x, g = ∇f(x) and p = x − x⁻ there once (and
// transforms them for PC terms); an evaluation copies the parameters in
// (PC: their spectrum, computed on the host in float64) and brings back
// only the loss and the parameters' gradient:
//
//	x⁺ = x − G_θ g + H_φ p
//	res = A x⁺ − y,  f = ½‖res‖² + α Σ huber(|Dx⁺|)   (problem.DeviceForm)
//	r = ∇f(x⁺) = kᵀres + α DᵀΨ(Dx⁺)
//	∇θ = −(1/N)·(adjoint of θ ↦ G_θ g at r), ∇φ likewise with +, p
//
// On the CPU device it computes in float64 what the engine does
// (tests bound the difference); on CUDA in float32 with float64 sums.
type deviceStep struct {
	ops   gpu.Ops
	mem   *gpu.Arena // everything on the device: the objective, the terms, the step's buffers
	s     gpu.Batch
	obj   *ondevice.Objective
	terms []*ondevice.Term // G, then H: applied at sign·(θ, φ)
	signs []float64

	x, xPlus, r, tmp gpu.Buffer
	vs, specs        []gpu.Buffer // per term: g or p; their spectra (PC terms)
	acc, rSpec       gpu.Buffer   // PC: Σ sign·θ̂·v̂ and r̂
	scaled           [2][]float64 // sign·θ, sign·φ (host)
	loaded, spectral bool
}

// newDeviceStep returns the device evaluator of m on o, or an error if a
// term or o has no device path, or the device cannot hold the buffers.
func newDeviceStep(m models.Method, o *problem.Objective, ops gpu.Ops) (ev *deviceStep, err error) {
	if err := CheckDevice(m, o); err != nil {
		return nil, err
	}
	s := gpu.Batch{N: o.N, H: o.H, W: o.W}
	pars := terms(m)
	d := &deviceStep{ops: ops, mem: gpu.NewArena(ops), s: s, signs: termSigns[:len(pars)]}
	defer func() {
		if err != nil {
			d.close()
			ev = nil
		}
	}()
	if d.obj, err = ondevice.NewObjective(d.mem, o, o.N); err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	if err = d.obj.SetData(o.Y); err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	n, sl := s.Len(), s.SpectrumLen()
	for _, b := range []*gpu.Buffer{&d.x, &d.xPlus, &d.r, &d.tmp} {
		if *b, err = d.alloc(n); err != nil {
			return nil, err
		}
	}
	for _, p := range pars {
		t, err := ondevice.NewTerm(d.mem, p, s)
		if err != nil {
			return nil, fmt.Errorf("step loss: %w", err)
		}
		d.terms = append(d.terms, t)
		v, err := d.alloc(n)
		if err != nil {
			return nil, err
		}
		var spec gpu.Buffer
		if t.Kind() == ondevice.Spectral {
			d.spectral = true
			if spec, err = d.alloc(o.N * sl); err != nil {
				return nil, err
			}
		}
		d.vs, d.specs = append(d.vs, v), append(d.specs, spec)
	}
	if d.spectral {
		for _, b := range []*gpu.Buffer{&d.acc, &d.rSpec} {
			if *b, err = d.alloc(o.N * sl); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

func (d *deviceStep) alloc(n int) (gpu.Buffer, error) {
	b, err := d.mem.Alloc(n)
	if err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	return b, nil
}

// kind implements stepEvaluator.
func (d *deviceStep) kind() string { return "device" }

// close implements stepEvaluator.
func (d *deviceStep) close() error {
	d.mem.Close()
	d.obj, d.terms = nil, nil
	return nil
}

// bytes implements stepEvaluator: the device buffers (the arena's meter).
func (d *deviceStep) bytes() int64 { return d.mem.Bytes() }

// setStep implements stepEvaluator.
func (d *deviceStep) setStep(x, g, p []float64) ([]models.Reduction, error) {
	d.loaded = false
	if err := d.ops.CopyIn(d.x, x); err != nil {
		return nil, fmt.Errorf("step loss: copy x to %s: %w", d.ops.Name(), err)
	}
	for i, t := range d.terms {
		v := g
		if i == 1 {
			v = p
		}
		if err := d.ops.CopyIn(d.vs[i], v); err != nil {
			return nil, fmt.Errorf("step loss: copy term %d's operand to %s: %w", i, d.ops.Name(), err)
		}
		if t.Kind() == ondevice.Spectral {
			if err := d.ops.RFFT2(d.specs[i], d.vs[i], d.s); err != nil {
				return nil, fmt.Errorf("step loss: %w", err)
			}
		}
	}
	d.loaded = true
	return nil, nil
}

// setParams sets every term at sign·(its parameters): x⁺ = x + Σ G_{sign·θ} v.
func (d *deviceStep) setParams(params [][]float64) error {
	if !d.loaded {
		return errors.New("step loss: SetStep was not called")
	}
	for i, t := range d.terms {
		th := params[i]
		if len(th) != t.ParamLen() {
			return fmt.Errorf("step loss: term %d has %d parameters, want %d", i, len(th), t.ParamLen())
		}
		d.scaled[i] = growFloats(d.scaled[i], len(th))
		kernels.ScaleLarge(d.scaled[i], d.signs[i], th)
		if err := t.SetParams(d.scaled[i]); err != nil {
			return fmt.Errorf("step loss: term %d: %w", i, err)
		}
	}
	return nil
}

// advance writes x⁺ for params into d.xPlus.
func (d *deviceStep) advance(params [][]float64) error {
	if err := d.setParams(params); err != nil {
		return err
	}
	o, s := d.ops, d.s
	if err := o.Copy(d.xPlus, d.x); err != nil {
		return err
	}
	if d.spectral {
		if err := o.Zero(d.acc); err != nil {
			return err
		}
	}
	for i, t := range d.terms {
		var err error
		if t.Kind() == ondevice.Spectral {
			// From the operand's spectrum kept by SetStep.
			err = t.AddSpectra(d.acc, d.specs[i])
		} else {
			err = t.Apply(d.xPlus, d.vs[i], 1)
		}
		if err != nil {
			return fmt.Errorf("step loss: x⁺, term %d: %w", i, err)
		}
	}
	if d.spectral {
		if err := o.IRFFT2(d.tmp, d.acc, s); err != nil {
			return fmt.Errorf("step loss: x⁺: %w", err)
		}
		if err := o.Axpby(d.xPlus, 1, d.tmp, 1); err != nil {
			return fmt.Errorf("step loss: x⁺: %w", err)
		}
	}
	return nil
}

// objective returns Σk fk(x⁺) and, if grad, writes ∇f(x⁺) into d.r.
func (d *deviceStep) objective(grad bool) (float64, error) {
	var r gpu.Buffer
	if grad {
		r = d.r
	}
	return d.obj.ValueGrad(d.xPlus, r)
}

// adjoints adds to grads[i] (for the terms with grads[i] not nil) the
// gradient c_i·(adjoint of term i at r), c_i = sign_i/N; one forward FFT of
// r serves the PC terms.
func (d *deviceStep) adjoints(grads [][]float64) error {
	inv := 1 / float64(d.s.N)
	rSpec := false
	for i, t := range d.terms {
		if grads[i] == nil {
			continue
		}
		c := d.signs[i] * inv
		if t.Kind() != ondevice.Spectral {
			if err := t.AddParamGrad(grads[i], d.vs[i], d.r, c); err != nil {
				return err
			}
			continue
		}
		if !rSpec {
			if err := d.ops.RFFT2(d.rSpec, d.r, d.s); err != nil {
				return err
			}
			rSpec = true
		}
		if err := t.AddParamGradSpectra(grads[i], d.specs[i], d.rSpec, c); err != nil {
			return err
		}
	}
	return nil
}

// evaluate returns the mean of fk(xk⁺) and, for the terms with grads[i]
// not nil, adds their gradients.
func (d *deviceStep) evaluate(params, grads [][]float64) (float64, error) {
	if err := d.advance(params); err != nil {
		return 0, err
	}
	total, err := d.objective(grads != nil)
	if err != nil {
		return 0, fmt.Errorf("step loss on %s: %w", d.ops.Name(), err)
	}
	if grads != nil {
		if err := d.adjoints(grads); err != nil {
			return 0, fmt.Errorf("step loss on %s: %w", d.ops.Name(), err)
		}
	}
	return total / float64(d.s.N), nil
}

// eval implements stepEvaluator (in block mode, the frozen term's adjoint is
// not computed).
func (d *deviceStep) eval(params, grads [][]float64) (float64, error) {
	return d.evaluate(params, grads)
}

// next implements stepEvaluator.
func (d *deviceStep) next(dst []float64, params [][]float64) error {
	if err := d.advance(params); err != nil {
		return err
	}
	if err := d.ops.CopyOut(dst, d.xPlus); err != nil {
		return fmt.Errorf("step loss: copy x⁺ from %s: %w", d.ops.Name(), err)
	}
	return nil
}
