package gpu

import "github.com/greedyl2o/greedyl2o/kernels"

// SpectralProduct is one product of Ops.SpectralMulSum: the spectrum T
// (one image's) times the batch's spectra V. With Scaled, T's values are
// first multiplied by C in the device's precision, as Axpby(T, 0, T, C)
// would leave them (T itself is not changed): a sign or a scale folded into
// the product instead of a pass of its own.
type SpectralProduct struct {
	T, V   Buffer
	C      float64
	Scaled bool
}

// The fused operations of Ops on the host devices compute what the
// sequences of operations they replace compute, value for value: the same
// operations on the same values in the same order.

// SpectralMulSum implements Ops.
func (d *hostOps[F]) SpectralMulSum(dst Buffer, s Batch, ps ...SpectralProduct) error {
	const op = "spectral mul sum"
	if err := s.check(op); err != nil {
		return err
	}
	dv, err := d.values(dst, s.N*s.SpectrumLen(), op, "the sum of spectra")
	if err != nil {
		return err
	}
	type product struct {
		t, v  []kernels.Complex[F]
		c     F
		scale bool
	}
	prods := make([]product, len(ps))
	for j, p := range ps {
		tv, err := d.values(p.T, s.SpectrumLen(), op, "a single spectrum")
		if err != nil {
			return err
		}
		vv, err := d.values(p.V, s.N*s.SpectrumLen(), op, "a batch of spectra")
		if err != nil {
			return err
		}
		prods[j] = product{kernels.ComplexView(tv), kernels.ComplexView(vv), F(p.C), p.Scaled}
	}
	acc, sl := kernels.ComplexView(dv), s.SpectrumLen()/2
	for k := range acc {
		var re, im F
		for _, p := range prods {
			a, b := p.t[k%sl], p.v[k]
			if p.scale {
				a.Re, a.Im = 0*a.Re+p.c*a.Re, 0*a.Im+p.c*a.Im
			}
			re += a.Re*b.Re - a.Im*b.Im
			im += a.Re*b.Im + a.Im*b.Re
		}
		acc[k] = kernels.Complex[F]{Re: re, Im: im}
	}
	return nil
}

// AddIRFFT2 implements Ops.
func (d *hostOps[F]) AddIRFFT2(dst, x, spec, tmp Buffer, s Batch) error {
	const op = "add irfft2"
	if err := d.IRFFT2(tmp, spec, s); err != nil {
		return err
	}
	dv, tv, err := d.pair(dst, tmp, op)
	if err != nil {
		return err
	}
	xv, err := d.values(x, len(dv), op, "x")
	if err != nil {
		return err
	}
	for i, v := range tv {
		dv[i] = 1*v + 1*xv[i]
	}
	return nil
}

// ConjSumIRFFT2 implements Ops.
func (d *hostOps[F]) ConjSumIRFFT2(dst, v, z, spec Buffer, s Batch) error {
	if err := d.SpectralConjSum(spec, v, z, s); err != nil {
		return err
	}
	return d.IRFFT2(dst, spec, Batch{N: 1, H: s.H, W: s.W})
}

// Conv2DResidual implements Ops.
func (d *hostOps[F]) Conv2DResidual(r, x, k, y Buffer, s Batch, K int, boundary kernels.Boundary) error {
	if err := d.Conv2D(r, x, k, s, K, boundary); err != nil {
		return err
	}
	return d.Axpby(r, -1, y, 1)
}

// GradAdjointAxpby implements Ops, with Dᵀd in a work slice of its own.
func (d *hostOps[F]) GradAdjointAxpby(x Buffer, a float64, src Buffer, b float64, s Batch) error {
	xv, dv, err := d.field("grad adjoint axpby", s, x, src)
	if err != nil {
		return err
	}
	t := make([]F, len(xv))
	if err := kernels.GradAdjointT(t, dv, s.N, s.H, s.W); err != nil {
		return err
	}
	af, bf := F(a), F(b)
	for i, v := range t {
		if b == 0 {
			xv[i] = af * v
			continue
		}
		xv[i] = af*v + bf*xv[i]
	}
	return nil
}

// SetDot implements Ops.
func (d *HostDeviceT[F]) SetDot(r Buffer, i int, c float64, x, y Buffer) error {
	dst, err := d.sum(r, i, "set dot")
	if err != nil {
		return err
	}
	*dst = 0
	return d.AddDot(r, i, c, x, y)
}

// AddHuberTV implements Ops.
func (d *HostDeviceT[F]) AddHuberTV(r Buffer, i int, c float64, g, x Buffer, s Batch, eps float64) error {
	if err := d.Grad(g, x, s); err != nil {
		return err
	}
	if r != nil {
		if err := d.AddHuberValue(r, i, c, g, s, eps); err != nil {
			return err
		}
	}
	return d.HuberDerivative(g, g, s, eps)
}
