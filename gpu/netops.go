package gpu

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// NetOps are the per-plane operations of a small convolutional network
// (Banert et al.'s learned optimizer: instance normalisation, channel affine
// maps, leaky ReLU, a per-image safeguard) on a device, on top of Ops; its
// multi-channel convolutions are package mconv's (mconv.NewDeviceConv).
// They take their coefficients from host slices, one value per plane (a
// plane is one H·W channel of one image, planes stored one after the
// other), and give their reductions back in host slices; everything else
// stays on the device.
// Both host devices and the CUDA device implement it.
type NetOps interface {
	Ops
	// PlaneDots writes vals[p] = Σ_i x_p[i]·y_p[i] for each of the
	// len(vals) planes of hw values, accumulated in float64; y nil means
	// the plane sums Σ_i x_p[i].
	PlaneDots(vals []float64, x, y Buffer, hw int) error
	// PlaneDotsAdd adds Σ_i x_p[i]·y_p[i] (Σ_i x_p[i] where y is nil),
	// accumulated in float64, to acc[p] for each of planes planes of hw
	// values: PlaneDots kept on the device.
	PlaneDotsAdd(acc, x, y Buffer, planes, hw int) error
	// PlaneCombine writes y_p = a[p]·x_p + b[p]·z_p + c[p] for each of the
	// len(a) planes of hw values. z and b may both be nil (no z term), c may
	// be nil (no constant); y may be x or z.
	PlaneCombine(y Buffer, a []float64, x Buffer, b []float64, z Buffer, c []float64, hw int) error
	// PlaneNormalize writes z_p = (x_p − μ_p)·s_p for each of planes
	// planes of hw values (instance normalisation): μ_p the plane's mean,
	// s_p = 1/√(σ²_p + eps) with σ²_p the mean of (x_p − μ_p)², both
	// accumulated in float64; it keeps s in scale (planes values). z may be
	// x. Nothing comes back to the host.
	PlaneNormalize(z, scale, x Buffer, planes, hw int, eps float64) error
	// PlaneNormalizeBackward writes u_p ← s_p·(u_p − mean(u_p) −
	// z_p·mean(u_p·z_p)) for each plane: PlaneNormalize's transposed
	// Jacobian at its output z and scale s applied to u.
	PlaneNormalizeBackward(u, z, scale Buffer, planes, hw int) error
	// PlaneSafeguard writes delta_p = α·h_p·‖g_p‖/√(1 + ‖h_p‖²) for each
	// of planes planes of hw values (Banert et al.'s per-image safeguard),
	// the norms accumulated in float64.
	PlaneSafeguard(delta, h, g Buffer, planes, hw int, alpha float64) error
	// PlaneSafeguardBackward applies PlaneSafeguard's transposed Jacobian
	// at (h, g) to u, plane by plane (s = √(1 + ‖h‖²)): it writes
	// bh = α‖g‖(u/s − h⟨h,u⟩/s³) and adds α⟨h,u⟩g/(‖g‖s) to bg (nothing
	// where g = 0). bh and bg must differ from the inputs.
	PlaneSafeguardBackward(bh, bg, u, h, g Buffer, planes, hw int, alpha float64) error
	// LeakyMask writes dst = u where x > 0 and slope·u elsewhere: the leaky
	// ReLU of x when u is x, and its transposed Jacobian at x applied to u
	// otherwise. dst may be x or u.
	LeakyMask(dst, x, u Buffer, slope float64) error
	// CopyPlanes copies count planes of hw values: plane dstStart+i·dstStep
	// of dst ← plane srcStart+i·srcStep of src, for i < count. It stacks an
	// image batch into channel c of C (dstStart c, dstStep C, srcStep 1)
	// and takes it out again. dst and src must differ.
	CopyPlanes(dst Buffer, dstStart, dstStep int, src Buffer, srcStart, srcStep, count, hw int) error
}

// PlaneCombinerOn is a device whose PlaneCombine can also read its
// coefficients from a buffer on the device (gpu/cuda's Device), so that a
// captured graph (Capturer) reads them when it runs instead of holding
// the values of its capture.
type PlaneCombinerOn interface {
	// PlaneCombineOn is PlaneCombine with coef, 3·planes values on the
	// device, holding a[p], b[p], c[p] at 3p, 3p+1 and 3p+2 (zero for an
	// absent term; z nil means no z term). It gives PlaneCombine's bits
	// for the same coefficients.
	PlaneCombineOn(y, coef, x, z Buffer, planes, hw int) error
}

var (
	_ NetOps = CPU()
	_ NetOps = Host32()
)

// planeValues returns the values of a buffer of planes·hw values.
func (d *hostOps[F]) planeValues(b Buffer, planes, hw int, op, name string) ([]F, error) {
	if planes < 1 || hw < 1 {
		return nil, fmt.Errorf("gpu: %s %s: %d planes of %d values: both must be positive", d.name, op, planes, hw)
	}
	return d.values(b, planes*hw, op, name)
}

// PlaneDots implements NetOps.
func (d *hostOps[F]) PlaneDots(vals []float64, x, y Buffer, hw int) error {
	xv, err := d.planeValues(x, len(vals), hw, "plane dots", "the first buffer")
	if err != nil {
		return err
	}
	var yv []F
	if y != nil {
		if yv, err = d.values(y, len(xv), "plane dots", "the second buffer"); err != nil {
			return err
		}
	}
	overPlanes(len(vals), hw, func(p int) {
		xs := xv[p*hw : (p+1)*hw]
		if yv == nil {
			vals[p] = planeSum(xs)
		} else {
			vals[p] = planeDot(xs, yv[p*hw:(p+1)*hw])
		}
	})
	return nil
}

// PlaneDotsAdd implements NetOps.
func (d *hostOps[F]) PlaneDotsAdd(acc, x, y Buffer, planes, hw int) error {
	av, err := d.values(acc, planes, "plane dots add", "the sums")
	if err != nil {
		return err
	}
	vals := make([]float64, planes)
	if err := d.PlaneDots(vals, x, y, hw); err != nil {
		return err
	}
	for p, v := range vals {
		av[p] += F(v)
	}
	return nil
}

// safeguardCoefficients returns PlaneSafeguardBackward's coefficients of
// one plane from ‖g‖², ‖h‖² and ⟨h, u⟩: bh = a·u + b·h, bg += cg·g.
func safeguardCoefficients(gg, hh, hu, alpha float64) (a, b, cg float64) {
	gn, s := math.Sqrt(gg), math.Sqrt(1+hh)
	a, b = alpha*gn/s, -alpha*gn*hu/(s*s*s)
	if gn > 0 {
		cg = alpha * hu / (gn * s)
	}
	return a, b, cg
}

// PlaneSafeguard implements NetOps: the plane dots of PlaneDots and the
// arithmetic of PlaneCombine.
func (d *hostOps[F]) PlaneSafeguard(delta, h, g Buffer, planes, hw int, alpha float64) error {
	gg, hh := make([]float64, planes), make([]float64, planes)
	if err := d.PlaneDots(gg, g, g, hw); err != nil {
		return err
	}
	if err := d.PlaneDots(hh, h, h, hw); err != nil {
		return err
	}
	for p := range gg {
		gg[p] = alpha * math.Sqrt(gg[p]) / math.Sqrt(1+hh[p])
	}
	return d.PlaneCombine(delta, gg, h, nil, nil, nil, hw)
}

// PlaneSafeguardBackward implements NetOps.
func (d *hostOps[F]) PlaneSafeguardBackward(bh, bg, u, h, g Buffer, planes, hw int, alpha float64) error {
	gg, hh, hu := make([]float64, planes), make([]float64, planes), make([]float64, planes)
	for _, r := range []struct {
		v    []float64
		x, y Buffer
	}{{gg, g, g}, {hh, h, h}, {hu, h, u}} {
		if err := d.PlaneDots(r.v, r.x, r.y, hw); err != nil {
			return err
		}
	}
	a, b, cg, ones := make([]float64, planes), make([]float64, planes), make([]float64, planes), make([]float64, planes)
	for p := range a {
		a[p], b[p], cg[p] = safeguardCoefficients(gg[p], hh[p], hu[p], alpha)
		ones[p] = 1
	}
	if err := d.PlaneCombine(bh, a, u, b, h, nil, hw); err != nil {
		return err
	}
	return d.PlaneCombine(bg, ones, bg, cg, g, nil, hw)
}

// PlaneNormalize implements NetOps: the plane sums of PlaneDots and the
// arithmetic of PlaneCombine, in that order.
func (d *hostOps[F]) PlaneNormalize(z, scale, x Buffer, planes, hw int, eps float64) error {
	xv, err := d.planeValues(x, planes, hw, "plane normalize", "x")
	if err != nil {
		return err
	}
	zv, err := d.values(z, len(xv), "plane normalize", "z")
	if err != nil {
		return err
	}
	sv, err := d.values(scale, planes, "plane normalize", "the scales")
	if err != nil {
		return err
	}
	overPlanes(planes, hw, func(p int) {
		xs, zs := xv[p*hw:(p+1)*hw], zv[p*hw:(p+1)*hw]
		c := F(-planeSum(xs) / float64(hw))
		q := shiftSquares(zs, xs, c)
		inv := F(1 / math.Sqrt(q/float64(hw)+eps))
		affine(zs, zs, inv, 0)
		sv[p] = inv
	})
	return nil
}

// PlaneNormalizeBackward implements NetOps.
func (d *hostOps[F]) PlaneNormalizeBackward(u, z, scale Buffer, planes, hw int) error {
	uv, err := d.planeValues(u, planes, hw, "plane normalize backward", "u")
	if err != nil {
		return err
	}
	zv, err := d.values(z, len(uv), "plane normalize backward", "z")
	if err != nil {
		return err
	}
	sv, err := d.values(scale, planes, "plane normalize backward", "the scales")
	if err != nil {
		return err
	}
	overPlanes(planes, hw, func(p int) {
		us, zs := uv[p*hw:(p+1)*hw], zv[p*hw:(p+1)*hw]
		su, suz := planeSumDot(us, zs)
		inv := float64(sv[p])
		a, b, c := F(inv), F(-inv*suz/float64(hw)), F(-inv*su/float64(hw))
		combine(us, us, zs, a, b, c)
	})
	return nil
}

// parallelValues is the number of values from which a plane-wise host
// operation splits its planes over the cores.
const parallelValues = 1 << 15

// overPlanes runs body for every plane of planes·hw values, the planes split
// over the cores for large buffers: each plane is computed as on one core.
func overPlanes(planes, hw int, body func(p int)) {
	if planes*hw < parallelValues {
		for p := range planes {
			body(p)
		}
		return
	}
	kernels.ParallelFor(planes, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			body(p)
		}
	})
}

// CheckCoefficients checks the lengths of NetOps.PlaneCombine's
// coefficients for planes planes, for every device; op names the call.
func CheckCoefficients(op string, planes int, b, c []float64, z Buffer) error {
	if (b == nil) != (z == nil) {
		return fmt.Errorf("gpu: %s: the z coefficients and z must both be given or both be nil", op)
	}
	if b != nil && len(b) != planes {
		return fmt.Errorf("gpu: %s: %d z coefficients for %d planes", op, len(b), planes)
	}
	if c != nil && len(c) != planes {
		return fmt.Errorf("gpu: %s: %d constants for %d planes", op, len(c), planes)
	}
	return nil
}

// PlaneCombine implements NetOps.
func (d *hostOps[F]) PlaneCombine(y Buffer, a []float64, x Buffer, b []float64, z Buffer, c []float64, hw int) error {
	planes := len(a)
	if err := CheckCoefficients(d.name+" plane combine", planes, b, c, z); err != nil {
		return err
	}
	yv, err := d.planeValues(y, planes, hw, "plane combine", "the output")
	if err != nil {
		return err
	}
	xv, err := d.values(x, len(yv), "plane combine", "x")
	if err != nil {
		return err
	}
	var zv []F
	if z != nil {
		if zv, err = d.values(z, len(yv), "plane combine", "z"); err != nil {
			return err
		}
	}
	overPlanes(planes, hw, func(p int) {
		ap, bp, cp := F(a[p]), F(0), F(0)
		if b != nil {
			bp = F(b[p])
		}
		if c != nil {
			cp = F(c[p])
		}
		ys, xs := yv[p*hw:(p+1)*hw], xv[p*hw:(p+1)*hw]
		if zv == nil {
			affine(ys, xs, ap, cp)
			return
		}
		combine(ys, xs, zv[p*hw:(p+1)*hw], ap, bp, cp)
	})
	return nil
}

// LeakyMask implements NetOps.
func (d *hostOps[F]) LeakyMask(dst, x, u Buffer, slope float64) error {
	dv, xv, err := d.pair(dst, x, "leaky mask")
	if err != nil {
		return err
	}
	uv, err := d.values(u, len(xv), "leaky mask", "u")
	if err != nil {
		return err
	}
	sf := F(slope)
	mask := func(lo, hi int) { leaky(dv[lo:hi], xv[lo:hi], uv[lo:hi], sf) }
	if len(xv) < parallelValues {
		mask(0, len(xv))
		return nil
	}
	kernels.ParallelFor(len(xv), mask)
	return nil
}

// CopyPlanes implements NetOps.
func (d *hostOps[F]) CopyPlanes(dst Buffer, dstStart, dstStep int, src Buffer, srcStart, srcStep, count, hw int) error {
	if err := CheckPlaneCopy(d.name, dst, dstStart, dstStep, src, srcStart, srcStep, count, hw); err != nil {
		return err
	}
	dv, err := d.values(dst, -1, "copy planes", "dst")
	if err != nil {
		return err
	}
	sv, err := d.values(src, -1, "copy planes", "src")
	if err != nil {
		return err
	}
	if dstStep == 1 && srcStep == 1 {
		// Consecutive planes: one copy.
		copy(dv[dstStart*hw:(dstStart+count)*hw], sv[srcStart*hw:(srcStart+count)*hw])
		return nil
	}
	for i := 0; i < count; i++ {
		p, q := dstStart+i*dstStep, srcStart+i*srcStep
		copy(dv[p*hw:(p+1)*hw], sv[q*hw:(q+1)*hw])
	}
	return nil
}

// CheckPlaneCopy checks the arguments of NetOps.CopyPlanes against the
// buffers' lengths, for every device.
func CheckPlaneCopy(device string, dst Buffer, dstStart, dstStep int, src Buffer, srcStart, srcStep, count, hw int) error {
	if dst == nil || src == nil {
		return fmt.Errorf("gpu: %s copy planes: a buffer is nil", device)
	}
	if dst == src {
		return fmt.Errorf("gpu: %s copy planes: dst and src are the same buffer", device)
	}
	if count > 1 && (dstStep < 1 || srcStep < 1) {
		return fmt.Errorf("gpu: %s copy planes: steps %d and %d for %d planes: steps must be at least 1 when copying more than one plane", device, dstStep, srcStep, count)
	}
	if int64(count)*int64(hw) > math.MaxInt32 {
		return fmt.Errorf("gpu: %s copy planes: %d planes of %d values exceed 2³¹ values", device, count, hw)
	}
	if count < 1 || hw < 1 || dstStart < 0 || srcStart < 0 || dstStep < 0 || srcStep < 0 {
		return fmt.Errorf("gpu: %s copy planes: %d planes of %d values from plane %d step %d to plane %d step %d: counts must be positive and starts and steps non-negative",
			device, count, hw, srcStart, srcStep, dstStart, dstStep)
	}
	if last := dstStart + (count-1)*dstStep; (last+1)*hw > dst.Len() {
		return fmt.Errorf("gpu: %s copy planes: plane %d of dst ends past its %d values", device, last, dst.Len())
	}
	if last := srcStart + (count-1)*srcStep; (last+1)*hw > src.Len() {
		return fmt.Errorf("gpu: %s copy planes: plane %d of src ends past its %d values", device, last, src.Len())
	}
	return nil
}
