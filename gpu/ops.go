package gpu

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// Batch is the shape of a batch of N real images of H×W values, stored
// row-major one after the other (N·H·W values). Its spectra (Ops.RFFT2) are
// N blocks of H·(W/2+1) complex values, each stored as two consecutive
// values (real, imaginary): 2·N·H·(W/2+1) values in all.
type Batch struct{ N, H, W int }

// Len is the number of values of the batch's images.
func (b Batch) Len() int { return b.N * b.H * b.W }

// SpectrumLen is the number of buffer values (two per complex value) of the
// spectrum of one image: 2·H·(W/2+1).
func (b Batch) SpectrumLen() int { return 2 * b.H * (b.W/2 + 1) }

func (b Batch) check(op string) error {
	if b.N < 1 || b.H < 1 || b.W < 1 {
		return fmt.Errorf("gpu: %s: batch %d×%d×%d must have at least one image of at least 1×1", op, b.N, b.H, b.W)
	}
	return nil
}

// Ops are the array operations the numerics run on a device, on buffers of
// that device; a computation that uses only these keeps its arrays on the
// device between calls, and only the values it asks for (Dot, HuberValue)
// come back to the host. The CPU device implements them in float64 with the
// CPU kernels of package kernels; the CUDA device (package gpu/cuda) in
// float32 with float64 accumulators for the reductions.
//
// Lengths are checked: every method returns an error, never panics, when a
// buffer does not match the shape it is given. Outputs may not alias inputs
// unless the method says so.
type Ops interface {
	Device
	// ValueSize is the number of bytes of one buffer value (8 for float64
	// devices, 4 for float32).
	ValueSize() int
	// Zero sets every value of b to 0.
	Zero(b Buffer) error
	// Copy writes src into dst (equal lengths).
	Copy(dst, src Buffer) error
	// Axpby sets y ← a·x + b·y (equal lengths; x may be y).
	Axpby(y Buffer, a float64, x Buffer, b float64) error
	// Dot returns Σ x_i·y_i, accumulated in float64 (equal lengths).
	Dot(x, y Buffer) (float64, error)

	// Conv2D writes y_n = k ⋆ x_n for every image n of s: the correlation
	// with the K×K kernel k (odd K) under the boundary rule, as
	// kernels.Conv.Apply.
	Conv2D(y, x, k Buffer, s Batch, K int, boundary kernels.Boundary) error
	// Conv2DAdjointImage writes x, the adjoint of Conv2D in the image.
	Conv2DAdjointImage(x, y, k Buffer, s Batch, K int, boundary kernels.Boundary) error
	// Conv2DAdjointKernel writes g (K×K) = Σ_n of the adjoint of Conv2D in
	// the kernel, at images x_n and outputs y_n.
	Conv2DAdjointKernel(g, x, y Buffer, s Batch, K int, boundary kernels.Boundary) error

	// Grad writes the forward differences d ([N,2,H,W]) of x, the last one
	// in each direction zero, as kernels.Grad.
	Grad(d, x Buffer, s Batch) error
	// GradAdjoint writes x = Dᵀd, as kernels.GradAdjoint.
	GradAdjoint(x, d Buffer, s Batch) error
	// HuberValue writes into vals[n] the Huber function with parameter eps
	// of the magnitudes of image n's differences d, summed in float64
	// (kernels.Huber.Value).
	HuberValue(vals []float64, d Buffer, s Batch, eps float64) error
	// HuberDerivative writes g = d/max(|d|, eps) pixelwise (kernels.Huber.
	// Derivative); g may be d.
	HuberDerivative(g, d Buffer, s Batch, eps float64) error
	// HuberHessVec writes out = the second derivative of the Huber
	// potential at d applied to the field u, pixelwise (kernels.Huber.
	// HessVec): the derivative of HuberDerivative.
	HuberHessVec(out, d, u Buffer, s Batch, eps float64) error

	// MulAdd adds c·t⊙v_n to dst_n for every image n: t is one H×W image,
	// v and dst are batches.
	MulAdd(dst, t, v Buffer, s Batch, c float64) error
	// ProductSum writes dst (one H×W image) = Σ_n r_n⊙v_n, accumulated in
	// float64.
	ProductSum(dst, r, v Buffer, s Batch) error

	// RFFT2 writes the spectra of the images x into spec (see Batch): the
	// 2-D discrete Fourier transform with exp(−2πi·…), unnormalised, as
	// kernels.FFT2T.Forward.
	RFFT2(spec, x Buffer, s Batch) error
	// IRFFT2 writes the real images x whose spectra are spec, normalised so
	// that IRFFT2(RFFT2(x)) = x. It may overwrite spec.
	IRFFT2(x, spec Buffer, s Batch) error
	// SpectralMulAdd adds t·v_n (complex, elementwise) to dst_n for every
	// image n: t is one spectrum, v and dst are the batch's spectra.
	SpectralMulAdd(dst, t, v Buffer, s Batch) error
	// SpectralConjSum writes dst (one spectrum) = Σ_n conj(v_n)·z_n,
	// accumulated in float64.
	SpectralConjSum(dst, v, z Buffer, s Batch) error

	// SpectralMulSum writes dst_n = Σ_j t_j·v_{j,n} (complex, elementwise,
	// the products added in order to 0) for every image n: ps[j].T is one
	// spectrum, ps[j].V and dst the batch's spectra. It is Zero and one
	// SpectralMulAdd a product in one pass (SpectralProduct: a spectrum may
	// be scaled on the way). The CUDA device takes at most two products
	// (the learned update's G and H).
	SpectralMulSum(dst Buffer, s Batch, ps ...SpectralProduct) error
	// AddIRFFT2 writes dst = x + IRFFT2(spec), tmp a batch of images it may
	// use as work: Copy, IRFFT2 and Axpby in fewer passes. dst may be x;
	// spec and tmp are overwritten.
	AddIRFFT2(dst, x, spec, tmp Buffer, s Batch) error
	// ConjSumIRFFT2 writes dst (one image) = IRFFT2(Σ_n conj(v_n)·z_n), as
	// SpectralConjSum into spec (one spectrum, overwritten) and IRFFT2.
	ConjSumIRFFT2(dst, v, z, spec Buffer, s Batch) error
	// Conv2DResidual writes r = k ⋆ x − y, as Conv2D then Axpby(r, −1, y, 1).
	Conv2DResidual(r, x, k, y Buffer, s Batch, K int, boundary kernels.Boundary) error
	// GradAdjointAxpby writes x = a·Dᵀd + b·x, as GradAdjoint into a buffer
	// t and Axpby(x, a, t, b); b = 0 ignores x's values.
	GradAdjointAxpby(x Buffer, a float64, d Buffer, b float64, s Batch) error

	// AllocReadout returns a zeroed buffer of n values with k float64
	// sums beside it on the device: the results of a computation that
	// stays on the device (the sums accumulated by AddDot, AddSum and
	// AddHuberValue), brought back together by one copy (ReadOut). It is a
	// buffer of n values for every operation; Free frees its sums with it.
	AllocReadout(n, k int) (Buffer, error)
	// ZeroSums sets every sum of the readout r to 0.
	ZeroSums(r Buffer) error
	// AddDot adds c·Σ x_i·y_i, accumulated in float64 as Dot, to sum i of
	// the readout r (equal lengths).
	AddDot(r Buffer, i int, c float64, x, y Buffer) error
	// AddSum adds c·Σ x_i, accumulated in float64, to sum i of the
	// readout r.
	AddSum(r Buffer, i int, c float64, x Buffer) error
	// AddHuberValue adds c·Σ_n v_n to sum i of the readout r, v_n the
	// images' Huber values of HuberValue, summed in float64.
	AddHuberValue(r Buffer, i int, c float64, d Buffer, s Batch, eps float64) error
	// SetDot sets sum i of the readout r to c·Σ x_i·y_i, as zeroing it
	// and AddDot.
	SetDot(r Buffer, i int, c float64, x, y Buffer) error
	// AddHuberTV is Grad(g, x, s), AddHuberValue(r, i, c, g, s, eps) (left
	// out when r is nil) and HuberDerivative(g, g, s, eps) in one pass over
	// x: g = Ψ(Dx), the value of Huber-TV added to sum i.
	AddHuberTV(r Buffer, i int, c float64, g, x Buffer, s Batch, eps float64) error
	// ReadOut copies the first len(vals) values of the readout r into vals
	// and its sums into sums (as many as it has), by one copy from the
	// device: the host's one wait for what was queued before.
	ReadOut(vals, sums []float64, r Buffer) error
}

var (
	_ Ops = CPU()
	_ Ops = Host32()
)

// hostOps implements Ops (all but the Device methods) on host slices of F;
// the float64 CPU device and the float32 host device embed it. get returns
// a buffer's values, or false if the buffer is not the device's; nil
// values mean a freed buffer. Reductions accumulate in float64.
type hostOps[F kernels.Float] struct {
	name string
	get  func(Buffer) ([]F, bool)
}

// values returns the values of a buffer of the device with length n (any
// length for n < 0), or an error naming the operation and the argument.
func (d *hostOps[F]) values(b Buffer, n int, op, name string) ([]F, error) {
	data, ok := d.get(b)
	if !ok {
		return nil, fmt.Errorf("gpu: %s %s: %s is a %T, not a buffer of the %s device", d.name, op, name, b, d.name)
	}
	if data == nil && n > 0 {
		return nil, fmt.Errorf("gpu: %s %s: %s was freed", d.name, op, name)
	}
	if n >= 0 && len(data) != n {
		return nil, fmt.Errorf("gpu: %s %s: %s has %d values, want %d", d.name, op, name, len(data), n)
	}
	return data, nil
}

// pair returns the values of two CPU buffers of equal length.
func (d *hostOps[F]) pair(a, b Buffer, op string) ([]F, []F, error) {
	av, err := d.values(a, -1, op, "the first buffer")
	if err != nil {
		return nil, nil, err
	}
	bv, err := d.values(b, len(av), op, "the second buffer")
	return av, bv, err
}

// ValueSize implements Ops: 8 bytes (float64) or 4 (float32).
func (*hostOps[F]) ValueSize() int {
	var z F
	return int(unsafe.Sizeof(z))
}

// Zero implements Ops.
func (d *hostOps[F]) Zero(b Buffer) error {
	v, err := d.values(b, -1, "zero", "the buffer")
	if err != nil {
		return err
	}
	clear(v)
	return nil
}

// Copy implements Ops.
func (d *hostOps[F]) Copy(dst, src Buffer) error {
	a, b, err := d.pair(dst, src, "copy")
	if err != nil {
		return err
	}
	copy(a, b)
	return nil
}

// Axpby implements Ops.
func (d *hostOps[F]) Axpby(y Buffer, a float64, x Buffer, b float64) error {
	yv, xv, err := d.pair(y, x, "axpby")
	if err != nil {
		return err
	}
	af, bf := F(a), F(b)
	for i, v := range xv {
		yv[i] = af*v + bf*yv[i]
	}
	return nil
}

// Dot implements Ops.
func (d *hostOps[F]) Dot(x, y Buffer) (float64, error) {
	xv, yv, err := d.pair(x, y, "dot")
	if err != nil {
		return 0, err
	}
	return kernels.DotT(xv, yv), nil
}

// conv returns the kernels.Conv of s, K and boundary with the buffers' values.
func (d *hostOps[F]) conv(op string, s Batch, K int, boundary kernels.Boundary, img, out, k Buffer) (kernels.ConvT[F], []F, []F, []F, error) {
	c := kernels.ConvT[F]{N: s.N, H: s.H, W: s.W, K: K, Boundary: boundary}
	if err := s.check(op); err != nil {
		return c, nil, nil, nil, err
	}
	if err := c.Validate(); err != nil {
		return c, nil, nil, nil, fmt.Errorf("gpu: %s %s: %w", d.name, op, err)
	}
	iv, err := d.values(img, s.Len(), op, "the image batch")
	if err != nil {
		return c, nil, nil, nil, err
	}
	ov, err := d.values(out, s.Len(), op, "the output batch")
	if err != nil {
		return c, nil, nil, nil, err
	}
	kv, err := d.values(k, K*K, op, "the kernel")
	return c, iv, ov, kv, err
}

// Conv2D implements Ops.
func (d *hostOps[F]) Conv2D(y, x, k Buffer, s Batch, K int, boundary kernels.Boundary) error {
	c, xv, yv, kv, err := d.conv("conv2d", s, K, boundary, x, y, k)
	if err != nil {
		return err
	}
	return c.Apply(yv, xv, kv)
}

// Conv2DAdjointImage implements Ops.
func (d *hostOps[F]) Conv2DAdjointImage(x, y, k Buffer, s Batch, K int, boundary kernels.Boundary) error {
	c, xv, yv, kv, err := d.conv("conv2d adjoint image", s, K, boundary, x, y, k)
	if err != nil {
		return err
	}
	return c.AdjointImage(xv, yv, kv)
}

// Conv2DAdjointKernel implements Ops.
func (d *hostOps[F]) Conv2DAdjointKernel(g, x, y Buffer, s Batch, K int, boundary kernels.Boundary) error {
	c, xv, yv, gv, err := d.conv("conv2d adjoint kernel", s, K, boundary, x, y, g)
	if err != nil {
		return err
	}
	return c.AdjointKernel(gv, xv, yv)
}

// field returns the values of an image batch and of its difference field.
func (d *hostOps[F]) field(op string, s Batch, img, f Buffer) ([]F, []F, error) {
	if err := s.check(op); err != nil {
		return nil, nil, err
	}
	var iv []F
	if img != nil {
		var err error
		if iv, err = d.values(img, s.Len(), op, "the image batch"); err != nil {
			return nil, nil, err
		}
	}
	fv, err := d.values(f, 2*s.Len(), op, "the difference field")
	return iv, fv, err
}

// Grad implements Ops.
func (d *hostOps[F]) Grad(dst, x Buffer, s Batch) error {
	xv, dv, err := d.field("grad", s, x, dst)
	if err != nil {
		return err
	}
	return kernels.GradT(dv, xv, s.N, s.H, s.W)
}

// GradAdjoint implements Ops.
func (d *hostOps[F]) GradAdjoint(x, src Buffer, s Batch) error {
	xv, dv, err := d.field("grad adjoint", s, x, src)
	if err != nil {
		return err
	}
	return kernels.GradAdjointT(xv, dv, s.N, s.H, s.W)
}

// HuberValue implements Ops.
func (d *hostOps[F]) HuberValue(vals []float64, f Buffer, s Batch, eps float64) error {
	_, fv, err := d.field("huber value", s, nil, f)
	if err != nil {
		return err
	}
	if !(eps > 0) {
		return fmt.Errorf("gpu: huber value: eps = %g must be positive", eps)
	}
	return kernels.HuberT[F]{Eps: eps}.Value(vals, fv, s.N, s.H*s.W)
}

// HuberDerivative implements Ops.
func (d *hostOps[F]) HuberDerivative(g, f Buffer, s Batch, eps float64) error {
	_, fv, err := d.field("huber derivative", s, nil, f)
	if err != nil {
		return err
	}
	gv, err := d.values(g, len(fv), "huber derivative", "the output field")
	if err != nil {
		return err
	}
	if !(eps > 0) {
		return fmt.Errorf("gpu: huber derivative: eps = %g must be positive", eps)
	}
	return kernels.HuberT[F]{Eps: eps}.Derivative(gv, fv, s.N, s.H*s.W)
}

// HuberHessVec implements Ops.
func (d *hostOps[F]) HuberHessVec(out, f, u Buffer, s Batch, eps float64) error {
	_, fv, err := d.field("huber hessvec", s, nil, f)
	if err != nil {
		return err
	}
	uv, err := d.values(u, len(fv), "huber hessvec", "the direction field")
	if err != nil {
		return err
	}
	ov, err := d.values(out, len(fv), "huber hessvec", "the output field")
	if err != nil {
		return err
	}
	if !(eps > 0) {
		return fmt.Errorf("gpu: huber hessvec: eps = %g must be positive", eps)
	}
	return kernels.HuberT[F]{Eps: eps}.HessVec(ov, fv, uv, s.N, s.H*s.W)
}

// image returns the values of one image and of two batches.
func (d *hostOps[F]) image(op string, s Batch, one, b1, b2 Buffer) ([]F, []F, []F, error) {
	if err := s.check(op); err != nil {
		return nil, nil, nil, err
	}
	ov, err := d.values(one, s.H*s.W, op, "the single image")
	if err != nil {
		return nil, nil, nil, err
	}
	v1, err := d.values(b1, s.Len(), op, "the first batch")
	if err != nil {
		return nil, nil, nil, err
	}
	v2, err := d.values(b2, s.Len(), op, "the second batch")
	return ov, v1, v2, err
}

// MulAdd implements Ops.
func (d *hostOps[F]) MulAdd(dst, t, v Buffer, s Batch, c float64) error {
	tv, dv, vv, err := d.image("mul add", s, t, dst, v)
	if err != nil {
		return err
	}
	hw, cf := s.H*s.W, F(c)
	for n := 0; n < s.N; n++ {
		dn, vn := dv[n*hw:(n+1)*hw], vv[n*hw:(n+1)*hw]
		for i, ti := range tv {
			dn[i] += cf * ti * vn[i]
		}
	}
	return nil
}

// ProductSum implements Ops.
func (d *hostOps[F]) ProductSum(dst, r, v Buffer, s Batch) error {
	dv, rv, vv, err := d.image("product sum", s, dst, r, v)
	if err != nil {
		return err
	}
	hw := s.H * s.W
	for i := range dv {
		var sum float64
		for n := 0; n < s.N; n++ {
			sum += float64(rv[n*hw+i]) * float64(vv[n*hw+i])
		}
		dv[i] = F(sum)
	}
	return nil
}

// spectra returns the values of a batch of images and of its spectra.
func (d *hostOps[F]) spectra(op string, s Batch, img, spec Buffer) ([]F, []kernels.Complex[F], error) {
	if err := s.check(op); err != nil {
		return nil, nil, err
	}
	iv, err := d.values(img, s.Len(), op, "the image batch")
	if err != nil {
		return nil, nil, err
	}
	sv, err := d.values(spec, s.N*s.SpectrumLen(), op, "the spectra")
	if err != nil {
		return nil, nil, err
	}
	return iv, kernels.ComplexView(sv), nil
}

// fftPlans keeps the host devices' FFT plans by image size and precision,
// for reuse across calls and goroutines.
var fftPlans sync.Map // fftKey → *sync.Pool of *kernels.FFT2T[F]

type fftKey struct{ h, w, size int }

// eachImageFFT runs do on every image n of s in parallel, with a plan for
// H×W images from the pool.
func eachImageFFT[F kernels.Float](s Batch, do func(f *kernels.FFT2T[F], n int)) {
	var z F
	key := fftKey{s.H, s.W, int(unsafe.Sizeof(z))}
	p, _ := fftPlans.LoadOrStore(key, &sync.Pool{New: func() any { return kernels.NewFFT2T[F](s.H, s.W) }})
	pool := p.(*sync.Pool)
	kernels.ParallelFor(s.N, func(lo, hi int) {
		f := pool.Get().(*kernels.FFT2T[F])
		defer pool.Put(f)
		for n := lo; n < hi; n++ {
			do(f, n)
		}
	})
}

// RFFT2 implements Ops.
func (d *hostOps[F]) RFFT2(spec, x Buffer, s Batch) error {
	xv, sv, err := d.spectra("rfft2", s, x, spec)
	if err != nil {
		return err
	}
	hw, sl := s.H*s.W, s.SpectrumLen()/2
	eachImageFFT(s, func(f *kernels.FFT2T[F], n int) { f.Forward(sv[n*sl:(n+1)*sl], xv[n*hw:(n+1)*hw]) })
	return nil
}

// IRFFT2 implements Ops.
func (d *hostOps[F]) IRFFT2(x, spec Buffer, s Batch) error {
	xv, sv, err := d.spectra("irfft2", s, x, spec)
	if err != nil {
		return err
	}
	hw, sl := s.H*s.W, s.SpectrumLen()/2
	eachImageFFT(s, func(f *kernels.FFT2T[F], n int) { f.Inverse(xv[n*hw:(n+1)*hw], sv[n*sl:(n+1)*sl]) })
	return nil
}

// oneSpectrum returns the values of one spectrum and of two batches of spectra.
func (d *hostOps[F]) oneSpectrum(op string, s Batch, one, b1, b2 Buffer) ([]kernels.Complex[F], []kernels.Complex[F], []kernels.Complex[F], error) {
	if err := s.check(op); err != nil {
		return nil, nil, nil, err
	}
	ov, err := d.values(one, s.SpectrumLen(), op, "the single spectrum")
	if err != nil {
		return nil, nil, nil, err
	}
	v1, err := d.values(b1, s.N*s.SpectrumLen(), op, "the first batch of spectra")
	if err != nil {
		return nil, nil, nil, err
	}
	v2, err := d.values(b2, s.N*s.SpectrumLen(), op, "the second batch of spectra")
	return kernels.ComplexView(ov), kernels.ComplexView(v1), kernels.ComplexView(v2), err
}

// SpectralMulAdd implements Ops.
func (d *hostOps[F]) SpectralMulAdd(dst, t, v Buffer, s Batch) error {
	tv, dv, vv, err := d.oneSpectrum("spectral mul add", s, t, dst, v)
	if err != nil {
		return err
	}
	sl := len(tv)
	for n := 0; n < s.N; n++ {
		dn, vn := dv[n*sl:(n+1)*sl], vv[n*sl:(n+1)*sl]
		for q, a := range tv {
			b := vn[q]
			dn[q].Re += a.Re*b.Re - a.Im*b.Im
			dn[q].Im += a.Re*b.Im + a.Im*b.Re
		}
	}
	return nil
}

// SpectralConjSum implements Ops.
func (d *hostOps[F]) SpectralConjSum(dst, v, z Buffer, s Batch) error {
	dv, vv, zv, err := d.oneSpectrum("spectral conj sum", s, dst, v, z)
	if err != nil {
		return err
	}
	sl := len(dv)
	for q := range dv {
		var re, im float64
		for n := 0; n < s.N; n++ {
			a, b := vv[n*sl+q], zv[n*sl+q]
			ar, ai, br, bi := float64(a.Re), float64(a.Im), float64(b.Re), float64(b.Im)
			re += ar*br + ai*bi
			im += ar*bi - ai*br
		}
		dv[q] = kernels.Complex[F]{Re: F(re), Im: F(im)}
	}
	return nil
}
