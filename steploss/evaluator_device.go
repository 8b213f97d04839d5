package steploss

import (
	"errors"
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
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
// and addTo adds the block's part of the engine's running sums
// (partialSums): Σk fk(xk⁺) and each term's parameter gradient with the
// weight sign/N (a PC term's F⁻¹(Σk conj(v̂k)·r̂k) summed and inverse
// transformed on the device, read back as one image). The engine's finish
// applies 1/N to the value. On the CPU device it computes in float64 (tests
// bound the difference from the CPU engine); on CUDA in float32 with
// float64 sums.
type devicePass struct {
	ops gpu.Ops
	mem *gpu.Arena // everything on the device: the objective, the update, the step's buffers
	s   gpu.Batch
	obj *ondevice.Objective
	up  *ondevice.Update // its terms bind on the device (models.DeviceBinder)

	x, xPlus, r, rSpec gpu.Buffer
	vs                 []gpu.Buffer // per term: g or p
	value              float64      // Σk fk(xk⁺) of the last pass
	loaded, spectral   bool
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
	if d.spectral {
		if d.rSpec, err = d.alloc(s.N * s.SpectrumLen()); err != nil {
			return nil, err
		}
	}
	return d, nil
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

// close frees the device buffers.
func (d *devicePass) close() {
	d.mem.Close()
	d.obj, d.up = nil, nil
}

// bytes are the device buffers (the arena's meter).
func (d *devicePass) bytes() int64 { return d.mem.Bytes() }

// load copies the step's data to the device and holds the operands in the
// update (PC terms transform theirs).
func (d *devicePass) load(x, g, p []float64) error {
	d.loaded = false
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
	if !d.loaded {
		return errors.New("step loss: SetStep was not called")
	}
	if err := d.up.SetParams(params...); err != nil {
		return fmt.Errorf("step loss: %w", err)
	}
	if err := d.up.Advance(d.xPlus, d.x); err != nil {
		return fmt.Errorf("step loss: x⁺: %w", err)
	}
	return nil
}

// pass evaluates x⁺, Σk fk(xk⁺) and, with grads, r = ∇f(x⁺), on the device.
func (d *devicePass) pass(params, grads [][]float64) error {
	if err := d.advance(params); err != nil {
		return err
	}
	var r gpu.Buffer
	if grads != nil {
		r = d.r
	}
	v, err := d.obj.ValueGrad(d.xPlus, r)
	if err != nil {
		return fmt.Errorf("step loss on %s: %w", d.ops.Name(), err)
	}
	d.value = v
	return nil
}

// addTo adds the last pass's sums to acc: its value and, for the terms with
// grads[i] not nil, their adjoints at r (one forward FFT of r serves the PC
// terms; the other terms weighted sign/total).
func (d *devicePass) addTo(grads [][]float64, acc *partialSums, total int) error {
	acc.value += d.value
	if grads == nil {
		return nil
	}
	rSpec := false
	for i := range d.vs {
		if grads[i] == nil {
			continue
		}
		c := d.up.Sign(i) / float64(total)
		var err error
		if t := d.spectralTerm(i); t != nil {
			if !rSpec {
				if err = d.ops.RFFT2(d.rSpec, d.r, d.s); err != nil {
					return fmt.Errorf("step loss on %s: %w", d.ops.Name(), err)
				}
				rSpec = true
			}
			err = t.AddParamGradSpectra(acc.grads[i], d.up.HeldSpectrum(i), d.rSpec, c)
		} else {
			err = d.up.AddParamGrad(i, acc.grads[i], d.vs[i], d.r, 1/float64(total))
		}
		if err != nil {
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
