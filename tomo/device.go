package tomo

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// DeviceRay is the ray transform of a geometry on the buffers of a device,
// for batches of n×n images ([batch, N, N]) and sinograms ([batch, Angles,
// Det]): the CT problems' operator when their objective runs on a device.
type DeviceRay interface {
	// Geometry is the transform's geometry.
	Geometry() Geometry
	// Forward writes the sinograms y of the images x.
	Forward(y, x gpu.Buffer, batch int) error
	// Adjoint writes the back-projections x (overwritten) of the sinograms
	// y: the exact adjoint of Forward.
	Adjoint(x, y gpu.Buffer, batch int) error
	// Residual writes r = scale·A x − y (y nil: nothing subtracted): on a
	// host device, Forward, then Axpby(r, 0, r, scale) unless scale is 1,
	// then Axpby(r, −1, y, 1); with kernels, one kernel.
	Residual(r, x, y gpu.Buffer, scale float64, batch int) error
	// AdjointScaled writes x = scale·Aᵀ r: on a host device, Adjoint, then
	// Axpby(x, 0, x, scale) unless scale is 1; with kernels, the scale in
	// the adjoint's kernel.
	AdjointScaled(x, r gpu.Buffer, scale float64, batch int) error
	// Close releases what the transform holds on the device.
	Close()
}

// NewDeviceRay returns the ray transform of geometry g on device d: on the
// host devices (gpu.OnHost: gpu.CPU, gpu.Host32 and devices that embed
// them) the Projector on the buffers' values in their precision (ForwardT,
// AdjointT); on a device that runs kernels
// (gpu.Launcher: the CUDA device) the l2o_ray_* kernels of package
// gpu/cudasrc over the tables of NewRayTables, uploaded as they are, with
// the same sample positions. Close releases the tables.
func NewDeviceRay(d gpu.Device, g Geometry) (DeviceRay, error) {
	switch d := d.(type) {
	case gpu.OnHost[float64]:
		return newHostRay[float64](d.Name(), g)
	case gpu.OnHost[float32]:
		return newHostRay[float32](d.Name(), g)
	case gpu.Launcher:
		return newKernelRay(d, g)
	}
	return nil, fmt.Errorf("tomo: device %s has no ray transform (it is neither a host device nor a gpu.Launcher); use --device cpu for CT", d.Name())
}

// hostRay is the ray transform of a host device whose values are F.
type hostRay[F kernels.Float] struct {
	name string
	p    *Projector
}

func newHostRay[F kernels.Float](name string, g Geometry) (*hostRay[F], error) {
	p, err := NewProjector(g)
	if err != nil {
		return nil, fmt.Errorf("tomo: %s ray transform: %w", name, err)
	}
	return &hostRay[F]{name: name, p: p}, nil
}

func (r *hostRay[F]) Geometry() Geometry { return r.p.Geometry() }

// values returns the values of the images and the sinograms of a batch.
func (r *hostRay[F]) values(op string, img, sino gpu.Buffer, batch int) ([]F, []F, error) {
	g := r.p.Geometry()
	if batch < 1 {
		return nil, nil, fmt.Errorf("tomo: %s %s: batch %d must be positive", r.name, op, batch)
	}
	iv, err := gpu.HostValues[F](img, batch*g.ImageLen(), fmt.Sprintf("tomo: %s %s: the images", r.name, op))
	if err != nil {
		return nil, nil, err
	}
	sv, err := gpu.HostValues[F](sino, batch*g.SinoLen(), fmt.Sprintf("tomo: %s %s: the sinograms", r.name, op))
	return iv, sv, err
}

// Forward implements DeviceRay.
func (r *hostRay[F]) Forward(y, x gpu.Buffer, batch int) error {
	xv, yv, err := r.values("ray forward", x, y, batch)
	if err != nil {
		return err
	}
	return ForwardT(r.p, yv, xv, batch)
}

// Adjoint implements DeviceRay.
func (r *hostRay[F]) Adjoint(x, y gpu.Buffer, batch int) error {
	xv, yv, err := r.values("ray adjoint", x, y, batch)
	if err != nil {
		return err
	}
	return AdjointT(r.p, xv, yv, batch)
}

// Residual implements DeviceRay.
func (r *hostRay[F]) Residual(res, x, y gpu.Buffer, scale float64, batch int) error {
	xv, rv, err := r.values("ray residual", x, res, batch)
	if err != nil {
		return err
	}
	var yv []F
	if y != nil {
		if yv, err = gpu.HostValues[F](y, len(rv), fmt.Sprintf("tomo: %s ray residual: the data", r.name)); err != nil {
			return err
		}
	}
	if err := ForwardT(r.p, rv, xv, batch); err != nil {
		return err
	}
	scaleValues(rv, scale)
	if yv != nil {
		for i, v := range yv {
			rv[i] = -1*v + 1*rv[i]
		}
	}
	return nil
}

// AdjointScaled implements DeviceRay.
func (r *hostRay[F]) AdjointScaled(x, y gpu.Buffer, scale float64, batch int) error {
	xv, yv, err := r.values("ray adjoint", x, y, batch)
	if err != nil {
		return err
	}
	if err := AdjointT(r.p, xv, yv, batch); err != nil {
		return err
	}
	scaleValues(xv, scale)
	return nil
}

// scaleValues multiplies v by scale unless it is 1, as gpu.Ops.Axpby(v, 0,
// v, scale) does.
func scaleValues[F kernels.Float](v []F, scale float64) {
	if scale == 1 {
		return
	}
	sf := F(scale)
	for i, a := range v {
		v[i] = 0*a + sf*a
	}
}

// Close implements DeviceRay: a host transform holds only host memory.
func (r *hostRay[F]) Close() {}

// kernelRay is the ray transform of a device that runs the l2o_ray_*
// kernels, over the geometry's tables on the device.
type kernelRay struct {
	d    gpu.Launcher
	geom Geometry
	// per angle: the marching direction (int32 flags), step and weight
	trans, step, weight gpu.Buffer
	// per ray: the start coordinate and the range of lines
	start, first, end gpu.Buffer
}

func newKernelRay(d gpu.Launcher, g Geometry) (*kernelRay, error) {
	tab, err := NewRayTables(g)
	if err != nil {
		return nil, fmt.Errorf("tomo: %s ray transform: %w", d.Name(), err)
	}
	// The kernels read the marching direction as an int32 flag.
	trans := make([]int32, g.Angles)
	for a, tr := range tab.Transposed {
		if tr {
			trans[a] = 1
		}
	}
	r := &kernelRay{d: d, geom: g}
	uploads := []struct {
		dst *gpu.Buffer
		up  func() (gpu.Buffer, error)
	}{
		{&r.trans, func() (gpu.Buffer, error) { return d.UploadInt32Table(trans) }},
		{&r.step, func() (gpu.Buffer, error) { return d.UploadFloat64Table(tab.Step) }},
		{&r.weight, func() (gpu.Buffer, error) { return d.UploadFloat64Table(tab.Weight) }},
		{&r.start, func() (gpu.Buffer, error) { return d.UploadFloat64Table(tab.Start) }},
		{&r.first, func() (gpu.Buffer, error) { return d.UploadInt32Table(tab.First) }},
		{&r.end, func() (gpu.Buffer, error) { return d.UploadInt32Table(tab.End) }},
	}
	for _, u := range uploads {
		b, err := u.up()
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("tomo: %s ray transform tables: %w", d.Name(), err)
		}
		*u.dst = b
	}
	return r, nil
}

// Geometry implements DeviceRay.
func (r *kernelRay) Geometry() Geometry { return r.geom }

// Close implements DeviceRay: it frees the tables.
func (r *kernelRay) Close() {
	for _, b := range []*gpu.Buffer{&r.trans, &r.step, &r.weight, &r.start, &r.first, &r.end} {
		if *b != nil {
			r.d.Free(*b)
			*b = nil
		}
	}
}

// check checks the batch and the buffers' lengths of op.
func (r *kernelRay) check(op string, batch int, operands ...gpu.Operand) error {
	where := fmt.Sprintf("tomo: %s %s", r.d.Name(), op)
	if batch < 1 {
		return fmt.Errorf("%s: batch %d must be positive", where, batch)
	}
	return gpu.CheckOperands(where, operands...)
}

// run launches kernel name from src to dst, one thread per ray and image,
// with the kernel's arguments after the tables' (extra).
func (r *kernelRay) run(name string, dst, src gpu.Buffer, batch int, extra ...gpu.KernelArg) error {
	g := r.geom
	args := []gpu.KernelArg{gpu.BufferArg(dst), gpu.BufferArg(src)}
	for _, t := range []gpu.Buffer{r.trans, r.step, r.weight, r.start, r.first, r.end} {
		args = append(args, gpu.BufferArg(t))
	}
	args = append(args, gpu.IntArg(batch), gpu.IntArg(g.N), gpu.IntArg(g.Angles), gpu.IntArg(g.Det))
	return r.d.LaunchEach(name, batch*g.SinoLen(), append(args, extra...)...)
}

// Forward implements DeviceRay.
func (r *kernelRay) Forward(y, x gpu.Buffer, batch int) error {
	g := r.geom
	if err := r.check("ray forward", batch, gpu.Operand{Name: "the sinograms", Buf: y, Len: batch * g.SinoLen()},
		gpu.Operand{Name: "the images", Buf: x, Len: batch * g.ImageLen()}); err != nil {
		return err
	}
	return r.Residual(y, x, nil, 1, batch)
}

// Residual implements DeviceRay: one l2o_ray_forward.
func (r *kernelRay) Residual(res, x, y gpu.Buffer, scale float64, batch int) error {
	g := r.geom
	ops := []gpu.Operand{{Name: "the sinograms", Buf: res, Len: batch * g.SinoLen()}, {Name: "the images", Buf: x, Len: batch * g.ImageLen()}}
	if y != nil {
		ops = append(ops, gpu.Operand{Name: "the data", Buf: y, Len: batch * g.SinoLen()})
	}
	if err := r.check("ray forward", batch, ops...); err != nil {
		return err
	}
	return r.run("l2o_ray_forward", res, x, batch, gpu.Float32Arg(scale), gpu.OptionalBufferArg(y))
}

// Adjoint implements DeviceRay. The kernel scatters with atomicAdd into x,
// zeroed first, so the rounding depends on scheduling.
func (r *kernelRay) Adjoint(x, y gpu.Buffer, batch int) error { return r.AdjointScaled(x, y, 1, batch) }

// AdjointScaled implements DeviceRay: the scale in l2o_ray_adjoint.
func (r *kernelRay) AdjointScaled(x, y gpu.Buffer, scale float64, batch int) error {
	g := r.geom
	if err := r.check("ray adjoint", batch, gpu.Operand{Name: "the images", Buf: x, Len: batch * g.ImageLen()},
		gpu.Operand{Name: "the sinograms", Buf: y, Len: batch * g.SinoLen()}); err != nil {
		return err
	}
	if err := r.d.Zero(x); err != nil {
		return fmt.Errorf("tomo: %s ray adjoint: zero the images: %w", r.d.Name(), err)
	}
	return r.run("l2o_ray_adjoint", x, y, batch, gpu.Float32Arg(scale))
}
