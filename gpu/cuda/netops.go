//go:build l2ocuda

package cuda

import (
	"fmt"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/gpu"
)

// The CUDA device implements the network operations of package gpu in
// float32 (plane dots in double): the per-plane coefficients of
// PlaneCombine go to the device as float32 for each call, into a buffer kept for reuse (as is
// PlaneDots's result buffer), so that these calls allocate nothing.
var _ gpu.NetOps = (*Device)(nil)

// scratch returns the reusable buffer *b with room for n values of size
// bytes, replacing it by a larger one when needed; d.scratchMu is held. The
// buffers count in the device's memory statistics while they live.
func (d *Device) scratch(b **Buffer, n int, size int64) (*Buffer, error) {
	if *b != nil && (*b).bytes >= int64(n)*size {
		return *b, nil
	}
	d.mu.Lock()
	graphs := d.graphs
	d.mu.Unlock()
	if graphs == 0 {
		for _, r := range d.retired {
			d.Free(r)
		}
		d.retired = nil
	}
	if *b != nil {
		if graphs > 0 {
			d.retired = append(d.retired, *b) // a live graph may read it
		} else {
			d.Free(*b)
		}
		*b = nil
	}
	nb, err := d.alloc(n, int64(n)*size)
	if err != nil {
		return nil, err
	}
	*b = nb
	return nb, nil
}

func planeCheck(op string, planes, hw int) error {
	if planes < 1 || hw < 1 {
		return fmt.Errorf("cuda: %s: %d planes of %d values: both must be positive", op, planes, hw)
	}
	return nil
}

// PlaneDots implements gpu.NetOps.
func (d *Device) PlaneDots(vals []float64, x, y gpu.Buffer, hw int) error {
	planes := len(vals)
	if err := planeCheck("plane dots", planes, hw); err != nil {
		return err
	}
	bs, err := d.buffers("plane dots", x, planes*hw)
	if err != nil {
		return err
	}
	ya, err := d.optionalArg("plane dots", y, planes*hw)
	if err != nil {
		return err
	}
	d.scratchMu.Lock()
	defer d.scratchMu.Unlock()
	out, err := d.scratch(&d.dotsBuf, planes, 8)
	if err != nil {
		return err
	}
	if err := d.launchBlocks("l2o_plane_dots", planes, ptrArg(out), ptrArg(bs[0]), ya, intArg(hw)); err != nil {
		return err
	}
	return d.copyOutRaw(unsafe.Pointer(&vals[0]), out.ptr, int64(planes)*8)
}

// PlaneCombine implements gpu.NetOps.
func (d *Device) PlaneCombine(y gpu.Buffer, a []float64, x gpu.Buffer, b []float64, z gpu.Buffer, c []float64, hw int) error {
	planes := len(a)
	if err := planeCheck("plane combine", planes, hw); err != nil {
		return err
	}
	if err := gpu.CheckCoefficients("cuda plane combine", planes, b, c, z); err != nil {
		return err
	}
	n := planes * hw
	bs, err := d.buffers("plane combine", y, n, x, n)
	if err != nil {
		return err
	}
	za, err := d.optionalArg("plane combine", z, n)
	if err != nil {
		return err
	}
	coef := make([]float32, 3*planes)
	for p := 0; p < planes; p++ {
		coef[3*p] = float32(a[p])
		if b != nil {
			coef[3*p+1] = float32(b[p])
		}
		if c != nil {
			coef[3*p+2] = float32(c[p])
		}
	}
	d.scratchMu.Lock()
	defer d.scratchMu.Unlock()
	cb, err := d.scratch(&d.coefBuf, 3*planes, BytesPerFloat32)
	if err != nil {
		return err
	}
	if err := d.copyInRaw(cb.ptr, unsafe.Pointer(&coef[0]), int64(len(coef))*BytesPerFloat32); err != nil {
		return err
	}
	return d.launchEach("l2o_plane_combine", n, ptrArg(bs[0]), ptrArg(cb), ptrArg(bs[1]), za, intArg(hw), intArg(n))
}

// PlaneCombineOn implements gpu.PlaneCombinerOn: PlaneCombine's kernel on
// coefficients already on the device, nothing copied.
func (d *Device) PlaneCombineOn(y, coef, x, z gpu.Buffer, planes, hw int) error {
	if err := planeCheck("plane combine", planes, hw); err != nil {
		return err
	}
	n := planes * hw
	bs, err := d.buffers("plane combine", y, n, x, n, coef, 3*planes)
	if err != nil {
		return err
	}
	za, err := d.optionalArg("plane combine", z, n)
	if err != nil {
		return err
	}
	return d.launchEach("l2o_plane_combine", n, ptrArg(bs[0]), ptrArg(bs[2]), ptrArg(bs[1]), za, intArg(hw), intArg(n))
}

var _ gpu.PlaneCombinerOn = (*Device)(nil)

// PlaneDotsAdd implements gpu.NetOps: PlaneDots's blocks, nothing read back.
func (d *Device) PlaneDotsAdd(acc, x, y gpu.Buffer, planes, hw int) error {
	if err := planeCheck("plane dots add", planes, hw); err != nil {
		return err
	}
	bs, err := d.buffers("plane dots add", acc, planes, x, planes*hw)
	if err != nil {
		return err
	}
	ya, err := d.optionalArg("plane dots add", y, planes*hw)
	if err != nil {
		return err
	}
	return d.launchBlocks("l2o_plane_dots_add", planes, ptrArg(bs[0]), ptrArg(bs[1]), ya, intArg(hw))
}

// PlaneSafeguard implements gpu.NetOps: one block a plane, nothing read
// back.
func (d *Device) PlaneSafeguard(delta, h, g gpu.Buffer, planes, hw int, alpha float64) error {
	if err := planeCheck("plane safeguard", planes, hw); err != nil {
		return err
	}
	n := planes * hw
	bs, err := d.buffers("plane safeguard", delta, n, h, n, g, n)
	if err != nil {
		return err
	}
	return d.launchBlocks("l2o_plane_safeguard", planes, ptrArg(bs[0]), ptrArg(bs[1]), ptrArg(bs[2]), intArg(hw), f64Arg(alpha))
}

// PlaneSafeguardBackward implements gpu.NetOps.
func (d *Device) PlaneSafeguardBackward(bh, bg, u, h, g gpu.Buffer, planes, hw int, alpha float64) error {
	if err := planeCheck("plane safeguard backward", planes, hw); err != nil {
		return err
	}
	n := planes * hw
	bs, err := d.buffers("plane safeguard backward", bh, n, bg, n, u, n, h, n, g, n)
	if err != nil {
		return err
	}
	for _, out := range bs[:2] {
		for _, in := range bs[2:] {
			if out == in {
				return fmt.Errorf("cuda: plane safeguard backward: an output is also an input")
			}
		}
	}
	return d.launchBlocks("l2o_plane_safeguard_backward", planes, ptrArg(bs[0]), ptrArg(bs[1]), ptrArg(bs[2]), ptrArg(bs[3]), ptrArg(bs[4]), intArg(hw), f64Arg(alpha))
}

// PlaneNormalize implements gpu.NetOps: one block a plane, nothing read
// back.
func (d *Device) PlaneNormalize(z, scale, x gpu.Buffer, planes, hw int, eps float64) error {
	if err := planeCheck("plane normalize", planes, hw); err != nil {
		return err
	}
	n := planes * hw
	bs, err := d.buffers("plane normalize", z, n, scale, planes, x, n)
	if err != nil {
		return err
	}
	return d.launchBlocks("l2o_plane_normalize", planes, ptrArg(bs[0]), ptrArg(bs[1]), ptrArg(bs[2]), intArg(hw), f64Arg(eps))
}

// PlaneNormalizeBackward implements gpu.NetOps.
func (d *Device) PlaneNormalizeBackward(u, z, scale gpu.Buffer, planes, hw int) error {
	if err := planeCheck("plane normalize backward", planes, hw); err != nil {
		return err
	}
	n := planes * hw
	bs, err := d.buffers("plane normalize backward", u, n, z, n, scale, planes)
	if err != nil {
		return err
	}
	return d.launchBlocks("l2o_plane_normalize_backward", planes, ptrArg(bs[0]), ptrArg(bs[1]), ptrArg(bs[2]), intArg(hw))
}

// LeakyMask implements gpu.NetOps.
func (d *Device) LeakyMask(dst, x, u gpu.Buffer, slope float64) error {
	bs, err := d.buffers("leaky mask", dst, -1, x, -1, u, -1)
	if err != nil {
		return err
	}
	n := bs[0].n
	if bs[1].n != n || bs[2].n != n {
		return fmt.Errorf("cuda: leaky mask: buffers of %d, %d and %d values", n, bs[1].n, bs[2].n)
	}
	if n == 0 {
		return nil
	}
	return d.launchEach("l2o_leaky_mask", n, ptrArg(bs[0]), ptrArg(bs[1]), ptrArg(bs[2]), f32Arg(slope), intArg(n))
}

// CopyPlanes implements gpu.NetOps.
func (d *Device) CopyPlanes(dst gpu.Buffer, dstStart, dstStep int, src gpu.Buffer, srcStart, srcStep, count, hw int) error {
	bs, err := d.buffers("copy planes", dst, -1, src, -1)
	if err != nil {
		return err
	}
	if err := gpu.CheckPlaneCopy("cuda", dst, dstStart, dstStep, src, srcStart, srcStep, count, hw); err != nil {
		return err
	}
	return d.launchEach("l2o_copy_planes", count*hw, ptrArg(bs[0]), ptrArg(bs[1]), intArg(dstStart), intArg(dstStep),
		intArg(srcStart), intArg(srcStep), intArg(hw), intArg(count*hw))
}

// optionalArg is the kernel argument of the optional buffer b of n values:
// its pointer, or null when b is nil.
func (d *Device) optionalArg(what string, b gpu.Buffer, n int) (arg, error) {
	if b == nil {
		return nullArg(), nil
	}
	bs, err := d.buffers(what, b, n)
	if err != nil {
		return nullArg(), err
	}
	return ptrArg(bs[0]), nil
}
