package ondevice

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/tomo"
)

// Objective is F(x) = Σ_k f_k(x_k) over a batch of deblurring or CT
// functions (problem.DeviceForm) on a device, with its data y on the
// device. Its buffers, ray transform and ridge potentials belong to the
// arena it was built on, whose Close frees them.
type Objective struct {
	ops                                      gpu.Ops
	mem                                      *gpu.Arena
	s                                        gpu.Batch
	form                                     problem.DeviceForm
	m                                        int // data values per function
	ray                                      tomo.DeviceRay
	ridge                                    *ridgeReg // WCRR, or nil for Huber-TV
	vals                                     []float64
	y, blur, res, field, field2, field3, tmp gpu.Buffer
	sum                                      gpu.Buffer // ValueGrad's readout of one sum (made on first use)
}

// noDevicePath is the error for an objective without a device form.
func noDevicePath(o *problem.Objective) error {
	return fmt.Errorf("ondevice: objective with operator %v and regularizer %v has no device path (deblurring or CT with Huber-TV, WCRR or no regularizer only); use --device cpu", o.A, o.Reg)
}

// NewObjective returns the objective of o's kind for batches of n functions
// of o's image size, or an error if o has no device form
// (problem.Objective.DeviceForm) or, for CT, the device has no ray
// transform (tomo.NewDeviceRay). It allocates on mem (mem.Close frees what it
// holds). Load the data of the batch with SetData.
func NewObjective(mem *gpu.Arena, o *problem.Objective, n int) (ob *Objective, err error) {
	form, ok := o.DeviceForm()
	if !ok {
		return nil, noDevicePath(o)
	}
	if n < 1 {
		return nil, fmt.Errorf("ondevice: batch of %d functions", n)
	}
	ops := mem.Ops()
	ob = &Objective{ops: ops, mem: mem, s: gpu.Batch{N: n, H: o.H, W: o.W}, form: form, m: form.DataLen(o.H, o.W), vals: make([]float64, n)}
	img := ob.s.Len()
	for _, b := range []struct {
		p *gpu.Buffer
		n int
	}{{&ob.y, n * ob.m}, {&ob.res, n * ob.m}, {&ob.tmp, img}} {
		if *b.p, err = ob.alloc(b.n); err != nil {
			return nil, err
		}
	}
	switch {
	case form.Alpha != 0 && form.Ridge != nil:
		if ob.ridge, err = newRidgeReg(mem, form.Ridge, n, o.H, o.W); err != nil {
			return nil, err
		}
	case form.Alpha != 0:
		if ob.field, err = ob.alloc(2 * img); err != nil {
			return nil, err
		}
	}
	if form.Ray != nil {
		if ob.ray, err = tomo.NewDeviceRay(ops, *form.Ray); err != nil {
			return nil, fmt.Errorf("ondevice: %w", err)
		}
		mem.OnClose(ob.ray.Close)
		return ob, nil
	}
	if ob.blur, err = ob.alloc(len(form.Kernel)); err != nil {
		return nil, err
	}
	if err := ops.CopyIn(ob.blur, form.Kernel); err != nil {
		return nil, fmt.Errorf("ondevice: copy the blur to %s: %w", ops.Name(), err)
	}
	return ob, nil
}

// forward writes dst = A x (data of the batch).
func (ob *Objective) forward(dst, x gpu.Buffer) error {
	f := ob.form
	if ob.ray == nil {
		return ob.ops.Conv2D(dst, x, ob.blur, ob.s, f.K, f.Boundary)
	}
	return ob.ray.Residual(dst, x, nil, f.RayScale, ob.s.N)
}

// residual writes res = A x − y, the subtraction in the operator's kernel.
func (ob *Objective) residual(res, x gpu.Buffer) error {
	f := ob.form
	if ob.ray == nil {
		return ob.ops.Conv2DResidual(res, x, ob.blur, ob.y, ob.s, f.K, f.Boundary)
	}
	return ob.ray.Residual(res, x, ob.y, f.RayScale, ob.s.N)
}

// adjoint writes dst = Aᵀ r (images of the batch).
func (ob *Objective) adjoint(dst, r gpu.Buffer) error {
	f := ob.form
	if ob.ray == nil {
		return ob.ops.Conv2DAdjointImage(dst, r, ob.blur, ob.s, f.K, f.Boundary)
	}
	return ob.ray.AdjointScaled(dst, r, f.RayScale, ob.s.N)
}

func (ob *Objective) alloc(n int) (gpu.Buffer, error) {
	b, err := ob.mem.Alloc(n)
	if err != nil {
		return nil, fmt.Errorf("ondevice: %w", err)
	}
	return b, nil
}

// Batch is the shape of the objective's batches.
func (ob *Objective) Batch() gpu.Batch { return ob.s }

// SetData copies the data y of the batch's functions (n images, or n
// sinograms for CT) to the device.
func (ob *Objective) SetData(y []float64) error {
	if len(y) != ob.s.N*ob.m {
		return fmt.Errorf("ondevice: data of %d values, want %d", len(y), ob.s.N*ob.m)
	}
	if err := ob.ops.CopyIn(ob.y, y); err != nil {
		return fmt.Errorf("ondevice: copy the data to %s: %w", ob.ops.Name(), err)
	}
	return nil
}

// ValueGrad returns F(x) and, if grad is not nil, writes ∇F(x) into it
// (grad may not be x): AddValueGrad, and one copy of the value to the host.
func (ob *Objective) ValueGrad(x, grad gpu.Buffer) (float64, error) {
	if ob.sum == nil {
		r, err := ob.mem.AllocReadout(0, 1)
		if err != nil {
			return 0, fmt.Errorf("ondevice: objective: %w", err)
		}
		ob.sum = r
	}
	if err := ob.ops.ZeroSums(ob.sum); err != nil {
		return 0, fmt.Errorf("ondevice: objective: %w", err)
	}
	if err := ob.AddValueGrad(ob.sum, 0, 1, x, grad); err != nil {
		return 0, err
	}
	var v [1]float64
	if err := ob.ops.ReadOut(nil, v[:], ob.sum); err != nil {
		return 0, fmt.Errorf("ondevice: objective: %w", err)
	}
	return v[0], nil
}

// Gradient writes ∇F(x) into grad (grad may not be x), and leaves the
// residuals A x − y in the objective's buffer res.
func (ob *Objective) Gradient(x, grad gpu.Buffer) error {
	return ob.AddValueGrad(nil, 0, 0, x, grad)
}

// AddValueGrad adds c·F(x) to sum i of the readout r (gpu.Ops.AllocReadout;
// with r nil the value is not computed) and, if grad is not nil, writes
// ∇F(x) into it (grad may not be x). Everything stays on the device:
//
//	res = A x − y,  F = ½‖res‖² + α Σ huber(|Dx|)  (or α·S(x), WCRR)
//	∇F = Aᵀres + α DᵀΨ(Dx).
func (ob *Objective) AddValueGrad(r gpu.Buffer, i int, c float64, x, grad gpu.Buffer) error {
	return ob.valueGrad(r, i, c, false, x, grad)
}

// SetValueGrad is AddValueGrad with sum i of r set to c·F(x) instead of
// added to: no zeroing of the sum before.
func (ob *Objective) SetValueGrad(r gpu.Buffer, i int, c float64, x, grad gpu.Buffer) error {
	return ob.valueGrad(r, i, c, true, x, grad)
}

// valueGrad is AddValueGrad, or SetValueGrad with set: the residual in the
// operator's kernel, the differences, the Huber value and its derivative in
// one pass, α·DᵀΨ added to Aᵀres by one kernel.
func (ob *Objective) valueGrad(r gpu.Buffer, i int, c float64, set bool, x, grad gpu.Buffer) error {
	o, s, f := ob.ops, ob.s, ob.form
	if err := ob.residual(ob.res, x); err != nil {
		return fmt.Errorf("ondevice: objective: %w", err)
	}
	if r != nil {
		dot := o.AddDot
		if set {
			dot = o.SetDot
		}
		if err := dot(r, i, c/2, ob.res, ob.res); err != nil {
			return fmt.Errorf("ondevice: objective: %w", err)
		}
	}
	if grad != nil {
		if err := ob.adjoint(grad, ob.res); err != nil {
			return fmt.Errorf("ondevice: gradient: %w", err)
		}
	}
	switch {
	case f.Alpha == 0:
		return nil
	case ob.ridge != nil:
		if err := ob.ridge.addValueGrad(r, i, c*f.Alpha, x, grad, ob.tmp, f.Alpha); err != nil {
			return fmt.Errorf("ondevice: wcrr: %w", err)
		}
		return nil
	}
	if grad == nil {
		if r == nil {
			return nil
		}
		if err := o.Grad(ob.field, x, s); err != nil {
			return fmt.Errorf("ondevice: objective: %w", err)
		}
		if err := o.AddHuberValue(r, i, c*f.Alpha, ob.field, s, f.Eps); err != nil {
			return fmt.Errorf("ondevice: objective: %w", err)
		}
		return nil
	}
	if err := o.AddHuberTV(r, i, c*f.Alpha, ob.field, x, s, f.Eps); err != nil {
		return fmt.Errorf("ondevice: gradient: %w", err)
	}
	if err := o.GradAdjointAxpby(grad, f.Alpha, ob.field, 1, s); err != nil {
		return fmt.Errorf("ondevice: gradient: %w", err)
	}
	return nil
}

// regValues writes each function's regularizer value (without α) into
// ob.vals: its Huber sum, or the WCRR potential S(x_k).
func (ob *Objective) regValues(x gpu.Buffer) error {
	if ob.ridge != nil {
		return ob.ridge.values(ob.vals, x)
	}
	if err := ob.ops.Grad(ob.field, x, ob.s); err != nil {
		return err
	}
	return ob.ops.HuberValue(ob.vals, ob.field, ob.s, ob.form.Eps)
}

// HessVec writes out = ∇²F(x)·v = AᵀA v + α Dᵀ ψ”(Dx)[Dv] (out may
// not be x or v).
func (ob *Objective) HessVec(out, x, v gpu.Buffer) error {
	if err := ob.HessVecData(out, v); err != nil {
		return err
	}
	if ob.form.Alpha == 0 {
		return nil
	}
	if err := ob.hessVecReg(ob.tmp, x, v); err != nil {
		return err
	}
	return ob.ops.Axpby(out, 1, ob.tmp, 1)
}

// HessVecData writes out = AᵀA v, the data term's Hessian applied to v
// (out may not be v).
func (ob *Objective) HessVecData(out, v gpu.Buffer) error {
	if err := ob.forward(ob.res, v); err != nil {
		return fmt.Errorf("ondevice: hessian: %w", err)
	}
	if err := ob.adjoint(out, ob.res); err != nil {
		return fmt.Errorf("ondevice: hessian: %w", err)
	}
	return nil
}

// HessVecReg writes out = α Dᵀ ψ”(Dx)[Dv], the regularizer's Hessian at x
// applied to v (zero without a regularizer; out may not be x or v).
func (ob *Objective) HessVecReg(out, x, v gpu.Buffer) error {
	if ob.form.Alpha == 0 {
		return ob.ops.Zero(out)
	}
	return ob.hessVecReg(out, x, v)
}

// hessVecReg writes α Dᵀ ψ”(Dx)[Dv] (WCRR: α ∇²S(x) v) into out (α ≠ 0).
func (ob *Objective) hessVecReg(out, x, v gpu.Buffer) error {
	o, s, f := ob.ops, ob.s, ob.form
	if ob.ridge != nil {
		if err := ob.ridge.hessVec(out, x, v); err != nil {
			return fmt.Errorf("ondevice: wcrr hessian: %w", err)
		}
		return o.Axpby(out, 0, out, f.Alpha)
	}
	if ob.field2 == nil || ob.field3 == nil {
		// The Hessian's two more fields, allocated on first use (both or
		// neither).
		f2, err := ob.alloc(2 * s.Len())
		if err != nil {
			return fmt.Errorf("ondevice: the Hessian's fields: %w", err)
		}
		f3, err := ob.alloc(2 * s.Len())
		if err != nil {
			return fmt.Errorf("ondevice: the Hessian's fields: %w", err)
		}
		ob.field2, ob.field3 = f2, f3
	}
	if err := o.Grad(ob.field, x, s); err != nil {
		return fmt.Errorf("ondevice: hessian: %w", err)
	}
	if err := o.Grad(ob.field2, v, s); err != nil {
		return fmt.Errorf("ondevice: hessian: %w", err)
	}
	if err := o.HuberHessVec(ob.field3, ob.field, ob.field2, s, f.Eps); err != nil {
		return fmt.Errorf("ondevice: hessian: %w", err)
	}
	if err := o.GradAdjoint(out, ob.field3, s); err != nil {
		return fmt.Errorf("ondevice: hessian: %w", err)
	}
	return o.Axpby(out, 0, out, f.Alpha)
}

// RegGrad writes out = α Dᵀψ'(Dx), the regularizer's part of ∇F(x) (zero
// without a regularizer; out may not be x).
func (ob *Objective) RegGrad(out, x gpu.Buffer) error {
	o, s, f := ob.ops, ob.s, ob.form
	if f.Alpha == 0 {
		return o.Zero(out)
	}
	if ob.ridge != nil {
		if err := ob.ridge.grad(out, x); err != nil {
			return fmt.Errorf("ondevice: wcrr gradient: %w", err)
		}
		return o.Axpby(out, 0, out, f.Alpha)
	}
	if err := o.Grad(ob.field, x, s); err != nil {
		return fmt.Errorf("ondevice: regularizer gradient: %w", err)
	}
	if err := o.HuberDerivative(ob.field, ob.field, s, f.Eps); err != nil {
		return fmt.Errorf("ondevice: regularizer gradient: %w", err)
	}
	if err := o.GradAdjoint(out, ob.field, s); err != nil {
		return fmt.Errorf("ondevice: regularizer gradient: %w", err)
	}
	return o.Axpby(out, 0, out, f.Alpha)
}
