package graph

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/kernels"
	"gorgonia.org/tensor"
)

// imageBatch returns N, H, W of a shape [N,H,W] (or [H,W] as N = 1).
func imageBatch(s tensor.Shape) (n, h, w int, err error) {
	switch s.Dims() {
	case 2:
		return 1, s[0], s[1], nil
	case 3:
		return s[0], s[1], s[2], nil
	}
	return 0, 0, 0, fmt.Errorf("want an image batch [N,H,W], got shape %v", s)
}

// Diff is the forward-difference operator D: [N,H,W] → [N,2,H,W] with
// Neumann boundary (last difference zero).
type Diff struct{}

func (Diff) String() string { return "D" }

// OutShape implements LinearMap.
func (Diff) OutShape(in tensor.Shape) (tensor.Shape, error) {
	n, h, w, err := imageBatch(in)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{n, 2, h, w}, nil
}

// Apply implements LinearMap.
func (Diff) Apply(dst, src []float64, in tensor.Shape) error {
	n, h, w, err := imageBatch(in)
	if err != nil {
		return err
	}
	return kernels.Grad(dst, src, n, h, w)
}

// Adjoint implements LinearMap.
func (Diff) Adjoint(dst, src []float64, in tensor.Shape) error {
	n, h, w, err := imageBatch(in)
	if err != nil {
		return err
	}
	return kernels.GradAdjoint(dst, src, n, h, w)
}

// FixedConv is convolution of every image of a batch with a fixed small kernel
// (a blur, for instance), as a LinearMap.
type FixedConv struct {
	Kernel   []float64 // K×K, row-major
	K        int
	Boundary kernels.Boundary
	Name     string // identifies the kernel in graph hashes; must differ between different kernels
}

func (c *FixedConv) String() string {
	return fmt.Sprintf("conv(%s,%d,%v)", c.Name, c.K, c.Boundary)
}

func (c *FixedConv) conv(in tensor.Shape) (kernels.Conv, error) {
	n, h, w, err := imageBatch(in)
	if err != nil {
		return kernels.Conv{}, err
	}
	kc := kernels.Conv{N: n, H: h, W: w, K: c.K, Boundary: c.Boundary}
	return kc, kc.Validate()
}

// OutShape implements LinearMap.
func (c *FixedConv) OutShape(in tensor.Shape) (tensor.Shape, error) {
	if _, err := c.conv(in); err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Apply implements LinearMap.
func (c *FixedConv) Apply(dst, src []float64, in tensor.Shape) error {
	kc, err := c.conv(in)
	if err != nil {
		return err
	}
	return kc.Apply(dst, src, c.Kernel)
}

// Adjoint implements LinearMap.
func (c *FixedConv) Adjoint(dst, src []float64, in tensor.Shape) error {
	kc, err := c.conv(in)
	if err != nil {
		return err
	}
	return kc.AdjointImage(dst, src, c.Kernel)
}

// SmallConv is the bilinear map (k, x) ↦ k ⋆ x of a K×K kernel with a batch of
// images, with the given boundary.
type SmallConv struct {
	Boundary kernels.Boundary
}

func (c SmallConv) String() string { return fmt.Sprintf("smallconv(%v)", c.Boundary) }

func (c SmallConv) conv(sa, sb tensor.Shape) (kernels.Conv, error) {
	n, h, w, err := imageBatch(sb)
	if err != nil {
		return kernels.Conv{}, err
	}
	if sa.Dims() != 2 || sa[0] != sa[1] {
		return kernels.Conv{}, fmt.Errorf("kernel shape %v is not square K×K", sa)
	}
	kc := kernels.Conv{N: n, H: h, W: w, K: sa[0], Boundary: c.Boundary}
	return kc, kc.Validate()
}

// OutShape implements BilinearMap.
func (c SmallConv) OutShape(sa, sb tensor.Shape) (tensor.Shape, error) {
	if _, err := c.conv(sa, sb); err != nil {
		return nil, err
	}
	return sb.Clone(), nil
}

// Apply implements BilinearMap.
func (c SmallConv) Apply(dst, a, b []float64, sa, sb tensor.Shape) error {
	kc, err := c.conv(sa, sb)
	if err != nil {
		return err
	}
	return kc.Apply(dst, b, a)
}

// AdjointA implements BilinearMap.
func (c SmallConv) AdjointA(dst, out, b []float64, sa, sb tensor.Shape) error {
	kc, err := c.conv(sa, sb)
	if err != nil {
		return err
	}
	return kc.AdjointKernel(dst, b, out)
}

// AdjointB implements BilinearMap.
func (c SmallConv) AdjointB(dst, a, out []float64, sa, sb tensor.Shape) error {
	kc, err := c.conv(sa, sb)
	if err != nil {
		return err
	}
	return kc.AdjointImage(dst, out, a)
}

// Scale is the bilinear map (s, x) ↦ s·x of a scalar (shape [1]) with a tensor.
type Scale struct{}

func (Scale) String() string { return "scale" }

// OutShape implements BilinearMap.
func (Scale) OutShape(sa, sb tensor.Shape) (tensor.Shape, error) {
	if sa.TotalSize() != 1 {
		return nil, fmt.Errorf("scale factor has shape %v, want one value", sa)
	}
	return sb.Clone(), nil
}

// Apply implements BilinearMap.
func (Scale) Apply(dst, a, b []float64, sa, sb tensor.Shape) error {
	s := a[0]
	for i, v := range b {
		dst[i] = s * v
	}
	return nil
}

// AdjointA implements BilinearMap.
func (Scale) AdjointA(dst, out, b []float64, sa, sb tensor.Shape) error {
	dst[0] = kernels.Dot(out, b)
	return nil
}

// AdjointB implements BilinearMap.
func (Scale) AdjointB(dst, a, out []float64, sa, sb tensor.Shape) error {
	return Scale{}.Apply(dst, a, out, sa, sb)
}

// Pointwise is the bilinear map (p, x) ↦ p ⊙ x_n of an [H,W] weight with every
// image of an [N,H,W] batch.
type Pointwise struct{}

func (Pointwise) String() string { return "pointwise" }

// OutShape implements BilinearMap.
func (Pointwise) OutShape(sa, sb tensor.Shape) (tensor.Shape, error) {
	_, h, w, err := imageBatch(sb)
	if err != nil {
		return nil, err
	}
	if sa.TotalSize() != h*w {
		return nil, fmt.Errorf("pointwise weight has shape %v, want %d×%d", sa, h, w)
	}
	return sb.Clone(), nil
}

// Apply implements BilinearMap.
func (Pointwise) Apply(dst, a, b []float64, sa, sb tensor.Shape) error {
	hw := len(a)
	for n := 0; n*hw < len(b); n++ {
		bn, dn := b[n*hw:(n+1)*hw], dst[n*hw:(n+1)*hw]
		for i, p := range a {
			dn[i] = p * bn[i]
		}
	}
	return nil
}

// AdjointA implements BilinearMap.
func (Pointwise) AdjointA(dst, out, b []float64, sa, sb tensor.Shape) error {
	hw := len(dst)
	clear(dst)
	for n := 0; n*hw < len(b); n++ {
		bn, on := b[n*hw:(n+1)*hw], out[n*hw:(n+1)*hw]
		for i := range dst {
			dst[i] += on[i] * bn[i]
		}
	}
	return nil
}

// AdjointB implements BilinearMap.
func (Pointwise) AdjointB(dst, a, out []float64, sa, sb tensor.Shape) error {
	return Pointwise{}.Apply(dst, a, out, sa, sb)
}

// Matrix is the bilinear map (M, x) ↦ M vec(x_n) of an n×n matrix (n = H·W)
// with every image of a batch.
type Matrix struct{}

func (Matrix) String() string { return "matrix" }

// OutShape implements BilinearMap.
func (Matrix) OutShape(sa, sb tensor.Shape) (tensor.Shape, error) {
	_, h, w, err := imageBatch(sb)
	if err != nil {
		return nil, err
	}
	if sa.Dims() != 2 || sa[0] != h*w || sa[1] != h*w {
		return nil, fmt.Errorf("matrix has shape %v, want %d×%d", sa, h*w, h*w)
	}
	return sb.Clone(), nil
}

// Apply implements BilinearMap.
func (Matrix) Apply(dst, a, b []float64, sa, sb tensor.Shape) error {
	m := sa[0]
	kernels.ParallelFor(len(b)/m, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			bn, dn := b[n*m:(n+1)*m], dst[n*m:(n+1)*m]
			for i := range dn {
				dn[i] = kernels.Dot(a[i*m:(i+1)*m], bn)
			}
		}
	})
	return nil
}

// AdjointA implements BilinearMap: Σ_n out_n b_nᵀ.
func (Matrix) AdjointA(dst, out, b []float64, sa, sb tensor.Shape) error {
	m := sa[0]
	clear(dst)
	kernels.ParallelFor(m, func(lo, hi int) {
		for n := 0; n*m < len(b); n++ {
			bn, on := b[n*m:(n+1)*m], out[n*m:(n+1)*m]
			for i := lo; i < hi; i++ {
				oi := on[i]
				row := dst[i*m : (i+1)*m]
				for j, bv := range bn {
					row[j] += oi * bv
				}
			}
		}
	})
	return nil
}

// AdjointB implements BilinearMap: Mᵀ out_n.
func (Matrix) AdjointB(dst, a, out []float64, sa, sb tensor.Shape) error {
	m := sa[0]
	kernels.ParallelFor(len(out)/m, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			on, dn := out[n*m:(n+1)*m], dst[n*m:(n+1)*m]
			clear(dn)
			for i, oi := range on {
				row := a[i*m : (i+1)*m]
				for j, av := range row {
					dn[j] += oi * av
				}
			}
		}
	})
	return nil
}

// Outer is the bilinear map (a, b) ↦ a bᵀ of two vectors, a [H] and b [W],
// to an [H,W] matrix: (a bᵀ)[i,j] = a_i b_j. Its adjoints are c b and cᵀ a.
// (gorgonia's OuterProd differentiates wrongly in v0.9.18: it returns a·c
// for a and b·c for b, which swaps the gradients when H = W and fails with a
// shape mismatch otherwise.)
type Outer struct{}

func (Outer) String() string { return "outer" }

// OutShape implements BilinearMap.
func (Outer) OutShape(sa, sb tensor.Shape) (tensor.Shape, error) {
	if sa.Dims() != 1 || sb.Dims() != 1 {
		return nil, fmt.Errorf("outer product of shapes %v and %v: want two vectors", sa, sb)
	}
	return tensor.Shape{sa[0], sb[0]}, nil
}

// Apply implements BilinearMap.
func (Outer) Apply(dst, a, b []float64, sa, sb tensor.Shape) error {
	w := len(b)
	for i, ai := range a {
		row := dst[i*w : (i+1)*w]
		for j, bj := range b {
			row[j] = ai * bj
		}
	}
	return nil
}

// AdjointA implements BilinearMap: dst = c b.
func (Outer) AdjointA(dst, c, b []float64, sa, sb tensor.Shape) error {
	w := len(b)
	for i := range dst {
		dst[i] = kernels.Dot(c[i*w:(i+1)*w], b)
	}
	return nil
}

// AdjointB implements BilinearMap: dst = cᵀ a.
func (Outer) AdjointB(dst, a, c []float64, sa, sb tensor.Shape) error {
	w := len(dst)
	clear(dst)
	for i, ai := range a {
		row := c[i*w : (i+1)*w]
		for j, v := range row {
			dst[j] += ai * v
		}
	}
	return nil
}

// HuberTV is the isotropic Huber potential of a gradient field [N,2,H,W].
type HuberTV struct{ Eps float64 }

func (p HuberTV) String() string { return fmt.Sprintf("huber(%g)", p.Eps) }

func (p HuberTV) dims(s tensor.Shape) (n, hw int, err error) {
	if s.Dims() != 4 || s[1] != 2 {
		return 0, 0, fmt.Errorf("gradient field must have shape [N,2,H,W], got %v", s)
	}
	return s[0], s[2] * s[3], nil
}

// Value implements Potential.
func (p HuberTV) Value(z []float64, s tensor.Shape) (float64, error) {
	n, hw, err := p.dims(s)
	if err != nil {
		return 0, err
	}
	vals := make([]float64, n)
	if err := (kernels.Huber{Eps: p.Eps}).Value(vals, z, n, hw); err != nil {
		return 0, err
	}
	var sum float64
	for _, v := range vals {
		sum += v
	}
	return sum, nil
}

// Derivative implements Potential.
func (p HuberTV) Derivative(dst, z []float64, s tensor.Shape) error {
	n, hw, err := p.dims(s)
	if err != nil {
		return err
	}
	return kernels.Huber{Eps: p.Eps}.Derivative(dst, z, n, hw)
}

// HessVec implements Potential.
func (p HuberTV) HessVec(dst, z, u []float64, s tensor.Shape) error {
	n, hw, err := p.dims(s)
	if err != nil {
		return err
	}
	return kernels.Huber{Eps: p.Eps}.HessVec(dst, z, u, n, hw)
}

// PiecewiseQuadratic implements Potential: the isotropic Huber potential is not.
func (HuberTV) PiecewiseQuadratic() bool { return false }

// SquaredNorm is the potential ½ Σ z², whose derivative is z.
type SquaredNorm struct{}

func (SquaredNorm) String() string { return "halfsq" }

// Value implements Potential.
func (SquaredNorm) Value(z []float64, _ tensor.Shape) (float64, error) {
	return 0.5 * kernels.Dot(z, z), nil
}

// Derivative implements Potential.
func (SquaredNorm) Derivative(dst, z []float64, _ tensor.Shape) error {
	copy(dst, z)
	return nil
}

// HessVec implements Potential.
func (SquaredNorm) HessVec(dst, _, u []float64, _ tensor.Shape) error {
	copy(dst, u)
	return nil
}

// PiecewiseQuadratic implements Potential.
func (SquaredNorm) PiecewiseQuadratic() bool { return true }
