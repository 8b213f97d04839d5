//go:build l2ocuda

package cuda

import (
	"fmt"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/gpu/cudasrc"
	"github.com/greedyl2o/greedyl2o/gpu/cufft"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// The CUDA device implements the array operations of package gpu in
// float32 (reductions in double); RFFT2 and IRFFT2 run cuFFT (package
// gpu/cufft) with one plan per batch shape and direction, kept for the life
// of the device; their work areas are allocated through the device (and
// counted by its counters) and live as long as the device.
var _ gpu.Ops = (*Device)(nil)

// ValueSize implements gpu.Ops: 4 bytes (float32).
func (d *Device) ValueSize() int { return BytesPerFloat32 }

// buffers converts gpu.Buffers of d with the lengths given after each:
// buffers("op", b1, n1, b2, n2, …); a length of -1 accepts any.
func (d *Device) buffers(op string, pairs ...any) ([]*Buffer, error) {
	out := make([]*Buffer, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		gb, _ := pairs[i].(gpu.Buffer) // nil stays nil: d.buffer rejects it
		b, err := d.buffer(gb, op)
		if err != nil {
			return nil, err
		}
		if want := pairs[i+1].(int); want >= 0 && b.n != want {
			return nil, fmt.Errorf("cuda: %s: operand %d has %d values, want %d", op, i/2+1, b.n, want)
		}
		out = append(out, b)
	}
	return out, nil
}

func batchCheck(op string, s gpu.Batch) error {
	if s.N < 1 || s.H < 1 || s.W < 1 {
		return fmt.Errorf("cuda: %s: batch %d×%d×%d must have at least one image of at least 1×1", op, s.N, s.H, s.W)
	}
	return nil
}

// Zero implements gpu.Ops.
func (d *Device) Zero(b gpu.Buffer) error {
	bs, err := d.buffers("zero", b, -1)
	if err != nil {
		return err
	}
	if bs[0].bytes == 0 {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.memsetLocked(bs[0].ptr, bs[0].bytes); err != nil {
		return d.fail(fmt.Sprintf("zero %d bytes", bs[0].bytes), err)
	}
	return nil
}

// Copy implements gpu.Ops.
func (d *Device) Copy(dst, src gpu.Buffer) error {
	bs, err := d.buffers("copy", dst, -1, src, -1)
	if err != nil {
		return err
	}
	if bs[0].n != bs[1].n {
		return fmt.Errorf("cuda: copy: %d values into a buffer of %d", bs[1].n, bs[0].n)
	}
	if bs[0].bytes == 0 {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.copyLocked(bs[0].ptr, bs[1].ptr, bs[0].bytes); err != nil {
		return d.fail(fmt.Sprintf("copy %d bytes on the device", bs[0].bytes), err)
	}
	return nil
}

// Axpby implements gpu.Ops.
func (d *Device) Axpby(y gpu.Buffer, a float64, x gpu.Buffer, b float64) error {
	bs, err := d.buffers("axpby", y, -1, x, -1)
	if err != nil {
		return err
	}
	return d.axpby(bs[0], a, bs[1], b)
}

// Dot implements gpu.Ops.
func (d *Device) Dot(x, y gpu.Buffer) (float64, error) {
	bs, err := d.buffers("dot", x, -1, y, -1)
	if err != nil {
		return 0, err
	}
	return d.dot(bs[0], bs[1])
}

func (d *Device) convBuffers(op string, s gpu.Batch, K int, boundary kernels.Boundary, a, b, k gpu.Buffer) (kernels.Conv, []*Buffer, error) {
	c := kernels.Conv{N: s.N, H: s.H, W: s.W, K: K, Boundary: boundary}
	if err := batchCheck(op, s); err != nil {
		return c, nil, err
	}
	bs, err := d.buffers(op, a, -1, b, -1, k, -1)
	return c, bs, err
}

// Conv2D implements gpu.Ops.
func (d *Device) Conv2D(y, x, k gpu.Buffer, s gpu.Batch, K int, boundary kernels.Boundary) error {
	c, bs, err := d.convBuffers("conv2d", s, K, boundary, y, x, k)
	if err != nil {
		return err
	}
	return d.conv2D(bs[0], bs[1], bs[2], nil, c)
}

// Conv2DAdjointImage implements gpu.Ops.
func (d *Device) Conv2DAdjointImage(x, y, k gpu.Buffer, s gpu.Batch, K int, boundary kernels.Boundary) error {
	c, bs, err := d.convBuffers("conv2d adjoint image", s, K, boundary, x, y, k)
	if err != nil {
		return err
	}
	return d.conv2DAdjointImage(bs[0], bs[1], bs[2], c)
}

// Conv2DAdjointKernel implements gpu.Ops.
func (d *Device) Conv2DAdjointKernel(g, x, y gpu.Buffer, s gpu.Batch, K int, boundary kernels.Boundary) error {
	c, bs, err := d.convBuffers("conv2d adjoint kernel", s, K, boundary, g, x, y)
	if err != nil {
		return err
	}
	return d.conv2DAdjointKernel(bs[0], bs[1], bs[2], c)
}

// Grad implements gpu.Ops.
func (d *Device) Grad(dst, x gpu.Buffer, s gpu.Batch) error {
	bs, err := d.buffers("grad", dst, -1, x, -1)
	if err != nil {
		return err
	}
	return d.grad(bs[0], bs[1], s.N, s.H, s.W)
}

// GradAdjoint implements gpu.Ops.
func (d *Device) GradAdjoint(x, src gpu.Buffer, s gpu.Batch) error {
	bs, err := d.buffers("grad adjoint", x, -1, src, -1)
	if err != nil {
		return err
	}
	return d.gradAdjoint(bs[0], bs[1], s.N, s.H, s.W, 1, 0)
}

// HuberValue implements gpu.Ops.
func (d *Device) HuberValue(vals []float64, f gpu.Buffer, s gpu.Batch, eps float64) error {
	bs, err := d.buffers("huber value", f, -1)
	if err != nil {
		return err
	}
	return d.huberValue(vals, bs[0], s.N, s.H*s.W, eps)
}

// HuberDerivative implements gpu.Ops.
func (d *Device) HuberDerivative(g, f gpu.Buffer, s gpu.Batch, eps float64) error {
	bs, err := d.buffers("huber derivative", g, -1, f, -1)
	if err != nil {
		return err
	}
	return d.huberDerivative(bs[0], bs[1], s.N, s.H*s.W, eps)
}

// HuberHessVec implements gpu.Ops.
func (d *Device) HuberHessVec(out, f, u gpu.Buffer, s gpu.Batch, eps float64) error {
	bs, err := d.buffers("huber hessvec", out, -1, f, -1, u, -1)
	if err != nil {
		return err
	}
	return d.huberHessVec(bs[0], bs[1], bs[2], s.N, s.H*s.W, eps)
}

// MulAdd implements gpu.Ops.
func (d *Device) MulAdd(dst, t, v gpu.Buffer, s gpu.Batch, c float64) error {
	if err := batchCheck("mul add", s); err != nil {
		return err
	}
	hw := s.H * s.W
	bs, err := d.buffers("mul add", dst, s.Len(), t, hw, v, s.Len())
	if err != nil {
		return err
	}
	return d.launchEach("l2o_mul_add", s.Len(), ptrArg(bs[0]), ptrArg(bs[1]), ptrArg(bs[2]), f32Arg(c), intArg(hw), intArg(s.Len()))
}

// ProductSum implements gpu.Ops.
func (d *Device) ProductSum(dst, r, v gpu.Buffer, s gpu.Batch) error {
	if err := batchCheck("product sum", s); err != nil {
		return err
	}
	hw := s.H * s.W
	bs, err := d.buffers("product sum", dst, hw, r, s.Len(), v, s.Len())
	if err != nil {
		return err
	}
	return d.launchEach("l2o_product_sum", hw, ptrArg(bs[0]), ptrArg(bs[1]), ptrArg(bs[2]), intArg(s.N), intArg(hw))
}

// planKey identifies a cuFFT plan.
type planKey struct {
	s   gpu.Batch
	dir cufft.Direction
}

// plan returns the cuFFT plan for s and dir, made on first use. d.mu is held.
func (d *Device) plan(s gpu.Batch, dir cufft.Direction) (*cufft.Plan, error) {
	key := planKey{s, dir}
	if p := d.plans[key]; p != nil {
		return p, nil
	}
	var p *cufft.Plan
	err := d.run(func() (err error) {
		p, err = cufft.NewPlan(s.N, s.H, s.W, dir)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	// The work area comes from the device's allocator, so its counters (the
	// memory benchmark's meter) include it; it lives as long as the plan.
	if p.WorkSize > 0 {
		ptr, err := d.allocLocked(p.WorkSize)
		if err != nil {
			_ = d.run(p.Destroy)
			return nil, fmt.Errorf("cuda: cuFFT work area of %d bytes: %w", p.WorkSize, err)
		}
		if err := d.run(func() error { return p.SetWorkArea(uintptr(ptr)) }); err != nil {
			d.freeLocked(ptr, p.WorkSize)
			_ = d.run(p.Destroy)
			return nil, fmt.Errorf("cuda: %w", err)
		}
	}
	if d.plans == nil {
		d.plans = map[planKey]*cufft.Plan{}
	}
	d.plans[key] = p
	return p, nil
}

// fft queues the plan for s and dir from in to out (and waits for it when
// d.syncEach).
func (d *Device) fft(op string, s gpu.Batch, dir cufft.Direction, in, out *Buffer) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, err := d.plan(s, dir)
	if err != nil {
		return err
	}
	if on := d.capturing; d.planOnStream[p] != on {
		var stream uintptr
		if on {
			stream = uintptr(unsafe.Pointer(d.stream.C()))
		}
		if err := d.run(func() error { return p.SetStream(stream) }); err != nil {
			return d.fail(op, err)
		}
		if d.planOnStream == nil {
			d.planOnStream = map[*cufft.Plan]bool{}
		}
		d.planOnStream[p] = on
	}
	if d.capturing {
		d.captured++
	}
	if err := d.run(func() error { return p.Exec(uintptr(in.ptr), uintptr(out.ptr)) }); err != nil {
		return d.fail(fmt.Sprintf("%s (%d transforms of %d×%d)", op, s.N, s.H, s.W), err)
	}
	if err := d.waitIfSyncEach(); err != nil {
		return d.fail(op, err)
	}
	return nil
}

// RFFT2 implements gpu.Ops with cuFFT (R2C).
func (d *Device) RFFT2(spec, x gpu.Buffer, s gpu.Batch) error {
	if err := batchCheck("rfft2", s); err != nil {
		return err
	}
	bs, err := d.buffers("rfft2", spec, s.N*s.SpectrumLen(), x, s.Len())
	if err != nil {
		return err
	}
	return d.fft("rfft2", s, cufft.Forward, bs[1], bs[0])
}

// IRFFT2 implements gpu.Ops with cuFFT (C2R, which overwrites spec) and a
// scaling by 1/(H·W).
func (d *Device) IRFFT2(x, spec gpu.Buffer, s gpu.Batch) error {
	if err := batchCheck("irfft2", s); err != nil {
		return err
	}
	bs, err := d.buffers("irfft2", x, s.Len(), spec, s.N*s.SpectrumLen())
	if err != nil {
		return err
	}
	if err := d.fft("irfft2", s, cufft.Inverse, bs[1], bs[0]); err != nil {
		return err
	}
	return d.launchEach("l2o_scale", s.Len(), ptrArg(bs[0]), f32Arg(1/float64(s.H*s.W)), intArg(s.Len()))
}

// SpectralMulAdd implements gpu.Ops.
func (d *Device) SpectralMulAdd(dst, t, v gpu.Buffer, s gpu.Batch) error {
	if err := batchCheck("spectral mul add", s); err != nil {
		return err
	}
	sl := s.SpectrumLen()
	bs, err := d.buffers("spectral mul add", dst, s.N*sl, t, sl, v, s.N*sl)
	if err != nil {
		return err
	}
	total := s.N * sl / 2
	return d.launchEach("l2o_spectral_mul_add", total, ptrArg(bs[0]), ptrArg(bs[1]), ptrArg(bs[2]), intArg(sl/2), intArg(total))
}

// SpectralConjSum implements gpu.Ops.
func (d *Device) SpectralConjSum(dst, v, z gpu.Buffer, s gpu.Batch) error {
	if err := batchCheck("spectral conj sum", s); err != nil {
		return err
	}
	sl := s.SpectrumLen()
	bs, err := d.buffers("spectral conj sum", dst, sl, v, s.N*sl, z, s.N*sl)
	if err != nil {
		return err
	}
	return d.conjSum(bs[0], bs[1], bs[2], s, 1)
}

// conjSum queues l2o_spectral_conj_sum: dst = scale·Σ_n conj(v_n)·z_n.
func (d *Device) conjSum(dst, v, z *Buffer, s gpu.Batch, scale float64) error {
	sl := s.SpectrumLen()
	blocks := (sl/2 + cudasrc.ConjSumValues - 1) / cudasrc.ConjSumValues
	return d.launchBlocks("l2o_spectral_conj_sum", blocks, ptrArg(dst), ptrArg(v), ptrArg(z), intArg(s.N), intArg(sl/2), f64Arg(scale))
}
