//go:build l2ocuda

package cuda

import (
	"fmt"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/tomo"
)

// RayTransform is the Joseph parallel-beam ray transform of package tomo on
// the device: the same geometry, the same per-angle and per-ray tables
// (tomo.NewRayTables, uploaded as they are) and the same sample positions.
type RayTransform struct {
	dev  *Device
	geom tomo.Geometry
	// per angle
	trans, step, weight *Buffer
	// per ray
	start, first, end *Buffer
}

// NewRayTransform uploads the tables of the geometry g. Free releases them.
func (d *Device) NewRayTransform(g tomo.Geometry) (*RayTransform, error) {
	tab, err := tomo.NewRayTables(g)
	if err != nil {
		return nil, fmt.Errorf("cuda: ray transform: %w", err)
	}
	// The kernels read the marching direction as an int32 flag.
	trans := make([]int32, g.Angles)
	for a, tr := range tab.Transposed {
		if tr {
			trans[a] = 1
		}
	}
	step, weight, start, first, end := tab.Step, tab.Weight, tab.Start, tab.First, tab.End
	rt := &RayTransform{dev: d, geom: g}
	tables := []struct {
		dst  **Buffer
		n    int
		size int64
		src  unsafe.Pointer
	}{
		{&rt.trans, g.Angles, 4, unsafe.Pointer(&trans[0])},
		{&rt.step, g.Angles, 8, unsafe.Pointer(&step[0])},
		{&rt.weight, g.Angles, 8, unsafe.Pointer(&weight[0])},
		{&rt.start, len(start), 8, unsafe.Pointer(&start[0])},
		{&rt.first, len(first), 4, unsafe.Pointer(&first[0])},
		{&rt.end, len(end), 4, unsafe.Pointer(&end[0])},
	}
	for _, t := range tables {
		b, err := d.alloc(t.n, int64(t.n)*t.size)
		if err != nil {
			rt.Free()
			return nil, fmt.Errorf("cuda: ray transform tables: %w", err)
		}
		*t.dst = b
		if err := d.copyInRaw(b.ptr, t.src, int64(t.n)*t.size); err != nil {
			rt.Free()
			return nil, fmt.Errorf("cuda: ray transform tables: %w", err)
		}
	}
	return rt, nil
}

// Geometry returns the transform's geometry.
func (rt *RayTransform) Geometry() tomo.Geometry { return rt.geom }

// Free releases the tables.
func (rt *RayTransform) Free() {
	for _, b := range []*Buffer{rt.trans, rt.step, rt.weight, rt.start, rt.first, rt.end} {
		if b != nil {
			rt.dev.Free(b)
		}
	}
}

func (rt *RayTransform) args(dst, src *Buffer, batch int) []arg {
	g := rt.geom
	return []arg{ptrArg(dst), ptrArg(src), ptrArg(rt.trans), ptrArg(rt.step), ptrArg(rt.weight),
		ptrArg(rt.start), ptrArg(rt.first), ptrArg(rt.end),
		intArg(batch), intArg(g.N), intArg(g.Angles), intArg(g.Det)}
}

// Forward computes sinograms y ([batch,Angles,Det]) of images x ([batch,N,N]).
func (rt *RayTransform) Forward(y, x *Buffer, batch int) error {
	g := rt.geom
	if batch < 1 {
		return fmt.Errorf("cuda: ray forward: batch %d must be positive", batch)
	}
	if err := rt.dev.need("ray forward", "sinogram", y, batch*g.SinoLen(), "image", x, batch*g.ImageLen()); err != nil {
		return err
	}
	return rt.dev.launchEach("l2o_ray_forward", batch*g.SinoLen(), rt.args(y, x, batch)...)
}

// Adjoint computes back-projections x ([batch,N,N]) of sinograms y. The
// kernel scatters with atomicAdd, so the rounding depends on scheduling.
func (rt *RayTransform) Adjoint(x, y *Buffer, batch int) error {
	g := rt.geom
	if batch < 1 {
		return fmt.Errorf("cuda: ray adjoint: batch %d must be positive", batch)
	}
	d := rt.dev
	if err := d.need("ray adjoint", "image", x, batch*g.ImageLen(), "sinogram", y, batch*g.SinoLen()); err != nil {
		return err
	}
	d.mu.Lock()
	err := d.memsetLocked(x.ptr, int64(x.n)*BytesPerFloat32)
	d.mu.Unlock()
	if err != nil {
		return d.fail("ray adjoint: zero the image", err)
	}
	return d.launchEach("l2o_ray_adjoint", batch*g.SinoLen(), rt.args(x, y, batch)...)
}

// The CUDA device runs the ray transform for the device code paths
// (gpu.RayOps).
var _ gpu.RayOps = (*Device)(nil)

// rayOp is a RayTransform behind gpu.Ray's buffer-typed methods.
type rayOp struct{ *RayTransform }

// NewRay implements gpu.RayOps.
func (d *Device) NewRay(g tomo.Geometry) (gpu.Ray, error) {
	rt, err := d.NewRayTransform(g)
	if err != nil {
		return nil, err
	}
	return rayOp{rt}, nil
}

// Forward implements gpu.Ray.
func (r rayOp) Forward(y, x gpu.Buffer, batch int) error {
	bs, err := r.dev.buffers("ray forward", y, -1, x, -1)
	if err != nil {
		return err
	}
	return r.RayTransform.Forward(bs[0], bs[1], batch)
}

// Adjoint implements gpu.Ray.
func (r rayOp) Adjoint(x, y gpu.Buffer, batch int) error {
	bs, err := r.dev.buffers("ray adjoint", x, -1, y, -1)
	if err != nil {
		return err
	}
	return r.RayTransform.Adjoint(bs[0], bs[1], batch)
}

// Close implements gpu.Ray.
func (r rayOp) Close() { r.Free() }
