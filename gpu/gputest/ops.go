package gputest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// CheckOps tests the identities a gpu.Ops implementation must satisfy on
// random data of shape s, to relative tolerance tol (1e-12 suits float64
// devices, 1e-5 float32 ones): the adjoint pairs (Conv2D with
// Conv2DAdjointImage and Conv2DAdjointKernel for every boundary, Grad with
// GradAdjoint, MulAdd with ProductSum, and the spectral convolution
// IRFFT2(t·RFFT2(v)) with IRFFT2(SpectralConjSum)), the round trip
// IRFFT2(RFFT2(x)) = x, the spectral convolution against the direct circular
// convolution, Axpby, Dot and Copy against host arithmetic, a readout's sums
// (AddDot, AddSum, AddHuberValue, ZeroSums, ReadOut) against Dot, host sums
// and HuberValue, AxpyAt (where the device has gpu.SliceOps) against host
// arithmetic, and the Huber
// value, derivative and Hessian against kernels.Huber (and the Hessian's
// symmetry), and each fused operation (SpectralMulSum, AddIRFFT2,
// ConjSumIRFFT2, Conv2DResidual, GradAdjointAxpby, SetDot,
// AddHuberTV) against the operations it replaces. It returns every failure,
// joined, or nil. Buffers it allocates are freed before it returns.
func CheckOps(d gpu.Ops, s gpu.Batch, tol float64) error {
	c := &opsCheck{d: d, s: s, tol: tol, rng: rand.New(rand.NewPCG(7, uint64(s.Len())))}
	defer c.free()
	for _, f := range []func() error{c.vectors, c.convolutions, c.differences, c.pointwise, c.spectral, c.readout, c.slices, c.fused} {
		if err := f(); err != nil {
			c.errs = append(c.errs, err)
		}
	}
	return errors.Join(c.errs...)
}

type opsCheck struct {
	d    gpu.Ops
	s    gpu.Batch
	tol  float64
	rng  *rand.Rand
	bufs []gpu.Buffer
	errs []error
}

func (c *opsCheck) free() {
	for _, b := range c.bufs {
		c.d.Free(b)
	}
}

// random returns n values in [−1, 1) and a device buffer holding them (as
// the device stores them: the host copy is read back).
func (c *opsCheck) random(n int) ([]float64, gpu.Buffer, error) {
	v := make([]float64, n)
	for i := range v {
		v[i] = 2*c.rng.Float64() - 1
	}
	b, err := c.upload(v)
	if err != nil {
		return nil, nil, err
	}
	if err := c.d.CopyOut(v, b); err != nil {
		return nil, nil, err
	}
	return v, b, nil
}

func (c *opsCheck) upload(v []float64) (gpu.Buffer, error) {
	b, err := c.zeros(len(v))
	if err != nil {
		return nil, err
	}
	return b, c.d.CopyIn(b, v)
}

func (c *opsCheck) zeros(n int) (gpu.Buffer, error) {
	b, err := c.d.Alloc(n)
	if err != nil {
		return nil, err
	}
	c.bufs = append(c.bufs, b)
	return b, nil
}

func (c *opsCheck) read(b gpu.Buffer) ([]float64, error) {
	v := make([]float64, b.Len())
	return v, c.d.CopyOut(v, b)
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// close reports whether a and b agree to the tolerance relative to scale.
func (c *opsCheck) close(what string, got, want, scale float64) error {
	if math.Abs(got-want) <= c.tol*math.Max(scale, 1e-300) && !math.IsNaN(got) {
		return nil
	}
	return fmt.Errorf("%s: %.17g, want %.17g (relative difference %.3g, tolerance %.3g)", what, got, want, math.Abs(got-want)/scale, c.tol)
}

// closeVec reports whether got and want agree in the max norm relative to
// the max norm of want.
func (c *opsCheck) closeVec(what string, got, want []float64) error {
	var diff, scale float64
	for i := range want {
		diff = math.Max(diff, math.Abs(got[i]-want[i]))
		scale = math.Max(scale, math.Abs(want[i]))
		if math.IsNaN(got[i]) {
			return fmt.Errorf("%s: NaN at %d", what, i)
		}
	}
	if diff <= c.tol*math.Max(scale, 1e-300) {
		return nil
	}
	return fmt.Errorf("%s: max difference %.3g relative to %.3g, tolerance %.3g", what, diff/scale, scale, c.tol)
}

// adjoint checks ⟨y, A x⟩ = ⟨Aᵀ y, x⟩ given the four vectors.
func (c *opsCheck) adjoint(what string, y, ax, aty, x []float64) error {
	l, r := dot(y, ax), dot(aty, x)
	scale := math.Sqrt(dot(y, y)*dot(ax, ax)) + math.Sqrt(dot(aty, aty)*dot(x, x))
	return c.close(what+": ⟨y, Ax⟩ against ⟨Aᵀy, x⟩", l, r, scale)
}

func (c *opsCheck) vectors() error {
	n := c.s.Len()
	x, xb, err := c.random(n)
	if err != nil {
		return err
	}
	y, yb, err := c.random(n)
	if err != nil {
		return err
	}
	got, err := c.d.Dot(xb, yb)
	if err != nil {
		return err
	}
	if err := c.close("dot", got, dot(x, y), math.Sqrt(dot(x, x)*dot(y, y))); err != nil {
		return err
	}
	if err := c.d.Axpby(yb, 0.5, xb, -2); err != nil {
		return err
	}
	gy, err := c.read(yb)
	if err != nil {
		return err
	}
	want := make([]float64, n)
	for i := range want {
		want[i] = 0.5*x[i] - 2*y[i]
	}
	if err := c.closeVec("axpby", gy, want); err != nil {
		return err
	}
	if err := c.d.Copy(yb, xb); err != nil {
		return err
	}
	if gy, err = c.read(yb); err != nil {
		return err
	}
	return c.closeVec("copy", gy, x)
}

// convolutions checks the small convolutions with a 3×3 or 5×5 kernel and
// with a 19×19 one (larger than the CUDA device's tiles take), each boundary
// the image admits.
func (c *opsCheck) convolutions() error {
	K := 3
	if c.s.H >= 5 && c.s.W >= 5 {
		K = 5
	}
	if err := c.convolutionsK(K); err != nil {
		return err
	}
	return c.convolutionsK(19)
}

func (c *opsCheck) convolutionsK(K int) error {
	n := c.s.Len()
	x, xb, err := c.random(n)
	if err != nil {
		return err
	}
	y, yb, err := c.random(n)
	if err != nil {
		return err
	}
	k, kb, err := c.random(K * K)
	if err != nil {
		return err
	}
	out, err := c.zeros(n)
	if err != nil {
		return err
	}
	g, err := c.zeros(K * K)
	if err != nil {
		return err
	}
	for _, bd := range []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular} {
		if bd != kernels.Zero && (K/2 > c.s.H || K/2 > c.s.W) {
			continue
		}
		if err := c.d.Conv2D(out, xb, kb, c.s, K, bd); err != nil {
			return err
		}
		ax, err := c.read(out)
		if err != nil {
			return err
		}
		ref := make([]float64, n)
		if err := (kernels.Conv{N: c.s.N, H: c.s.H, W: c.s.W, K: K, Boundary: bd}).Apply(ref, x, k); err != nil {
			return err
		}
		if err := c.closeVec(fmt.Sprintf("conv2d %d×%d (%v) against kernels.Conv", K, K, bd), ax, ref); err != nil {
			return err
		}
		if err := c.d.Conv2DAdjointImage(out, yb, kb, c.s, K, bd); err != nil {
			return err
		}
		aty, err := c.read(out)
		if err != nil {
			return err
		}
		if err := c.adjoint(fmt.Sprintf("conv2d adjoint image %d×%d (%v)", K, K, bd), y, ax, aty, x); err != nil {
			return err
		}
		if err := c.d.Conv2DAdjointKernel(g, xb, yb, c.s, K, bd); err != nil {
			return err
		}
		gk, err := c.read(g)
		if err != nil {
			return err
		}
		if err := c.adjoint(fmt.Sprintf("conv2d adjoint kernel %d×%d (%v)", K, K, bd), y, ax, gk, k); err != nil {
			return err
		}
	}
	return nil
}

func (c *opsCheck) differences() error {
	n := c.s.Len()
	x, xb, err := c.random(n)
	if err != nil {
		return err
	}
	dv, db, err := c.random(2 * n)
	if err != nil {
		return err
	}
	field, err := c.zeros(2 * n)
	if err != nil {
		return err
	}
	img, err := c.zeros(n)
	if err != nil {
		return err
	}
	if err := c.d.Grad(field, xb, c.s); err != nil {
		return err
	}
	gx, err := c.read(field)
	if err != nil {
		return err
	}
	if err := c.d.GradAdjoint(img, db, c.s); err != nil {
		return err
	}
	gtd, err := c.read(img)
	if err != nil {
		return err
	}
	if err := c.adjoint("grad adjoint", dv, gx, gtd, x); err != nil {
		return err
	}
	const eps = 0.3
	vals := make([]float64, c.s.N)
	if err := c.d.HuberValue(vals, db, c.s, eps); err != nil {
		return err
	}
	want := make([]float64, c.s.N)
	if err := (kernels.Huber{Eps: eps}).Value(want, dv, c.s.N, c.s.H*c.s.W); err != nil {
		return err
	}
	if err := c.closeVec("huber value", vals, want); err != nil {
		return err
	}
	if err := c.d.HuberDerivative(field, db, c.s, eps); err != nil {
		return err
	}
	gd, err := c.read(field)
	if err != nil {
		return err
	}
	wd := make([]float64, 2*n)
	if err := (kernels.Huber{Eps: eps}).Derivative(wd, dv, c.s.N, c.s.H*c.s.W); err != nil {
		return err
	}
	if err := c.closeVec("huber derivative", gd, wd); err != nil {
		return err
	}
	// The Hessian is symmetric, ⟨u, H v⟩ = ⟨H u, v⟩, and agrees with
	// kernels.Huber.HessVec.
	u, ub, err := c.random(2 * n)
	if err != nil {
		return err
	}
	v, vb, err := c.random(2 * n)
	if err != nil {
		return err
	}
	if err := c.d.HuberHessVec(field, db, vb, c.s, eps); err != nil {
		return err
	}
	hv, err := c.read(field)
	if err != nil {
		return err
	}
	if err := c.d.HuberHessVec(field, db, ub, c.s, eps); err != nil {
		return err
	}
	hu, err := c.read(field)
	if err != nil {
		return err
	}
	if err := c.adjoint("huber hessvec symmetry", u, hv, hu, v); err != nil {
		return err
	}
	wh := make([]float64, 2*n)
	if err := (kernels.Huber{Eps: eps}).HessVec(wh, dv, u, c.s.N, c.s.H*c.s.W); err != nil {
		return err
	}
	return c.closeVec("huber hessvec against kernels.Huber", hu, wh)
}

func (c *opsCheck) pointwise() error {
	n, hw := c.s.Len(), c.s.H*c.s.W
	t, tb, err := c.random(hw)
	if err != nil {
		return err
	}
	_, vb, err := c.random(n)
	if err != nil {
		return err
	}
	r, rb, err := c.random(n)
	if err != nil {
		return err
	}
	// Into a nonzero destination with c = −0.7, against host arithmetic.
	d0, db, err := c.random(n)
	if err != nil {
		return err
	}
	if err := c.d.MulAdd(db, tb, vb, c.s, -0.7); err != nil {
		return err
	}
	got, err := c.read(db)
	if err != nil {
		return err
	}
	vv, err := c.read(vb)
	if err != nil {
		return err
	}
	want := make([]float64, n)
	for i := range want {
		want[i] = d0[i] - 0.7*t[i%hw]*vv[i]
	}
	if err := c.closeVec("mul add into a nonzero destination", got, want); err != nil {
		return err
	}
	out, err := c.zeros(n)
	if err != nil {
		return err
	}
	if err := c.d.MulAdd(out, tb, vb, c.s, 1); err != nil {
		return err
	}
	tv, err := c.read(out)
	if err != nil {
		return err
	}
	sum, err := c.zeros(hw)
	if err != nil {
		return err
	}
	if err := c.d.ProductSum(sum, rb, vb, c.s); err != nil {
		return err
	}
	g, err := c.read(sum)
	if err != nil {
		return err
	}
	return c.adjoint("mul add against product sum", r, tv, g, t)
}

// circular returns the circular convolution (θ ⊛ v)[i,j] = Σ θ[a,b]·v[i−a, j−b]
// of one image.
func circular(theta, v []float64, h, w int) []float64 {
	out := make([]float64, h*w)
	for i := 0; i < h; i++ {
		for j := 0; j < w; j++ {
			var s float64
			for a := 0; a < h; a++ {
				for b := 0; b < w; b++ {
					s += theta[a*w+b] * v[((i-a+h)%h)*w+(j-b+w)%w]
				}
			}
			out[i*w+j] = s
		}
	}
	return out
}

func (c *opsCheck) spectral() error {
	s := c.s
	n, hw, sl := s.Len(), s.H*s.W, s.SpectrumLen()
	one := gpu.Batch{N: 1, H: s.H, W: s.W}
	theta, thb, err := c.random(hw)
	if err != nil {
		return err
	}
	v, vb, err := c.random(n)
	if err != nil {
		return err
	}
	r, rb, err := c.random(n)
	if err != nil {
		return err
	}
	vs, err := c.zeros(s.N * sl)
	if err != nil {
		return err
	}
	ts, err := c.zeros(sl)
	if err != nil {
		return err
	}
	prod, err := c.zeros(s.N * sl)
	if err != nil {
		return err
	}
	img, err := c.zeros(n)
	if err != nil {
		return err
	}
	if err := c.d.RFFT2(vs, vb, s); err != nil {
		return err
	}
	if err := c.d.Copy(prod, vs); err != nil {
		return err
	}
	if err := c.d.IRFFT2(img, prod, s); err != nil {
		return err
	}
	back, err := c.read(img)
	if err != nil {
		return err
	}
	if err := c.closeVec("irfft2(rfft2(x))", back, v); err != nil {
		return err
	}
	if err := c.d.RFFT2(ts, thb, one); err != nil {
		return err
	}
	// Into a nonzero destination, against host complex arithmetic.
	p0, pb, err := c.random(s.N * sl)
	if err != nil {
		return err
	}
	if err := c.d.SpectralMulAdd(pb, ts, vs, s); err != nil {
		return err
	}
	gotP, err := c.read(pb)
	if err != nil {
		return err
	}
	tsv, err := c.read(ts)
	if err != nil {
		return err
	}
	vsv, err := c.read(vs)
	if err != nil {
		return err
	}
	wantP := make([]float64, len(p0))
	for q := 0; q < len(p0)/2; q++ {
		a := q % (sl / 2)
		ar, ai, br, bi := tsv[2*a], tsv[2*a+1], vsv[2*q], vsv[2*q+1]
		wantP[2*q] = p0[2*q] + ar*br - ai*bi
		wantP[2*q+1] = p0[2*q+1] + ar*bi + ai*br
	}
	if err := c.closeVec("spectral mul add into a nonzero destination", gotP, wantP); err != nil {
		return err
	}
	if err := c.d.Zero(prod); err != nil {
		return err
	}
	if err := c.d.SpectralMulAdd(prod, ts, vs, s); err != nil {
		return err
	}
	if err := c.d.IRFFT2(img, prod, s); err != nil {
		return err
	}
	conv, err := c.read(img)
	if err != nil {
		return err
	}
	want := make([]float64, 0, n)
	for k := 0; k < s.N; k++ {
		want = append(want, circular(theta, v[k*hw:(k+1)*hw], s.H, s.W)...)
	}
	if err := c.closeVec("irfft2(t·rfft2(v)) against the circular convolution", conv, want); err != nil {
		return err
	}
	if err := c.d.RFFT2(prod, rb, s); err != nil {
		return err
	}
	if err := c.d.SpectralConjSum(ts, vs, prod, s); err != nil {
		return err
	}
	gimg, err := c.zeros(hw)
	if err != nil {
		return err
	}
	if err := c.d.IRFFT2(gimg, ts, one); err != nil {
		return err
	}
	g, err := c.read(gimg)
	if err != nil {
		return err
	}
	return c.adjoint("spectral conj sum against spectral mul add", r, conv, g, theta)
}
