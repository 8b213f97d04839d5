//go:build l2ocuda

package cuda

import (
	"github.com/greedyl2o/greedyl2o/gpu"
)

// The CUDA device evaluates the WCRR channel potentials for the device code
// paths (gpu.RidgeOps) with the l2o_ridge_* kernels.
var _ gpu.RidgeOps = (*Device)(nil)

// ridgeOp is a Ridge (thresholds on the device) behind gpu.Ridge.
type ridgeOp struct {
	d *Device
	r Ridge
}

// NewRidge implements gpu.RidgeOps.
func (d *Device) NewRidge(h, t []float64, mu float64) (gpu.Ridge, error) {
	if err := gpu.CheckRidgeParams(h, t, mu); err != nil {
		return nil, err
	}
	hb, err := d.Upload(h)
	if err != nil {
		return nil, err
	}
	tb, err := d.Upload(t)
	if err != nil {
		d.Free(hb)
		return nil, err
	}
	return &ridgeOp{d: d, r: Ridge{H: hb, T: tb, Mu: mu}}, nil
}

// Psi implements gpu.Ridge.
func (r *ridgeOp) Psi(out, z gpu.Buffer, hw int) error {
	bs, err := r.d.buffers("ridge psi", out, -1, z, -1)
	if err != nil {
		return err
	}
	return r.d.RidgePsi(bs[0], bs[1], r.r, hw)
}

// PsiPrime implements gpu.Ridge.
func (r *ridgeOp) PsiPrime(out, z gpu.Buffer, hw int) error {
	bs, err := r.d.buffers("ridge psi'", out, -1, z, -1)
	if err != nil {
		return err
	}
	return r.d.RidgePsiPrime(bs[0], bs[1], r.r, hw)
}

// HessVec implements gpu.Ridge.
func (r *ridgeOp) HessVec(out, z, u gpu.Buffer, hw int) error {
	bs, err := r.d.buffers("ridge hessvec", out, -1, z, -1, u, -1)
	if err != nil {
		return err
	}
	return r.d.RidgeHessVec(bs[0], bs[1], bs[2], r.r, hw)
}

// Close implements gpu.Ridge.
func (r *ridgeOp) Close() {
	if r.r.H != nil {
		r.d.Free(r.r.H)
		r.d.Free(r.r.T)
		r.r.H, r.r.T = nil, nil
	}
}
