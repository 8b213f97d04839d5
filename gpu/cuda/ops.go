//go:build l2ocuda

package cuda

import (
	"fmt"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/gpu/cudasrc"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// need checks that every buffer is live, belongs to d and has the length given
// after it: need("conv", "y", y, 10, "x", x, 10).
func (d *Device) need(op string, pairs ...any) error {
	for i := 0; i+2 < len(pairs); i += 3 {
		name, b, want := pairs[i].(string), pairs[i+1].(*Buffer), pairs[i+2].(int)
		if b == nil {
			return fmt.Errorf("cuda: %s: buffer %s is nil", op, name)
		}
		if b.dev != d || !b.live {
			return fmt.Errorf("cuda: %s: buffer %s is freed or belongs to another device", op, name)
		}
		if b.n != want {
			return fmt.Errorf("cuda: %s: buffer %s has %d values, want %d", op, name, b.n, want)
		}
	}
	return nil
}

func convCheck(op string, c kernels.Conv) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("cuda: %s: %w", op, err)
	}
	return nil
}

// Conv2D computes y = k ⋆ x − sub for an [N,H,W] batch (kernels.Conv.Apply;
// sub nil: nothing subtracted).
func (d *Device) conv2D(y, x, k, sub *Buffer, c kernels.Conv) error {
	if err := convCheck("conv2d", c); err != nil {
		return err
	}
	n := c.N * c.H * c.W
	if err := d.need("conv2d", "y", y, n, "x", x, n, "k", k, c.K*c.K); err != nil {
		return err
	}
	subArg := arg(0)
	if sub != nil {
		if err := d.need("conv2d", "the subtracted batch", sub, n); err != nil {
			return err
		}
		subArg = ptrArg(sub)
	}
	if c.K <= cudasrc.ConvMaxK {
		return d.launchBlocks("l2o_conv2d_tiled", convTiles(c), ptrArg(y), ptrArg(x), ptrArg(k), subArg,
			intArg(c.N), intArg(c.H), intArg(c.W), intArg(c.K), intArg(int(c.Boundary)))
	}
	return d.launchEach("l2o_conv2d", n, ptrArg(y), ptrArg(x), ptrArg(k), subArg,
		intArg(c.N), intArg(c.H), intArg(c.W), intArg(c.K), intArg(int(c.Boundary)))
}

// Conv2DAdjointImage computes x = Kᵀ y (kernels.Conv.AdjointImage).
func (d *Device) conv2DAdjointImage(x, y, k *Buffer, c kernels.Conv) error {
	if err := convCheck("conv2d adjoint image", c); err != nil {
		return err
	}
	n := c.N * c.H * c.W
	if err := d.need("conv2d adjoint image", "x", x, n, "y", y, n, "k", k, c.K*c.K); err != nil {
		return err
	}
	if c.Boundary == kernels.Zero && c.K <= cudasrc.ConvMaxK {
		return d.launchBlocks("l2o_conv2d_adjoint_image_tiled", convTiles(c), ptrArg(x), ptrArg(y), ptrArg(k),
			intArg(c.N), intArg(c.H), intArg(c.W), intArg(c.K))
	}
	return d.launchEach("l2o_conv2d_adjoint_image", n, ptrArg(x), ptrArg(y), ptrArg(k),
		intArg(c.N), intArg(c.H), intArg(c.W), intArg(c.K), intArg(int(c.Boundary)))
}

// convTiles is the number of blocks of the tiled convolutions: one a
// cudasrc.ConvTile² tile of one image (launch.ConvTiles).
func convTiles(c kernels.Conv) int {
	const t = cudasrc.ConvTile
	return c.N * ((c.H + t - 1) / t) * ((c.W + t - 1) / t)
}

// Conv2DAdjointKernel computes the kernel gradient g (kernels.Conv.AdjointKernel).
func (d *Device) conv2DAdjointKernel(g, x, y *Buffer, c kernels.Conv) error {
	if err := convCheck("conv2d adjoint kernel", c); err != nil {
		return err
	}
	n := c.N * c.H * c.W
	if err := d.need("conv2d adjoint kernel", "g", g, c.K*c.K, "x", x, n, "y", y, n); err != nil {
		return err
	}
	return d.launchBlocks("l2o_conv2d_adjoint_kernel", c.K*c.K, ptrArg(g), ptrArg(x), ptrArg(y),
		intArg(c.N), intArg(c.H), intArg(c.W), intArg(c.K), intArg(int(c.Boundary)))
}

func imageCheck(op string, n, h, w int) error {
	if n < 1 || h < 1 || w < 1 {
		return fmt.Errorf("cuda: %s: batch %d×%d×%d must be positive", op, n, h, w)
	}
	return nil
}

// Grad computes forward differences d ([N,2,H,W]) of x ([N,H,W]) (kernels.Grad).
func (d *Device) grad(dst, x *Buffer, n, h, w int) error {
	if err := imageCheck("grad", n, h, w); err != nil {
		return err
	}
	if err := d.need("grad", "d", dst, 2*n*h*w, "x", x, n*h*w); err != nil {
		return err
	}
	return d.launchEach("l2o_grad", n*h*w, ptrArg(dst), ptrArg(x), intArg(n), intArg(h), intArg(w))
}

// GradAdjoint computes x = a·Dᵀd + b·x (kernels.GradAdjoint; b = 0: x not
// read).
func (d *Device) gradAdjoint(x, src *Buffer, n, h, w int, a, b float64) error {
	if err := imageCheck("grad adjoint", n, h, w); err != nil {
		return err
	}
	if err := d.need("grad adjoint", "x", x, n*h*w, "d", src, 2*n*h*w); err != nil {
		return err
	}
	return d.launchEach("l2o_grad_adjoint", n*h*w, ptrArg(x), ptrArg(src), intArg(n), intArg(h), intArg(w), f32Arg(a), f32Arg(b))
}

func huberCheck(op string, n, hw int, eps float64) error {
	if n < 1 || hw < 1 {
		return fmt.Errorf("cuda: %s: %d images of %d pixels: sizes must be positive", op, n, hw)
	}
	if !(eps > 0) {
		return fmt.Errorf("cuda: %s: eps = %g, want a positive value", op, eps)
	}
	return nil
}

// HuberValue writes the isotropic Huber potential of every image of the field
// f ([N,2,HW]) into vals (length N) (kernels.Huber.Value).
func (d *Device) huberValue(vals []float64, f *Buffer, n, hw int, eps float64) error {
	if err := huberCheck("huber value", n, hw, eps); err != nil {
		return err
	}
	if len(vals) != n {
		return fmt.Errorf("cuda: huber value: %d outputs, want %d", len(vals), n)
	}
	if err := d.need("huber value", "field", f, 2*n*hw); err != nil {
		return err
	}
	d.scratchMu.Lock()
	defer d.scratchMu.Unlock()
	out, err := d.scratch(&d.dotsBuf, n, 8)
	if err != nil {
		return err
	}
	if err := d.launchBlocks("l2o_huber_value", n, ptrArg(out), ptrArg(f), intArg(n), intArg(hw), f32Arg(eps)); err != nil {
		return err
	}
	return d.copyOutRaw(unsafe.Pointer(&vals[0]), out.ptr, int64(n)*8)
}

// HuberDerivative writes g = f / max(|f|, ε) per pixel (kernels.Huber.Derivative).
func (d *Device) huberDerivative(g, f *Buffer, n, hw int, eps float64) error {
	if err := huberCheck("huber derivative", n, hw, eps); err != nil {
		return err
	}
	if err := d.need("huber derivative", "g", g, 2*n*hw, "field", f, 2*n*hw); err != nil {
		return err
	}
	return d.launchEach("l2o_huber_derivative", n*hw, ptrArg(g), ptrArg(f), intArg(n), intArg(hw), f32Arg(eps))
}

// HuberHessVec writes the Hessian of the potential at f applied to u
// (kernels.Huber.HessVec).
func (d *Device) huberHessVec(out, f, u *Buffer, n, hw int, eps float64) error {
	if err := huberCheck("huber hessvec", n, hw, eps); err != nil {
		return err
	}
	if err := d.need("huber hessvec", "out", out, 2*n*hw, "field", f, 2*n*hw, "u", u, 2*n*hw); err != nil {
		return err
	}
	return d.launchEach("l2o_huber_hessvec", n*hw, ptrArg(out), ptrArg(f), ptrArg(u), intArg(n), intArg(hw), f32Arg(eps))
}

// Axpy computes y += a·x.
func (d *Device) Axpy(y *Buffer, a float64, x *Buffer) error {
	if y == nil {
		return fmt.Errorf("cuda: axpy: y is nil")
	}
	if err := d.need("axpy", "y", y, y.n, "x", x, y.n); err != nil {
		return err
	}
	return d.launchEach("l2o_axpy", y.n, ptrArg(y), f32Arg(a), ptrArg(x), intArg(y.n))
}

// Axpby computes y = a·x + b·y.
func (d *Device) axpby(y *Buffer, a float64, x *Buffer, b float64) error {
	if y == nil {
		return fmt.Errorf("cuda: axpby: y is nil")
	}
	if err := d.need("axpby", "y", y, y.n, "x", x, y.n); err != nil {
		return err
	}
	return d.launchEach("l2o_axpby", y.n, ptrArg(y), f32Arg(a), ptrArg(x), f32Arg(b), intArg(y.n))
}

// reduceBlocks is the number of partial sums of Dot and Sum: fixed, so the
// summation order (and the result) does not depend on anything but n.
const reduceBlocks = 128

// The one-kernel reductions' last block adds one partial sum a thread.
var _ [cudasrc.BlockSize - reduceBlocks]struct{}

// reduce runs the one-kernel reduction name over n values (its inputs
// args) into the device's scratch double and reads it back.
func (d *Device) reduce(name string, n int, args ...arg) (float64, error) {
	d.scratchMu.Lock()
	defer d.scratchMu.Unlock()
	out, err := d.scratch(&d.dotsBuf, 1, 8)
	if err != nil {
		return 0, err
	}
	if err := d.launchReduce(ptrArg(out), 1, true, name, n, args...); err != nil {
		return 0, err
	}
	var v float64
	if err := d.copyOutRaw(unsafe.Pointer(&v), out.ptr, 8); err != nil {
		return 0, err
	}
	return v, nil
}

// Dot returns Σ x_i y_i, accumulated in double.
func (d *Device) dot(x, y *Buffer) (float64, error) {
	if x == nil {
		return 0, fmt.Errorf("cuda: dot: x is nil")
	}
	if err := d.need("dot", "x", x, x.n, "y", y, x.n); err != nil {
		return 0, err
	}
	return d.reduce("l2o_dot_reduce", x.n, ptrArg(x), ptrArg(y))
}

// Sum returns Σ x_i, accumulated in double.
func (d *Device) Sum(x *Buffer) (float64, error) {
	if x == nil {
		return 0, fmt.Errorf("cuda: sum: x is nil")
	}
	if err := d.need("sum", "x", x, x.n); err != nil {
		return 0, err
	}
	return d.reduce("l2o_sum_reduce", x.n, ptrArg(x))
}
