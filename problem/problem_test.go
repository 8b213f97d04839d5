package problem

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	"gonum.org/v1/gonum/mat"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func randVec(r *rand.Rand, n int, s float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = s * r.NormFloat64()
	}
	return v
}

func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300)
}

func smallDeblur(t *testing.T, n, h int) *Objective {
	t.Helper()
	p, err := Deblur(Options{H: h})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	truth := make([]float64, n*h*h)
	for i := range truth {
		truth[i] = 0.5 + 0.3*math.Sin(float64(i)*0.37) + 0.05*r.NormFloat64()
	}
	o, err := p.Instantiate(truth, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOperatorsAdjointAndNormalised(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, b := range []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular} {
		blur, err := NewBlur("g", GaussianKernel(5, 1.5), 5, b)
		if err != nil {
			t.Fatal(err)
		}
		a, _, err := Normalize(blur, 12, 10)
		if err != nil {
			t.Fatal(err)
		}
		nrm, err := OperatorNorm(a, 12, 10, 3000, 1e-14, 9)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(nrm-1) > 1e-8 {
			t.Errorf("%v: ‖A‖ = %.12g after normalisation, want 1", b, nrm)
		}
		in := tensor.Shape{3, 12, 10}
		x, y := randVec(r, 360, 1), randVec(r, 360, 1)
		ax, aty := make([]float64, 360), make([]float64, 360)
		_ = a.Apply(ax, x, in)
		_ = a.Adjoint(aty, y, in)
		if d := relDiff(kernels.Dot(ax, y), kernels.Dot(x, aty)); d > 1e-12 {
			t.Errorf("%v: adjoint identity off by %g", b, d)
		}
	}
}

func TestDeblurConstants(t *testing.T) {
	p, err := Deblur(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.H != 96 || p.W != 96 {
		t.Errorf("default size %d×%d, want 96×96", p.H, p.W)
	}
	if got, want := p.L(), 1+8*2e-4/0.005; math.Abs(got-want) > 1e-15 {
		t.Errorf("L = %g, want %g", got, want)
	}
}

func TestObjectiveGradientAgainstFiniteDifferences(t *testing.T) {
	o := smallDeblur(t, 2, 10)
	r := rand.New(rand.NewPCG(5, 6))
	x := append([]float64(nil), o.X0...)
	for i := range x {
		x[i] += 0.02 * r.NormFloat64()
	}
	grad := make([]float64, len(x))
	vals := make([]float64, o.N)
	if err := o.Eval(vals, grad, x, nil); err != nil {
		t.Fatal(err)
	}
	d := randVec(r, len(x), 1)
	const step = 1e-6
	xp, xm := make([]float64, len(x)), make([]float64, len(x))
	for i := range x {
		xp[i], xm[i] = x[i]+step*d[i], x[i]-step*d[i]
	}
	fp, _ := o.Mean(xp)
	fm, _ := o.Mean(xm)
	fd := (fp - fm) / (2 * step) * float64(o.N)
	if rd := relDiff(fd, kernels.Dot(grad, d)); rd > 1e-6 {
		t.Errorf("directional derivative %g, finite differences %g (rel %g)", kernels.Dot(grad, d), fd, rd)
	}
}

func TestGraphMatchesDirectPath(t *testing.T) {
	o := smallDeblur(t, 3, 12)
	r := rand.New(rand.NewPCG(7, 8))
	x := append([]float64(nil), o.X0...)
	for i := range x {
		x[i] += 0.01 * r.NormFloat64()
	}
	vals := make([]float64, o.N)
	grad := make([]float64, len(x))
	if err := o.Eval(vals, grad, x, nil); err != nil {
		t.Fatal(err)
	}
	g := G.NewGraph()
	xn := graph.Input(g, "x", o.N, o.H, o.W)
	yn := graph.Input(g, "y", o.DataShape(o.N)...)
	fv, err := o.GraphValue(xn, yn)
	if err != nil {
		t.Fatal(err)
	}
	gv, err := o.GraphGrad(xn, yn)
	if err != nil {
		t.Fatal(err)
	}
	m := graph.NewMachine(g)
	defer m.Close()
	_ = graph.Set(xn, x)
	_ = graph.Set(yn, o.Y)
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	total, _ := graph.Scalar(fv)
	want := vals[0] + vals[1] + vals[2]
	if d := relDiff(total, want); d > 1e-12 {
		t.Errorf("graph f = %.17g, direct %.17g (rel %g)", total, want, d)
	}
	ggot, _ := graph.Value(gv)
	var num, den float64
	for i := range grad {
		num = math.Max(num, math.Abs(ggot[i]-grad[i]))
		den = math.Max(den, math.Abs(grad[i]))
	}
	if num > 1e-12*den {
		t.Errorf("graph ∇f differs from direct kernels by %g (max |∇f| %g)", num, den)
	}
}

func TestGradientIsLipschitz(t *testing.T) {
	o := smallDeblur(t, 1, 16)
	r := rand.New(rand.NewPCG(9, 10))
	gu, gv := make([]float64, 256), make([]float64, 256)
	worst := 0.0
	for trial := 0; trial < 30; trial++ {
		u := randVec(r, 256, 0.01*float64(trial%5+1))
		v := append([]float64(nil), u...)
		for i := range v {
			v[i] += 1e-3 * r.NormFloat64()
		}
		if err := o.Eval(nil, gu, u, nil); err != nil {
			t.Fatal(err)
		}
		if err := o.Eval(nil, gv, v, nil); err != nil {
			t.Fatal(err)
		}
		var dg, dx float64
		for i := range u {
			dg += (gu[i] - gv[i]) * (gu[i] - gv[i])
			dx += (u[i] - v[i]) * (u[i] - v[i])
		}
		worst = math.Max(worst, math.Sqrt(dg/dx))
	}
	if worst > o.L*(1+1e-12) {
		t.Errorf("‖∇f(u) − ∇f(v)‖/‖u − v‖ reached %g > L = %g", worst, o.L)
	}
}

// TestLipschitzConstantIsTight checks L against the Hessian itself: near a
// constant image every Huber term is in its quadratic part, so ∇f is affine
// there and its differences give the Hessian AᵀA + (α/ε) DᵀD column by
// column, where the Hessian is largest (Huber's curvature is at most 1/ε).
// The matrix must be symmetric (∇f a gradient), its largest eigenvalue (a
// dense eigendecomposition) must be at most L and at least 0.75 L (L =
// ‖A‖² + 8α/ε overestimates it by the blur and the differences not sharing
// their top eigenvectors: 0.76 at 16×16; a looser L fails), and the power
// iteration that estimates norms elsewhere must find the same value.
func TestLipschitzConstantIsTight(t *testing.T) {
	o := smallDeblur(t, 1, 16)
	const n = 256
	u := make([]float64, n)
	for i := range u {
		u[i] = 0.5
	}
	gu, gv := make([]float64, n), make([]float64, n)
	if err := o.Eval(nil, gu, u, nil); err != nil {
		t.Fatal(err)
	}
	const h = 1e-4 // |D(h v)| ≤ 2h‖v‖∞ stays below ε = 0.005 for unit v
	hess := func(x []float64) error {
		v := make([]float64, len(u))
		for i := range v {
			v[i] = u[i] + h*x[i]
		}
		if err := o.Eval(nil, gv, v, nil); err != nil {
			return err
		}
		for i := range x {
			x[i] = (gv[i] - gu[i]) / h
		}
		return nil
	}
	dense := mat.NewDense(n, n, nil)
	for j := range n {
		e := make([]float64, n)
		e[j] = 1
		if err := hess(e); err != nil {
			t.Fatal(err)
		}
		dense.SetCol(j, e)
	}
	asym := 0.0
	for i := range n {
		for j := range i {
			asym = math.Max(asym, math.Abs(dense.At(i, j)-dense.At(j, i)))
		}
	}
	if asym > 1e-9 {
		t.Fatalf("the Hessian from ∇f is not symmetric (%g): ∇f is not the gradient of f", asym)
	}
	sym := mat.NewSymDense(n, nil)
	for i := range n {
		for j := range i + 1 {
			sym.SetSym(i, j, (dense.At(i, j)+dense.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, false) {
		t.Fatal("eigendecomposition failed")
	}
	vals := eig.Values(nil)
	lam := vals[len(vals)-1]
	if lam > o.L*(1+1e-9) {
		t.Errorf("largest Hessian eigenvalue %g exceeds L = %g", lam, o.L)
	}
	if lam < 0.75*o.L {
		t.Errorf("largest Hessian eigenvalue %g is below 0.75 L = %g: L = %g overestimates the smoothness", lam, 0.75*o.L, o.L)
	}
	est, _, err := kernels.PowerIteration{Seed: [2]uint64{1, 2}, MaxIter: 5000, MinIter: 10, RelTol: 1e-12}.Largest(n, hess)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(est-lam) > 1e-6*lam {
		t.Errorf("power iteration found %.12g, the eigendecomposition %.12g", est, lam)
	}
	t.Logf("λmax(∇²f) = %.6g, L = %.6g (ratio %.4f)", lam, o.L, lam/o.L)
}

// TestSecondOrderThroughObjectiveGradient differentiates ½‖∇f(x)‖² (∇f from
// GraphGrad) with respect to x and compares with finite differences.
func TestSecondOrderThroughObjectiveGradient(t *testing.T) {
	o := smallDeblur(t, 2, 8)
	r := rand.New(rand.NewPCG(11, 12))
	g := G.NewGraph()
	xn := graph.Input(g, "x", o.N, o.H, o.W)
	yn := graph.Input(g, "y", o.DataShape(o.N)...)
	gv, err := o.GraphGrad(xn, yn)
	if err != nil {
		t.Fatal(err)
	}
	obj := G.Must(G.Mul(G.Must(G.Sum(G.Must(G.Square(gv)))), G.NewConstant(0.5)))
	if _, err := G.Grad(obj, xn); err != nil {
		t.Fatal(err)
	}
	m := graph.NewMachine(g, xn)
	defer m.Close()
	_ = graph.Set(yn, o.Y)
	x := append([]float64(nil), o.X0...)
	eval := func(x []float64) float64 {
		_ = graph.Set(xn, x)
		if err := m.Run(); err != nil {
			t.Fatal(err)
		}
		v, _ := graph.Scalar(obj)
		return v
	}
	eval(x)
	gx, _ := graph.Grad(xn)
	an := kernels.Dot(gx, randVec(rand.New(rand.NewPCG(1, 1)), len(x), 1))
	d := randVec(rand.New(rand.NewPCG(1, 1)), len(x), 1)
	_ = r
	const step = 1e-7
	xp, xm := make([]float64, len(x)), make([]float64, len(x))
	for i := range x {
		xp[i], xm[i] = x[i]+step*d[i], x[i]-step*d[i]
	}
	fd := (eval(xp) - eval(xm)) / (2 * step)
	if rd := relDiff(an, fd); rd > 1e-5 {
		t.Errorf("second-order derivative %g, finite differences %g (rel %g)", an, fd, rd)
	}
}

// TestDeblurBoundaryConvention checks that the deblurring problem builds its
// blur with each boundary, records it, keeps ‖A‖ = 1 and an exact adjoint,
// and that the three boundaries give different operators.
func TestDeblurBoundaryConvention(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	in := tensor.Shape{2, 14, 14}
	x, y := randVec(r, 392, 1), randVec(r, 392, 1)
	seen := map[string][]float64{}
	for _, b := range []string{"zero", "circular", "reflect", ""} {
		p, err := Deblur(Options{H: 14, BlurBoundary: b})
		if err != nil {
			t.Fatal(err)
		}
		want := b
		if b == "" {
			want = DefaultBlurBoundary.String()
		}
		if got := p.Conventions[ConventionBlurBoundary]; got != want {
			t.Errorf("boundary %q: convention %q, want %q", b, got, want)
		}
		ax, aty := make([]float64, 392), make([]float64, 392)
		if err := p.A.Apply(ax, x, in); err != nil {
			t.Fatal(err)
		}
		if err := p.A.Adjoint(aty, y, in); err != nil {
			t.Fatal(err)
		}
		if d := relDiff(kernels.Dot(ax, y), kernels.Dot(x, aty)); d > 1e-12 {
			t.Errorf("boundary %q: adjoint identity off by %g", b, d)
		}
		nrm, err := OperatorNorm(p.A, 14, 14, 3000, 1e-14, 9)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(nrm-1) > 1e-8 {
			t.Errorf("boundary %q: ‖A‖ = %.12g, want 1", b, nrm)
		}
		o, err := p.Instantiate(randVec(r, 196, 1), 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if o.Setting()[ConventionBlurBoundary] != want || o.Setting()["problem"] != "deblur" {
			t.Errorf("boundary %q: objective setting %v", b, o.Setting())
		}
		seen[want] = ax
	}
	if relDiff(kernels.Dot(seen["zero"], seen["zero"]), kernels.Dot(seen["reflect"], seen["reflect"])) < 1e-6 ||
		relDiff(kernels.Dot(seen["zero"], seen["zero"]), kernels.Dot(seen["circular"], seen["circular"])) < 1e-6 {
		t.Error("the boundaries give the same blurred image: the option is ignored")
	}
	if _, err := Deblur(Options{BlurBoundary: "mirror"}); err == nil {
		t.Error("unknown boundary accepted")
	}
	if _, err := CTSmall(Options{BlurBoundary: "zero"}); err == nil {
		t.Error("ct-small accepted a blur boundary")
	}
}

func TestConventionsMismatch(t *testing.T) {
	a := Conventions{ConventionBlurBoundary: "zero"}
	if m := a.Mismatch(Conventions{ConventionBlurBoundary: "zero"}); m != "" {
		t.Errorf("equal conventions reported as %q", m)
	}
	if m := a.Mismatch(Conventions{ConventionBlurBoundary: "reflect"}); m != "blur_boundary: zero here, reflect there" {
		t.Errorf("mismatch %q", m)
	}
	if m := a.Mismatch(nil); m == "" {
		t.Error("a missing convention is not a mismatch")
	}
	if m := Conventions(nil).Mismatch(nil); m != "" {
		t.Errorf("empty conventions differ: %q", m)
	}
}

func TestAlphaOverride(t *testing.T) {
	p, err := Lookup("deblur", Options{H: 16, Alpha: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	// L = ‖A‖² + α·8/ε with ε = 0.005.
	if math.Abs(p.L()-2.6) > 1e-12 || p.Alpha != 1e-3 {
		t.Errorf("α = 1e-3: α %g, L %.15g; want L = 2.6", p.Alpha, p.L())
	}
	if _, err := Lookup("deblur", Options{Alpha: -1}); err == nil {
		t.Error("negative α accepted")
	}
}
