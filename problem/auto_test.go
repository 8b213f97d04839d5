package problem

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// huberTVExpr is Huber-TV written as a value expression only.
func huberTVExpr(eps float64) func(x *G.Node) (*G.Node, error) {
	return func(x *G.Node) (*G.Node, error) {
		d, err := graph.Linear(graph.Diff{}, x)
		if err != nil {
			return nil, err
		}
		return graph.PotentialValue(graph.HuberTV{Eps: eps}, d)
	}
}

// cauchyExpr is Σ log(1 + |Dx|²/ν²), a weakly convex penalty.
func cauchyExpr(nu float64) func(x *G.Node) (*G.Node, error) {
	return func(x *G.Node) (*G.Node, error) {
		d, err := graph.Linear(graph.Diff{}, x)
		if err != nil {
			return nil, err
		}
		r2, err := G.Sum(G.Must(G.Square(d)), 1)
		if err != nil {
			return nil, err
		}
		t, err := G.Mul(r2, G.NewConstant(1/(nu*nu)))
		if err != nil {
			return nil, err
		}
		return G.Sum(G.Must(G.Log1p(t)))
	}
}

// TestAutoRegularizerMatchesHandWritten checks the autodiff path against a
// hand-written regularizer: Huber-TV from its value expression gives the
// same values and gradients as HuberTV to 1e-12, and its estimated
// Lipschitz constant brackets the known 8/ε from below (≥ 0.9 of the
// largest eigenvalue bound, which the estimate approaches on these sizes).
func TestAutoRegularizerMatchesHandWritten(t *testing.T) {
	const n, h, w, eps = 3, 12, 10, 0.005
	auto, err := NewAutoRegularizer("auto-huber-tv", huberTVExpr(eps), h, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	ref := HuberTV{Eps: eps}
	r := rand.New(rand.NewPCG(1, 1))
	x := randVec(r, n*h*w, 0.02)
	va, ga := make([]float64, n), make([]float64, n*h*w)
	vr, gr := make([]float64, n), make([]float64, n*h*w)
	if err := auto.ValueGrad(va, ga, x, n, h, w); err != nil {
		t.Fatal(err)
	}
	if err := ref.ValueGrad(vr, gr, x, n, h, w); err != nil {
		t.Fatal(err)
	}
	for k := range va {
		if d := relDiff(va[k], vr[k]); d > 1e-12 {
			t.Errorf("S(x_%d): autodiff %g, hand-written %g", k, va[k], vr[k])
		}
	}
	for i := range ga {
		if math.Abs(ga[i]-gr[i]) > 1e-12*(1+math.Abs(gr[i])) {
			t.Fatalf("∇S at %d: autodiff %g, hand-written %g", i, ga[i], gr[i])
		}
	}
	// The true constant of ∇S on 12×10 images is λmax(DᵀD)/ε < 8/ε.
	if !auto.LipschitzEstimated || auto.Lipschitz() > LipschitzMargin*8/eps*(1+1e-9) || auto.Lipschitz() < 0.9*LipschitzMargin*7/eps {
		t.Errorf("estimated Lipschitz constant %g (estimated %v), want within [0.9·%g, %g]", auto.Lipschitz(), auto.LipschitzEstimated, LipschitzMargin*7/eps, LipschitzMargin*8/eps)
	}
	// GraphGrad is ∇S as a graph node (what unrolled training differentiates).
	g := G.NewGraph()
	xn := graph.InputOn(g, "x", x, n, h, w)
	gn, err := auto.GraphGrad(xn)
	if err != nil {
		t.Fatal(err)
	}
	if err := graph.NewMachine(g).Run(); err != nil {
		t.Fatal(err)
	}
	gv, err := graph.Value(gn)
	if err != nil {
		t.Fatal(err)
	}
	for i := range gv {
		if gv[i] != ga[i] {
			t.Fatalf("GraphGrad at %d: %g, ValueGrad %g", i, gv[i], ga[i])
		}
	}
}

// TestAutoRegularizerGradientFiniteDifferences checks the Cauchy penalty's
// autodiff gradient against central differences, and that its Lipschitz
// estimate is near the closed form 2λmax(DᵀD)/ν² (the curvature at 0).
func TestAutoRegularizerGradientFiniteDifferences(t *testing.T) {
	const n, h, w, nu = 2, 9, 11, 0.05
	c, err := NewAutoRegularizer("cauchy", cauchyExpr(nu), h, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 4))
	x := randVec(r, n*h*w, 0.1)
	d := randVec(r, n*h*w, 1)
	g := make([]float64, len(x))
	if err := c.ValueGrad(nil, g, x, n, h, w); err != nil {
		t.Fatal(err)
	}
	sum := func(x []float64) float64 {
		v := make([]float64, n)
		if err := c.ValueGrad(v, nil, x, n, h, w); err != nil {
			t.Fatal(err)
		}
		return v[0] + v[1]
	}
	const step = 1e-6
	xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
	for i := range x {
		xp[i] += step * d[i]
		xm[i] -= step * d[i]
	}
	fd := (sum(xp) - sum(xm)) / (2 * step)
	var an float64
	for i := range g {
		an += g[i] * d[i]
	}
	if e := relDiff(an, fd); e > 1e-6 {
		t.Errorf("directional derivative %g, finite differences %g (rel %g)", an, fd, e)
	}
	est, err := c.EstimateLipschitz(h, w)
	if err != nil {
		t.Fatal(err)
	}
	if est > 2*8/(nu*nu)*(1+1e-6) || est < 2*6/(nu*nu) {
		t.Errorf("Lipschitz estimate %g outside [2·6/ν², 2·8/ν²] = [%g, %g]", est, 12/(nu*nu), 16/(nu*nu))
	}
}

// TestAutoOperator checks an operator written as an expression (the blur
// of Problem 1 through graph.Linear, scaled by 0.5) against the operator it
// wraps, and that a non-linear expression is refused.
func TestAutoOperator(t *testing.T) {
	const h, w = 10, 12
	blur, err := NewBlur("gauss5-1.5", GaussianKernel(5, 1.5), 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	op, err := NewAutoOperator("half-blur", func(x *G.Node) (*G.Node, error) {
		b, err := graph.Linear(blur, x)
		if err != nil {
			return nil, err
		}
		return G.Mul(b, G.NewConstant(0.5))
	}, h, w)
	if err != nil {
		t.Fatal(err)
	}
	if ds := op.DataShape(h, w); len(ds) != 2 || ds[0] != h || ds[1] != w {
		t.Fatalf("data shape %v, want [%d %d]", ds, h, w)
	}
	r := rand.New(rand.NewPCG(2, 9))
	x := randVec(r, 3*h*w, 1)
	in := tensor.Shape{3, h, w}
	got, want := make([]float64, len(x)), make([]float64, len(x))
	if err := op.Apply(got, x, in); err != nil {
		t.Fatal(err)
	}
	if err := blur.Apply(want, x, in); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if math.Abs(got[i]-0.5*want[i]) > 1e-14 {
			t.Fatalf("A x at %d: %g, want %g", i, got[i], 0.5*want[i])
		}
	}
	if err := op.Adjoint(got, x, in); err != nil {
		t.Fatal(err)
	}
	if err := blur.Adjoint(want, x, in); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if math.Abs(got[i]-0.5*want[i]) > 1e-14 {
			t.Fatalf("Aᵀ y at %d: %g, want %g", i, got[i], 0.5*want[i])
		}
	}
	_, err = NewAutoOperator("square", func(x *G.Node) (*G.Node, error) { return G.Square(x) }, h, w)
	if err == nil {
		t.Error("a non-linear expression was accepted as an operator")
	}
	t.Logf("non-linear expression refused: %v", err)
}
