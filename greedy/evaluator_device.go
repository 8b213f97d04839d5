package greedy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/param"
	"github.com/greedyl2o/greedyl2o/problem"
)

// deviceTerm is what deviceStep does with one term of x⁺ (ondevice.Kind).
type deviceTerm = ondevice.Kind

const (
	deviceScalar    = ondevice.Scalar
	devicePointwise = ondevice.Pointwise
	deviceSmall     = ondevice.SmallConv
	deviceSpectral  = ondevice.Spectral
)

// deviceTerms classifies the method's terms for deviceStep, or returns an
// error naming the first term without a device path.
func deviceTerms(m param.Method) ([]deviceTerm, []param.SmallConv, error) {
	pars := terms(m)
	kinds := make([]deviceTerm, len(pars))
	small := make([]param.SmallConv, len(pars))
	for i, p := range pars {
		k, sc, err := ondevice.KindOf(p)
		if err != nil {
			return nil, nil, fmt.Errorf("step loss: %w", err)
		}
		kinds[i], small[i] = k, sc
	}
	return kinds, small, nil
}

// CheckDevice returns nil if the step loss of m on o can run on a device
// (package gpu's Ops), or the reason it cannot: a term without a device
// path, or an objective that is not a deblurring problem with Huber-TV or no
// regularizer (problem.DeblurForm). See ondevice.Check.
func CheckDevice(m param.Method, o *problem.Objective) error {
	if err := ondevice.Check(m, o); err != nil {
		return fmt.Errorf("step loss: %w", err)
	}
	return nil
}

// deviceStep evaluates the data part of the greedy step loss with a
// device's array operations (gpu.Ops), keeping the step's arrays on the
// device: setStep copies x, g = ∇f(x) and p = x − x⁻ there once (and
// transforms them for PC terms); an evaluation copies the parameters in
// (PC: their spectrum, computed on the host in float64) and brings back
// only the loss and the parameters' gradient:
//
//	x⁺ = x − G_θ g + H_φ p
//	res = k ⋆ x⁺ − y,  f = ½‖res‖² + α Σ huber(|Dx⁺|)   (problem.DeblurForm)
//	r = ∇f(x⁺) = kᵀres + α DᵀΨ(Dx⁺)
//	∇θ = −(1/N)·(adjoint of θ ↦ G_θ g at r), ∇φ likewise with +, p
//
// On the CPU device it computes in float64 what the bound evaluator does
// (tests bound the difference); on CUDA in float32 with float64 sums.
type deviceStep struct {
	ops   gpu.Ops
	s     gpu.Batch
	obj   *ondevice.Objective
	kinds []deviceTerm
	small []param.SmallConv
	signs []float64

	bufs               []gpu.Buffer // every buffer, for close
	x, xPlus, r, tmp   gpu.Buffer
	vs, specs, thetas  []gpu.Buffer // per term: g or p; spectra (PC); θ (PP, PC-k) or sign·θ̂ (PC)
	acc, rSpec, gSpec  gpu.Buffer   // PC: Σ θ̂·v̂, r̂ and Σ conj(v̂)·r̂
	gImg               gpu.Buffer   // PP: Σ r⊙v; PC-k: the kernel gradient (largest of the two)
	coef               []float64    // scalar terms: sign·θ
	host               []float64    // copies out of the device
	plan64             *kernels.FFT2T[float64]
	spec64             []kernels.Complex[float64]
	img64              []float64
	loaded             bool
	spectral, anyImage bool
	blockGrads         [2][]float64
}

// newDeviceStep returns the device evaluator of m on o, or an error if a
// term or o has no device path, or the device cannot hold the buffers.
func newDeviceStep(m param.Method, o *problem.Objective, ops gpu.Ops) (ev *deviceStep, err error) {
	kinds, small, err := deviceTerms(m)
	if err != nil {
		return nil, err
	}
	s := gpu.Batch{N: o.N, H: o.H, W: o.W}
	d := &deviceStep{ops: ops, s: s, kinds: kinds, small: small, signs: termSigns[:len(kinds)],
		coef: make([]float64, len(kinds))}
	defer func() {
		if err != nil {
			d.close()
			ev = nil
		}
	}()
	if d.obj, err = ondevice.NewObjective(ops, o, o.N); err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	if err = d.obj.SetData(o.Y); err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	n, hw, sl := s.Len(), o.H*o.W, s.SpectrumLen()
	for _, b := range []*gpu.Buffer{&d.x, &d.xPlus, &d.r, &d.tmp} {
		if *b, err = d.alloc(n); err != nil {
			return nil, err
		}
	}
	gimg := 0
	for i, k := range kinds {
		v, err := d.alloc(n)
		if err != nil {
			return nil, err
		}
		var spec, theta gpu.Buffer
		switch k {
		case devicePointwise:
			theta, err = d.alloc(hw)
			gimg = max(gimg, hw)
		case deviceSmall:
			theta, err = d.alloc(small[i].K * small[i].K)
			gimg = max(gimg, small[i].K*small[i].K)
		case deviceSpectral:
			d.spectral = true
			if spec, err = d.alloc(o.N * sl); err == nil {
				theta, err = d.alloc(sl)
			}
		}
		if err != nil {
			return nil, err
		}
		d.vs, d.specs, d.thetas = append(d.vs, v), append(d.specs, spec), append(d.thetas, theta)
	}
	if gimg > 0 {
		d.anyImage = true
		if d.gImg, err = d.alloc(gimg); err != nil {
			return nil, err
		}
	}
	if d.spectral {
		for _, b := range []*gpu.Buffer{&d.acc, &d.rSpec} {
			if *b, err = d.alloc(o.N * sl); err != nil {
				return nil, err
			}
		}
		if d.gSpec, err = d.alloc(sl); err != nil {
			return nil, err
		}
		d.plan64 = kernels.NewFFT2T[float64](o.H, o.W)
		d.spec64 = make([]kernels.Complex[float64], sl/2)
		d.img64 = make([]float64, hw)
	}
	return d, nil
}

func (d *deviceStep) alloc(n int) (gpu.Buffer, error) {
	b, err := d.ops.Alloc(n)
	if err != nil {
		return nil, fmt.Errorf("step loss: allocate %d values on %s: %w", n, d.ops.Name(), err)
	}
	d.bufs = append(d.bufs, b)
	return b, nil
}

// kind implements stepEvaluator.
func (d *deviceStep) kind() string { return "device" }

// close implements stepEvaluator.
func (d *deviceStep) close() error {
	if d.obj != nil {
		d.obj.Close()
		d.obj = nil
	}
	for _, b := range d.bufs {
		d.ops.Free(b)
	}
	d.bufs = nil
	return nil
}

// bytes implements stepEvaluator: the device buffers.
func (d *deviceStep) bytes() int64 {
	var t int64
	for _, b := range d.bufs {
		t += int64(b.Len())
	}
	if d.obj != nil {
		t += d.obj.Bytes() / int64(d.ops.ValueSize())
	}
	return t*int64(d.ops.ValueSize()) + 8*int64(len(d.host)+len(d.img64)+2*len(d.spec64))
}

// setStep implements stepEvaluator.
func (d *deviceStep) setStep(x, g, p []float64) ([]param.Reduction, error) {
	d.loaded = false
	if err := d.ops.CopyIn(d.x, x); err != nil {
		return nil, fmt.Errorf("step loss: copy x to %s: %w", d.ops.Name(), err)
	}
	for i, k := range d.kinds {
		v := g
		if i == 1 {
			v = p
		}
		if err := d.ops.CopyIn(d.vs[i], v); err != nil {
			return nil, fmt.Errorf("step loss: copy term %d's operand to %s: %w", i, d.ops.Name(), err)
		}
		if k == deviceSpectral {
			if err := d.ops.RFFT2(d.specs[i], d.vs[i], d.s); err != nil {
				return nil, fmt.Errorf("step loss: %w", err)
			}
		}
	}
	d.loaded = true
	return nil, nil
}

// setParams copies the parameters of every term to the device.
func (d *deviceStep) setParams(params [][]float64) error {
	if !d.loaded {
		return errors.New("step loss: SetStep was not called")
	}
	hw := d.s.H * d.s.W
	for i, k := range d.kinds {
		th := params[i]
		want := 1
		switch k {
		case devicePointwise, deviceSpectral:
			want = hw
		case deviceSmall:
			want = d.small[i].K * d.small[i].K
		}
		if len(th) != want {
			return fmt.Errorf("step loss: term %d has %d parameters, want %d", i, len(th), want)
		}
		switch k {
		case deviceScalar:
			d.coef[i] = d.signs[i] * th[0]
		case devicePointwise, deviceSmall:
			if err := d.ops.CopyIn(d.thetas[i], th); err != nil {
				return fmt.Errorf("step loss: copy term %d's parameters to %s: %w", i, d.ops.Name(), err)
			}
		case deviceSpectral:
			d.plan64.Forward(d.spec64, th)
			c := d.signs[i]
			d.host = growFloats(d.host, 2*len(d.spec64))
			for q, t := range d.spec64 {
				d.host[2*q], d.host[2*q+1] = c*t.Re, c*t.Im
			}
			if err := d.ops.CopyIn(d.thetas[i], d.host); err != nil {
				return fmt.Errorf("step loss: copy term %d's spectrum to %s: %w", i, d.ops.Name(), err)
			}
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
	for i, k := range d.kinds {
		var err error
		switch k {
		case deviceScalar:
			err = o.Axpby(d.xPlus, d.coef[i], d.vs[i], 1)
		case devicePointwise:
			err = o.MulAdd(d.xPlus, d.thetas[i], d.vs[i], s, d.signs[i])
		case deviceSmall:
			if err = o.Conv2D(d.tmp, d.vs[i], d.thetas[i], s, d.small[i].K, d.small[i].Boundary); err == nil {
				err = o.Axpby(d.xPlus, d.signs[i], d.tmp, 1)
			}
		case deviceSpectral:
			err = o.SpectralMulAdd(d.acc, d.thetas[i], d.specs[i], s)
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
// gradient c_i·(adjoint of term i at r), c_i = sign_i/N.
func (d *deviceStep) adjoints(grads [][]float64) error {
	o, s := d.ops, d.s
	inv := 1 / float64(s.N)
	rSpec := false
	for i, k := range d.kinds {
		if grads[i] == nil {
			continue
		}
		c := d.signs[i] * inv
		switch k {
		case deviceScalar:
			v, err := o.Dot(d.r, d.vs[i])
			if err != nil {
				return err
			}
			grads[i][0] += c * v
			continue
		case devicePointwise:
			if err := o.ProductSum(d.gImg, d.r, d.vs[i], s); err != nil {
				return err
			}
		case deviceSmall:
			if err := o.Conv2DAdjointKernel(d.gImg, d.vs[i], d.r, s, d.small[i].K, d.small[i].Boundary); err != nil {
				return err
			}
		case deviceSpectral:
			if !rSpec {
				if err := o.RFFT2(d.rSpec, d.r, s); err != nil {
					return err
				}
				rSpec = true
			}
			if err := o.SpectralConjSum(d.gSpec, d.specs[i], d.rSpec, s); err != nil {
				return err
			}
			d.host = growFloats(d.host, d.gSpec.Len())
			if err := o.CopyOut(d.host, d.gSpec); err != nil {
				return err
			}
			copy(d.spec64, kernels.ComplexView(d.host))
			d.plan64.Inverse(d.img64, d.spec64)
			for j, v := range d.img64 {
				grads[i][j] += c * v
			}
			continue
		}
		// PP and PC-k: the gradient image is in gImg.
		d.host = growFloats(d.host, len(grads[i]))
		if err := o.CopyOut(d.host, d.gImg); err != nil {
			return err
		}
		for j, v := range d.host {
			grads[i][j] += c * v
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

// eval implements stepEvaluator.
func (d *deviceStep) eval(params, grads [][]float64) (float64, error) {
	return d.evaluate(params, grads)
}

// evalBlock implements stepEvaluator: the other term's adjoint is not
// computed.
func (d *deviceStep) evalBlock(b int, params [][]float64, grad []float64) (float64, error) {
	if b < 0 || b >= len(params) {
		return 0, fmt.Errorf("step loss: no term %d", b)
	}
	grads := d.blockGrads[:len(params)]
	clear(grads)
	grads[b] = grad
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

// DeviceKind is the kind of a device, as recorded in manifests and given to
// --device: "host" for the CPU device used through its array operations,
// otherwise its name up to the first ':' or space ("host32", "cuda" for
// "cuda:0 (NVIDIA H100)").
func DeviceKind(d gpu.Device) string {
	if _, ok := d.(*gpu.HostDevice); ok {
		return gpu.Host
	}
	name := d.Name()
	if i := strings.IndexAny(name, ": "); i >= 0 {
		return name[:i]
	}
	return name
}
