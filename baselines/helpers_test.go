package baselines

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/problem"
	"gonum.org/v1/gonum/mat"
	"gorgonia.org/tensor"
)

// quadratic is a least-squares objective with its minimisers computed
// independently from the dense normal equations.
type quadratic struct {
	o     *problem.Objective
	xstar []float64 // [N,H,W]
	fstar []float64
}

// testKernel is a 3×3 kernel with a dominant centre, so that A is well
// conditioned (strictly diagonally dominant).
func testKernel() []float64 {
	k := make([]float64, 9)
	for i := range k {
		k[i] = 0.05
	}
	k[4] = 0.6
	return k
}

// newQuadratic builds f_k(x) = ½‖A x − y_k‖² for a 3×3 blur on h×w images.
func newQuadratic(t testing.TB, n, h, w int, b kernels.Boundary, seed uint64) *quadratic {
	t.Helper()
	blur, err := problem.NewBlur("test3", testKernel(), 3, b)
	if err != nil {
		t.Fatal(err)
	}
	hw := h * w
	// Dense A, column by column.
	a := mat.NewDense(hw, hw, nil)
	e, col := make([]float64, hw), make([]float64, hw)
	for j := 0; j < hw; j++ {
		clear(e)
		e[j] = 1
		if err := blur.Apply(col, e, tensor.Shape{1, h, w}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < hw; i++ {
			a.Set(i, j, col[i])
		}
	}
	var ata mat.SymDense
	ata.SymOuterK(1, a.T())
	var eig mat.EigenSym
	if !eig.Factorize(&ata, false) {
		t.Fatal("eigen decomposition failed")
	}
	vals := eig.Values(nil)
	lmax := vals[len(vals)-1]

	r := rand.New(rand.NewPCG(seed, 7))
	y := make([]float64, n*hw)
	for i := range y {
		y[i] = r.Float64()
	}
	q := &quadratic{
		o: &problem.Objective{
			A: blur, Reg: problem.NoRegularizer{}, N: n, H: h, W: w,
			Y: y, X0: make([]float64, n*hw), L: lmax, NormA: math.Sqrt(lmax),
		},
		xstar: make([]float64, n*hw),
		fstar: make([]float64, n),
	}
	var chol mat.Cholesky
	if !chol.Factorize(&ata) {
		t.Fatal("AᵀA is not positive definite")
	}
	for k := 0; k < n; k++ {
		yk := mat.NewVecDense(hw, y[k*hw:(k+1)*hw])
		var aty, xs, res mat.VecDense
		aty.MulVec(a.T(), yk)
		if err := chol.SolveVecTo(&xs, &aty); err != nil {
			t.Fatal(err)
		}
		res.MulVec(a, &xs)
		res.SubVec(&res, yk)
		q.fstar[k] = 0.5 * mat.Dot(&res, &res)
		for i := 0; i < hw; i++ {
			q.xstar[k*hw+i] = xs.AtVec(i)
		}
	}
	return q
}

// deblur returns a tiny instance of Problem 1 (Huber-TV deblurring).
func deblur(t testing.TB, n, size int) *problem.Objective {
	t.Helper()
	p, err := problem.Deblur(problem.Options{H: size})
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, pix, err := data.Stack(data.Synthetic(n, size, size, 3))
	if err != nil {
		t.Fatal(err)
	}
	o, err := p.Instantiate(pix, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// relDist returns ‖a_k − b_k‖/‖b_k‖ maximised over the images k of h·w values.
func relDist(a, b []float64, hw int) float64 {
	worst := 0.0
	for k := 0; k*hw < len(a); k++ {
		var d, nb float64
		for i := k * hw; i < (k+1)*hw; i++ {
			d += (a[i] - b[i]) * (a[i] - b[i])
			nb += b[i] * b[i]
		}
		worst = math.Max(worst, math.Sqrt(d/nb))
	}
	return worst
}

func values(t testing.TB, o *problem.Objective, x []float64) (f, g []float64) {
	t.Helper()
	f, g = make([]float64, o.N), make([]float64, len(x))
	if err := o.Eval(f, g, x, nil); err != nil {
		t.Fatal(err)
	}
	return f, g
}

// diagOp is A = diag(d) applied to every h×w image (len(d) = h·w).
type diagOp struct{ d []float64 }

func (diagOp) String() string                                 { return "diag-test" }
func (diagOp) DataShape(h, w int) []int                       { return []int{h, w} }
func (diagOp) OutShape(in tensor.Shape) (tensor.Shape, error) { return in.Clone(), nil }
func (a diagOp) Apply(dst, src []float64, _ tensor.Shape) error {
	for i, v := range src {
		dst[i] = a.d[i%len(a.d)] * v
	}
	return nil
}
func (a diagOp) Adjoint(dst, src []float64, in tensor.Shape) error { return a.Apply(dst, src, in) }

// newIllQuadratic builds f_k(x) = ½‖D x − y_k‖² on h×w images with D
// diagonal and the eigenvalues d_i² of DᵀD spread geometrically over
// [1/kappa, 1]: L = 1, μ = 1/kappa, x*_k = y_k/d and f*_k = 0.
func newIllQuadratic(t testing.TB, n, h, w int, kappa float64, seed uint64) *quadratic {
	t.Helper()
	hw := h * w
	d := make([]float64, hw)
	r := rand.New(rand.NewPCG(seed, 11))
	for i := range d {
		// A random order of the eigenvalues, so that no image region is special.
		d[i] = math.Sqrt(math.Pow(kappa, -float64(i)/float64(hw-1)))
	}
	r.Shuffle(hw, func(i, j int) { d[i], d[j] = d[j], d[i] })
	y := make([]float64, n*hw)
	xs := make([]float64, n*hw)
	for i := range y {
		y[i] = r.Float64()
		xs[i] = y[i] / d[i%hw]
	}
	return &quadratic{
		o: &problem.Objective{
			A: diagOp{d}, Reg: problem.NoRegularizer{}, N: n, H: h, W: w,
			Y: y, X0: make([]float64, n*hw), L: 1, NormA: 1,
		},
		xstar: xs,
		fstar: make([]float64, n),
	}
}

// optimality returns the mean of (f_k(x_k) − f*_k)/(f_k(x_k⁰) − f*_k).
func optimality(t testing.TB, o *problem.Objective, fstar, x []float64) float64 {
	t.Helper()
	f, _ := values(t, o, x)
	f0, _ := values(t, o, o.X0)
	var s float64
	for k := range f {
		s += (f[k] - fstar[k]) / (f0[k] - fstar[k])
	}
	return s / float64(len(f))
}
