package problem

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gorgonia.org/tensor"
)

// Operator is the forward operator A of an inverse problem: a linear map from
// batches of H×W images [N,H,W] to batches of data [N, DataShape...].
type Operator interface {
	graph.LinearMap
	// DataShape is the shape of A x for one H×W image.
	DataShape(h, w int) []int
}

// batchShape returns [n, shape...].
func batchShape(n int, shape ...int) tensor.Shape {
	return append(tensor.Shape{n}, shape...)
}

// Identity is A = I (denoising).
type Identity struct{}

func (Identity) String() string { return "identity" }

// DataShape implements Operator.
func (Identity) DataShape(h, w int) []int { return []int{h, w} }

// OutShape implements graph.LinearMap.
func (Identity) OutShape(in tensor.Shape) (tensor.Shape, error) { return in.Clone(), nil }

// Apply implements graph.LinearMap.
func (Identity) Apply(dst, src []float64, _ tensor.Shape) error { copy(dst, src); return nil }

// Adjoint implements graph.LinearMap.
func (Identity) Adjoint(dst, src []float64, _ tensor.Shape) error { copy(dst, src); return nil }

// Blur is convolution with a small kernel and a boundary rule. Kernels of
// rank one (Gaussian blurs) are applied separably, a pass along rows and one
// along columns.
type Blur struct {
	graph.FixedConv
	sep *separable // nil: not of rank one (or not built by NewBlur)
}

// Apply implements graph.LinearMap.
func (b *Blur) Apply(dst, src []float64, in tensor.Shape) error {
	return b.applySeparable(dst, src, in, 1, false)
}

// Adjoint implements graph.LinearMap.
func (b *Blur) Adjoint(dst, src []float64, in tensor.Shape) error {
	return b.applySeparable(dst, src, in, 1, true)
}

// applySeparable writes s·A src (or s·Aᵀ src) into dst.
func (b *Blur) applySeparable(dst, src []float64, in tensor.Shape, s float64, adjoint bool) error {
	if b.sep == nil {
		var err error
		if adjoint {
			err = b.FixedConv.Adjoint(dst, src, in)
		} else {
			err = b.FixedConv.Apply(dst, src, in)
		}
		if err == nil && s != 1 {
			floats.Scale(s, dst)
		}
		return err
	}
	if _, err := b.FixedConv.OutShape(in); err != nil {
		return err
	}
	n, h, w := 1, in[0], in[1]
	if in.Dims() == 3 {
		n, h, w = in[0], in[1], in[2]
	}
	if len(src) != n*h*w || len(dst) != n*h*w {
		return fmt.Errorf("blur %s: got %d and %d values for a batch %v", b.Name, len(src), len(dst), in)
	}
	hw := h * w
	kernels.ParallelFor(n, func(lo, hi int) {
		var sc blurScratch
		for k := lo; k < hi; k++ {
			if adjoint {
				b.sep.adjointImage(dst[k*hw:(k+1)*hw], src[k*hw:(k+1)*hw], h, w, s, &sc)
			} else {
				b.sep.applyImage(dst[k*hw:(k+1)*hw], src[k*hw:(k+1)*hw], h, w, s, &sc)
			}
		}
	})
	return nil
}

// NewBlur returns the blur with the given K×K kernel (row-major).
func NewBlur(name string, kernel []float64, k int, b kernels.Boundary) (*Blur, error) {
	if k < 1 || k%2 == 0 || len(kernel) != k*k {
		return nil, fmt.Errorf("blur %s: kernel of %d values is not an odd K×K square (K=%d)", name, len(kernel), k)
	}
	bl := &Blur{FixedConv: graph.FixedConv{Kernel: append([]float64(nil), kernel...), K: k, Boundary: b, Name: name}}
	if col, row, ok := factorRankOne(kernel, k); ok {
		bl.sep = &separable{col: col, row: row, k: k, boundary: b}
	}
	return bl, nil
}

// GaussianKernel returns a K×K Gaussian kernel with standard deviation sigma
// (in pixels), normalised to sum 1.
func GaussianKernel(k int, sigma float64) []float64 {
	out, _ := gaussianKernel(k, sigma)
	return out
}

// CheckGaussianWidth refuses a width σ whose k×k Gaussian kernel cannot be
// sampled and normalised: σ ≤ 0, not finite, or so small that 2σ² is 0
// (1e-300: every weight but the centre's is 0/0).
func CheckGaussianWidth(k int, sigma float64) error {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return fmt.Errorf("blur width σ = %g must be a finite value > 0", sigma)
	}
	if _, ok := gaussianKernel(k, sigma); !ok {
		return fmt.Errorf("blur width σ = %g: its %d×%d Gaussian kernel cannot be sampled and normalised (2σ² = %g); give a width of at least 1e-150", sigma, k, k, 2*sigma*sigma)
	}
	return nil
}

// gaussianKernel is GaussianKernel and whether every weight is finite.
func gaussianKernel(k int, sigma float64) ([]float64, bool) {
	out := make([]float64, k*k)
	c := float64(k / 2)
	var s float64
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			di, dj := float64(i)-c, float64(j)-c
			v := math.Exp(-(di*di + dj*dj) / (2 * sigma * sigma))
			out[i*k+j] = v
			s += v
		}
	}
	ok := s > 0 && !math.IsInf(s, 0)
	for i := range out {
		out[i] /= s
		ok = ok && !math.IsNaN(out[i]) && !math.IsInf(out[i], 0)
	}
	return out, ok
}

// DataShape implements Operator.
func (*Blur) DataShape(h, w int) []int { return []int{h, w} }

// Scaled is the operator s·A.
type Scaled struct {
	Op    Operator
	Scale float64
}

func (s *Scaled) String() string { return fmt.Sprintf("%.17g*%s", s.Scale, s.Op) }

// DataShape implements Operator.
func (s *Scaled) DataShape(h, w int) []int { return s.Op.DataShape(h, w) }

// OutShape implements graph.LinearMap.
func (s *Scaled) OutShape(in tensor.Shape) (tensor.Shape, error) { return s.Op.OutShape(in) }

// Apply implements graph.LinearMap.
func (s *Scaled) Apply(dst, src []float64, in tensor.Shape) error {
	if err := s.Op.Apply(dst, src, in); err != nil {
		return err
	}
	floats.Scale(s.Scale, dst)
	return nil
}

// Adjoint implements graph.LinearMap.
func (s *Scaled) Adjoint(dst, src []float64, in tensor.Shape) error {
	if err := s.Op.Adjoint(dst, src, in); err != nil {
		return err
	}
	floats.Scale(s.Scale, dst)
	return nil
}

// OperatorNorm computes ‖A‖ on H×W images: the square root of the largest
// eigenvalue of AᵀA, by the Lanczos method with full reorthogonalisation
// (far faster than power iteration when the top singular values cluster, as
// for blurs). It stops when the estimate changes by less than tol relative
// between restarts or after iters Lanczos steps.
func OperatorNorm(a Operator, h, w, iters int, tol float64, seed uint64) (float64, error) {
	return operatorNorm(a, h, w, iters, tol, seed, reorthogonalise)
}

// operatorNorm is OperatorNorm with the reorthogonalisation reorth.
func operatorNorm(a Operator, h, w, iters int, tol float64, seed uint64, reorth func(z []float64, basis [][]float64) float64) (float64, error) {
	in := tensor.Shape{1, h, w}
	out, err := a.OutShape(in)
	if err != nil {
		return 0, fmt.Errorf("norm of %s: %w", a, err)
	}
	n := h * w
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	q := make([]float64, n)
	for i := range q {
		q[i] = r.NormFloat64()
	}
	floats.Scale(1/math.Sqrt(kernels.Dot(q, q)), q)
	av := make([]float64, out.TotalSize())
	apply := func(dst, src []float64) error {
		if err := a.Apply(av, src, in); err != nil {
			return err
		}
		return a.Adjoint(dst, av, in)
	}
	var basis [][]float64
	var alpha, beta []float64
	prev := math.NaN()
	z := make([]float64, n)
	maxSteps := min(iters, n)
	for k := 0; k < maxSteps; k++ {
		basis = append(basis, append([]float64(nil), q...))
		if err := apply(z, q); err != nil {
			return 0, err
		}
		alpha = append(alpha, kernels.Dot(q, z))
		bk := math.Sqrt(reorth(z, basis))
		if k%10 == 9 || bk < 1e-14 || k == maxSteps-1 {
			lam := largestTridiagonal(alpha, beta)
			if bk < 1e-14 || (!math.IsNaN(prev) && math.Abs(lam-prev) <= tol*lam) {
				return math.Sqrt(lam), nil
			}
			prev = lam
		}
		beta = append(beta, bk)
		for i := range q {
			q[i] = z[i] / bk
		}
	}
	return math.Sqrt(prev), nil
}

// reorthogonalise removes from z its components along the orthonormal
// basis, twice over (full reorthogonalisation): z −= (b·z)·b for each b in
// turn, each coefficient taken from the z the previous step left; it
// returns z·z. Each step is fused with the next dot product (kernels.AxpyDot:
// one pass over z), bit for bit the two passes a step of the plain loop
// (tests: reorthogonaliseTwoPass).
func reorthogonalise(z []float64, basis [][]float64) float64 {
	m := len(basis)
	if m == 0 {
		return kernels.Dot(z, z)
	}
	c := kernels.Dot(basis[0], z)
	for k := 0; k < 2*m-1; k++ {
		c = kernels.AxpyDot(z, -c, basis[k%m], basis[(k+1)%m])
	}
	return kernels.AxpyDot(z, -c, basis[m-1], z)
}

// largestTridiagonal returns the largest eigenvalue of the symmetric
// tridiagonal matrix with diagonal a and off-diagonal b (len(b) = len(a) − 1).
func largestTridiagonal(a, b []float64) float64 {
	k := len(a)
	t := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		t.SetSym(i, i, a[i])
		if i+1 < k {
			t.SetSym(i, i+1, b[i])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(t, false) {
		return math.NaN()
	}
	vals := eig.Values(nil)
	return vals[len(vals)-1]
}

// Normalize returns A/‖A‖ (‖·‖ on H×W images by power iteration) and ‖A‖.
func Normalize(a Operator, h, w int) (Operator, float64, error) {
	nrm, err := OperatorNorm(a, h, w, 500, 1e-15, 1)
	if err != nil {
		return nil, 0, err
	}
	if nrm == 0 || math.IsNaN(nrm) {
		return nil, 0, fmt.Errorf("operator %s has norm %g and cannot be normalised", a, nrm)
	}
	return &Scaled{Op: a, Scale: 1 / nrm}, nrm, nil
}
