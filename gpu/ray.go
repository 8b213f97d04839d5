package gpu

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/tomo"
)

// RayOps are implemented by devices that run the parallel-beam ray
// transform of package tomo (Joseph's model, the CT problems' operator) on
// their buffers. Both host devices and the CUDA device implement it.
type RayOps interface {
	// NewRay returns the ray transform of geometry g on the device; Close
	// releases what it holds there.
	NewRay(g tomo.Geometry) (Ray, error)
}

// Ray is a ray transform on a device, for batches of n×n images
// ([batch, N, N]) and sinograms ([batch, Angles, Det]).
type Ray interface {
	// Geometry is the transform's geometry.
	Geometry() tomo.Geometry
	// Forward writes the sinograms y of the images x.
	Forward(y, x Buffer, batch int) error
	// Adjoint writes the back-projections x (overwritten) of the sinograms
	// y: the exact adjoint of Forward.
	Adjoint(x, y Buffer, batch int) error
	// Close releases the transform's device memory.
	Close()
}

var (
	_ RayOps = CPU()
	_ RayOps = Host32()
)

// hostRay is the ray transform of a host device: tomo's projector on the
// buffers' values, in their precision.
type hostRay[F kernels.Float] struct {
	d *hostOps[F]
	p *tomo.Projector
}

// NewRay implements RayOps.
func (d *hostOps[F]) NewRay(g tomo.Geometry) (Ray, error) {
	p, err := tomo.NewProjector(g)
	if err != nil {
		return nil, fmt.Errorf("gpu: %s ray transform: %w", d.name, err)
	}
	return &hostRay[F]{d: d, p: p}, nil
}

func (r *hostRay[F]) Geometry() tomo.Geometry { return r.p.Geometry() }

func (r *hostRay[F]) buffers(op string, img, sino Buffer, batch int) ([]F, []F, error) {
	g := r.p.Geometry()
	if batch < 1 {
		return nil, nil, fmt.Errorf("gpu: %s %s: batch %d must be positive", r.d.name, op, batch)
	}
	iv, err := r.d.values(img, batch*g.ImageLen(), op, "the images")
	if err != nil {
		return nil, nil, err
	}
	sv, err := r.d.values(sino, batch*g.SinoLen(), op, "the sinograms")
	return iv, sv, err
}

// Forward implements Ray.
func (r *hostRay[F]) Forward(y, x Buffer, batch int) error {
	xv, yv, err := r.buffers("ray forward", x, y, batch)
	if err != nil {
		return err
	}
	return tomo.ForwardT(r.p, yv, xv, batch)
}

// Adjoint implements Ray.
func (r *hostRay[F]) Adjoint(x, y Buffer, batch int) error {
	xv, yv, err := r.buffers("ray adjoint", x, y, batch)
	if err != nil {
		return err
	}
	return tomo.AdjointT(r.p, xv, yv, batch)
}

// Close implements Ray: a host transform holds only host memory.
func (r *hostRay[F]) Close() {}
