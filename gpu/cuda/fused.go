//go:build l2ocuda

package cuda

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/gpu/cufft"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// The fused operations of gpu.Ops: each queues fewer device operations
// than the sequence it replaces (at these sizes a kernel's cost is its
// launch, not its work). Signs and scales ride in the kernels next to
// them; cuFFT's inverse transforms are unnormalised, their 1/(H·W) folded
// into the kernel before or after.

// SpectralMulSum implements gpu.Ops: one l2o_spectral_mul_sum for up to two
// products (the learned update's G and H).
func (d *Device) SpectralMulSum(dst gpu.Buffer, s gpu.Batch, ps ...gpu.SpectralProduct) error {
	const op = "spectral mul sum"
	if err := batchCheck(op, s); err != nil {
		return err
	}
	if len(ps) > 2 {
		return fmt.Errorf("cuda: %s: %d products, at most 2", op, len(ps))
	}
	sl := s.SpectrumLen()
	bs, err := d.buffers(op, dst, s.N*sl)
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		return d.Zero(dst)
	}
	args := []arg{ptrArg(bs[0])}
	for j := range 2 {
		if j >= len(ps) {
			args = append(args, 0, 0, f32Arg(0))
			continue
		}
		p := ps[j]
		pb, err := d.buffers(op, p.T, sl, p.V, s.N*sl)
		if err != nil {
			return err
		}
		c := 1.0
		if p.Scaled {
			c = p.C
		}
		args = append(args, ptrArg(pb[0]), ptrArg(pb[1]), f32Arg(c))
	}
	total := s.N * sl / 2
	return d.launchEach("l2o_spectral_mul_sum", total, append(args, intArg(sl/2), intArg(total))...)
}

// AddIRFFT2 implements gpu.Ops: cuFFT's C2R into tmp, then one
// l2o_add_scaled (dst = x + tmp/(H·W)).
func (d *Device) AddIRFFT2(dst, x, spec, tmp gpu.Buffer, s gpu.Batch) error {
	const op = "add irfft2"
	if err := batchCheck(op, s); err != nil {
		return err
	}
	bs, err := d.buffers(op, dst, s.Len(), x, s.Len(), spec, s.N*s.SpectrumLen(), tmp, s.Len())
	if err != nil {
		return err
	}
	if err := d.fft(op, s, cufft.Inverse, bs[2], bs[3]); err != nil {
		return err
	}
	return d.launchEach("l2o_add_scaled", s.Len(), ptrArg(bs[0]), ptrArg(bs[1]), f32Arg(1/float64(s.H*s.W)), ptrArg(bs[3]), intArg(s.Len()))
}

// ConjSumIRFFT2 implements gpu.Ops: l2o_spectral_conj_sum scaled by
// 1/(H·W), then cuFFT's C2R.
func (d *Device) ConjSumIRFFT2(dst, v, z, spec gpu.Buffer, s gpu.Batch) error {
	const op = "conj sum irfft2"
	if err := batchCheck(op, s); err != nil {
		return err
	}
	sl := s.SpectrumLen()
	bs, err := d.buffers(op, dst, s.H*s.W, v, s.N*sl, z, s.N*sl, spec, sl)
	if err != nil {
		return err
	}
	if err := d.conjSum(bs[3], bs[1], bs[2], s, 1/float64(s.H*s.W)); err != nil {
		return err
	}
	return d.fft(op, gpu.Batch{N: 1, H: s.H, W: s.W}, cufft.Inverse, bs[3], bs[0])
}

// Conv2DResidual implements gpu.Ops: the convolution's kernel subtracts y.
func (d *Device) Conv2DResidual(r, x, k, y gpu.Buffer, s gpu.Batch, K int, boundary kernels.Boundary) error {
	c, bs, err := d.convBuffers("conv2d residual", s, K, boundary, r, x, k)
	if err != nil {
		return err
	}
	sub, err := d.buffers("conv2d residual", y, -1)
	if err != nil {
		return err
	}
	return d.conv2D(bs[0], bs[1], bs[2], sub[0], c)
}

// GradAdjointAxpby implements gpu.Ops: one l2o_grad_adjoint.
func (d *Device) GradAdjointAxpby(x gpu.Buffer, a float64, src gpu.Buffer, b float64, s gpu.Batch) error {
	bs, err := d.buffers("grad adjoint axpby", x, -1, src, -1)
	if err != nil {
		return err
	}
	return d.gradAdjoint(bs[0], bs[1], s.N, s.H, s.W, a, b)
}

// SetDot implements gpu.Ops: AddDot's kernel, setting the sum.
func (d *Device) SetDot(r gpu.Buffer, i int, c float64, x, y gpu.Buffer) error {
	dst, err := d.sumArg(r, i, "set dot")
	if err != nil {
		return err
	}
	bs, err := d.buffers("set dot", x, -1, y, -1)
	if err != nil {
		return err
	}
	if bs[0].n != bs[1].n {
		return fmt.Errorf("cuda: set dot: buffers of %d and %d values", bs[0].n, bs[1].n)
	}
	return d.reduceInto(dst, c, true, "l2o_dot_reduce", bs[0].n, ptrArg(bs[0]), ptrArg(bs[1]))
}

// AddHuberTV implements gpu.Ops: one l2o_huber_tv_reduce computes the
// differences, adds the value to the sum and writes the derivative (r nil:
// Grad and HuberDerivative).
func (d *Device) AddHuberTV(r gpu.Buffer, i int, c float64, g, x gpu.Buffer, s gpu.Batch, eps float64) error {
	const op = "add huber tv"
	if r == nil {
		if err := d.Grad(g, x, s); err != nil {
			return err
		}
		return d.HuberDerivative(g, g, s, eps)
	}
	dst, err := d.sumArg(r, i, op)
	if err != nil {
		return err
	}
	n, hw := s.N, s.H*s.W
	if err := huberCheck(op, n, hw, eps); err != nil {
		return err
	}
	if err := imageCheck(op, s.N, s.H, s.W); err != nil {
		return err
	}
	bs, err := d.buffers(op, g, 2*n*hw, x, n*hw)
	if err != nil {
		return err
	}
	return d.reduceInto(dst, c, false, "l2o_huber_tv_reduce", n*hw, ptrArg(bs[0]), ptrArg(bs[1]), intArg(s.H), intArg(s.W), f32Arg(eps))
}
