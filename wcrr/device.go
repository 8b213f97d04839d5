package wcrr

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// DevicePotentials are the channel potentials of the regularizer,
//
//	ψ_c(z) = (μ+1)·Huber(z; h_c) − Huber(z; T_c),
//
// on the buffers of a device, channel-wise on responses [n][C][hw]: the
// pointwise part of the regularizer when its objective runs on a device
// (its convolutions are mconv.DeviceConv).
type DevicePotentials interface {
	// Psi writes out = ψ_c(z) elementwise.
	Psi(out, z gpu.Buffer, hw int) error
	// PsiPrime writes out = ψ_c'(z) = (μ+1)·clip(z, ±h_c) − clip(z, ±T_c)
	// (out may be z).
	PsiPrime(out, z gpu.Buffer, hw int) error
	// HessVec writes out = ψ_c”(z)·u elementwise, ψ_c” ∈ {μ, −1, 0} (out
	// may be u).
	HessVec(out, z, u gpu.Buffer, hw int) error
	// Close releases what the potentials hold on the device.
	Close()
}

// NewDevicePotentials returns the potentials with thresholds h and t (one
// per channel, 0 < h_c < T_c) and slope mu on device d: on the host devices
// (gpu.OnHost: gpu.CPU, gpu.Host32 and devices that embed them) the
// formulas of Model.Psi and its derivatives on the buffers' values, in
// float64 and rounded to the buffers' precision; on a device that runs
// kernels (gpu.Launcher: the CUDA device) the l2o_ridge_* kernels of package
// gpu/cudasrc, with the thresholds uploaded (Close frees them).
func NewDevicePotentials(d gpu.Device, h, t []float64, mu float64) (DevicePotentials, error) {
	if err := CheckThresholds(h, t, mu); err != nil {
		return nil, err
	}
	h, t = append([]float64(nil), h...), append([]float64(nil), t...)
	switch d := d.(type) {
	case gpu.OnHost[float64]:
		return &hostPotentials[float64]{name: d.Name(), h: h, t: t, mu: mu}, nil
	case gpu.OnHost[float32]:
		return &hostPotentials[float32]{name: d.Name(), h: h, t: t, mu: mu}, nil
	case gpu.Launcher:
		return newKernelPotentials(d, h, t, mu)
	}
	return nil, fmt.Errorf("wcrr: device %s has no ridge potentials (it is neither a host device nor a gpu.Launcher); use --device cpu", d.Name())
}

// CheckThresholds checks the arguments of NewDevicePotentials: one inner
// and one outer threshold per channel, 0 < h_c < T_c < ∞, and a finite
// slope μ ≥ 0.
func CheckThresholds(h, t []float64, mu float64) error {
	if len(h) == 0 || len(h) != len(t) {
		return fmt.Errorf("wcrr: ridge potentials: %d inner and %d outer thresholds: want one of each per channel", len(h), len(t))
	}
	for c := range h {
		if !(h[c] > 0) || !(t[c] > h[c]) || math.IsInf(t[c], 0) {
			return fmt.Errorf("wcrr: ridge potentials: channel %d: thresholds h = %g, T = %g must satisfy 0 < h < T < ∞", c, h[c], t[c])
		}
	}
	if !(mu >= 0) || math.IsInf(mu, 0) {
		return fmt.Errorf("wcrr: ridge potentials: slope μ = %g must be finite and ≥ 0", mu)
	}
	return nil
}

// checkPlanes checks that total values are whole [C][hw] images.
func checkPlanes(where string, total, c, hw int) error {
	if hw < 1 || total%(c*hw) != 0 {
		return fmt.Errorf("%s: %d values are not a whole number of [%d channels × %d values] images", where, total, c, hw)
	}
	return nil
}

// hostPotentials are the potentials of a host device whose values are F.
type hostPotentials[F kernels.Float] struct {
	name string
	h, t []float64
	mu   float64
}

// operands returns the values of the buffers (equal lengths, a whole
// number of [C][hw] images).
func (p *hostPotentials[F]) operands(op string, hw int, bufs ...gpu.Buffer) ([][]F, error) {
	where := fmt.Sprintf("wcrr: %s %s", p.name, op)
	vals := make([][]F, len(bufs))
	for k, b := range bufs {
		n := -1
		if k > 0 {
			n = len(vals[0])
		}
		v, err := gpu.HostValues[F](b, n, fmt.Sprintf("%s: operand %d", where, k+1))
		if err != nil {
			return nil, err
		}
		vals[k] = v
	}
	return vals, checkPlanes(where, len(vals[0]), len(p.h), hw)
}

// channels calls f for every plane of hw values with its channel's
// thresholds and the plane's range [lo, hi).
func (p *hostPotentials[F]) channels(n, hw int, f func(lo, hi int, h, t float64)) {
	c := len(p.h)
	for off := 0; off < n; off += hw {
		ch := (off / hw) % c
		f(off, off+hw, p.h[ch], p.t[ch])
	}
}

// Psi implements DevicePotentials.
func (p *hostPotentials[F]) Psi(out, z gpu.Buffer, hw int) error {
	v, err := p.operands("ridge psi", hw, out, z)
	if err != nil {
		return err
	}
	o, zv := v[0], v[1]
	p.channels(len(zv), hw, func(lo, hi int, h, t float64) {
		for i := lo; i < hi; i++ {
			o[i] = F(psi(float64(zv[i]), h, t, p.mu+1))
		}
	})
	return nil
}

// PsiPrime implements DevicePotentials.
func (p *hostPotentials[F]) PsiPrime(out, z gpu.Buffer, hw int) error {
	v, err := p.operands("ridge psi'", hw, out, z)
	if err != nil {
		return err
	}
	o, zv := v[0], v[1]
	p.channels(len(zv), hw, func(lo, hi int, h, t float64) {
		for i := lo; i < hi; i++ {
			o[i] = F(psiPrime(float64(zv[i]), h, t, p.mu+1))
		}
	})
	return nil
}

// HessVec implements DevicePotentials.
func (p *hostPotentials[F]) HessVec(out, z, u gpu.Buffer, hw int) error {
	v, err := p.operands("ridge hessvec", hw, out, z, u)
	if err != nil {
		return err
	}
	o, zv, uv := v[0], v[1], v[2]
	p.channels(len(zv), hw, func(lo, hi int, h, t float64) {
		for i := lo; i < hi; i++ {
			o[i] = F(psiSecond(float64(zv[i]), h, t, p.mu)) * uv[i]
		}
	})
	return nil
}

// Close implements DevicePotentials: host potentials hold only host memory.
func (p *hostPotentials[F]) Close() {}

// kernelPotentials are the potentials of a device that runs the
// l2o_ridge_* kernels, with the thresholds on the device.
type kernelPotentials struct {
	d    gpu.Launcher
	h, t gpu.Buffer // [C] thresholds h_c < T_c
	c    int
	mu   float64
}

func newKernelPotentials(d gpu.Launcher, h, t []float64, mu float64) (*kernelPotentials, error) {
	p := &kernelPotentials{d: d, c: len(h), mu: mu}
	for _, u := range []struct {
		dst *gpu.Buffer
		v   []float64
	}{{&p.h, h}, {&p.t, t}} {
		b, err := d.Alloc(len(u.v))
		if err == nil {
			*u.dst = b
			err = d.CopyIn(b, u.v)
		}
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("wcrr: %s ridge thresholds: %w", d.Name(), err)
		}
	}
	return p, nil
}

// run checks the operands (equal lengths, whole [C][hw] images) and runs
// kernel name on them, one thread per value.
func (p *kernelPotentials) run(op, name string, hw int, bufs ...gpu.Buffer) error {
	where := fmt.Sprintf("wcrr: %s %s", p.d.Name(), op)
	if p.h == nil {
		return fmt.Errorf("%s: the potentials were closed", where)
	}
	if bufs[len(bufs)-1] == nil {
		return fmt.Errorf("%s: operand %d is nil", where, len(bufs))
	}
	n := bufs[len(bufs)-1].Len()
	args := make([]gpu.KernelArg, 0, len(bufs)+6)
	for k, b := range bufs {
		if err := gpu.CheckOperands(where, gpu.Operand{Name: fmt.Sprintf("operand %d", k+1), Buf: b, Len: n}); err != nil {
			return err
		}
		args = append(args, gpu.BufferArg(b))
	}
	if err := checkPlanes(where, n, p.c, hw); err != nil {
		return err
	}
	args = append(args, gpu.BufferArg(p.h), gpu.BufferArg(p.t), gpu.Float32Arg(p.mu), gpu.IntArg(p.c), gpu.IntArg(hw), gpu.IntArg(n))
	return p.d.LaunchEach(name, n, args...)
}

// Psi implements DevicePotentials.
func (p *kernelPotentials) Psi(out, z gpu.Buffer, hw int) error {
	return p.run("ridge psi", "l2o_ridge_psi", hw, out, z)
}

// PsiPrime implements DevicePotentials.
func (p *kernelPotentials) PsiPrime(out, z gpu.Buffer, hw int) error {
	return p.run("ridge psi'", "l2o_ridge_psi_prime", hw, out, z)
}

// HessVec implements DevicePotentials.
func (p *kernelPotentials) HessVec(out, z, u gpu.Buffer, hw int) error {
	return p.run("ridge hessvec", "l2o_ridge_hessvec", hw, out, z, u)
}

// Close implements DevicePotentials: it frees the thresholds.
func (p *kernelPotentials) Close() {
	for _, b := range []*gpu.Buffer{&p.h, &p.t} {
		if *b != nil {
			p.d.Free(*b)
			*b = nil
		}
	}
}
