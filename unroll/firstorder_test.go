package unroll

import (
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/problem"
	G "gorgonia.org/gorgonia"
)

// autoObjective is o with its regularizer replaced by one given by its value
// alone (problem.NewAutoRegularizer): ∇S from gorgonia.Grad, its Hessian–
// vector products by central differences of ∇S.
func autoObjective(t *testing.T, o *problem.Objective, name string, value func(x *G.Node) (*G.Node, error), lip float64) *problem.Objective {
	t.Helper()
	reg, err := problem.NewAutoRegularizer(name, value, o.H, o.W, lip)
	if err != nil {
		t.Fatal(err)
	}
	auto := *o
	auto.Reg = reg
	return &auto
}

// TestUnrolledAutoRegularizer: unrolled training differentiates through ∇f;
// with a regularizer given by its value alone it does so through the
// regularizer's HessVec. The same Huber-TV written as a value expression
// gives the built-in Huber-TV's unrolled loss exactly and its gradient to
// 1e-5 relative (measured 5.2e-6: the differences average the two sides of
// Huber's kink where a pixel difference lies within 2ε of it); the smooth
// Cauchy penalty's gradient agrees with central differences of the loss to
// 1e-5 (measured 1.2e-10).
func TestUnrolledAutoRegularizer(t *testing.T) {
	o := deblurSet(t, 2, 8, 3)
	tv := autoObjective(t, o, "auto-tv", func(x *G.Node) (*G.Node, error) {
		d, err := graph.Linear(graph.Diff{}, x)
		if err != nil {
			return nil, err
		}
		return graph.PotentialValue(graph.HuberTV{Eps: 0.005}, d)
	}, 1600)
	builtIn, auto := mustLoss(t, "m-pc", o, 3, 2), mustLoss(t, "m-pc", tv, 3, 2)
	u := perturbed(builtIn, 0.05, 9)
	g1, g2 := make([]float64, builtIn.Dim()), make([]float64, auto.Dim())
	v1, err := builtIn.Eval(u, g1)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := auto.Eval(u, g2)
	if err != nil {
		t.Fatal(err)
	}
	var d, s float64
	for i := range g1 {
		d, s = math.Max(d, math.Abs(g1[i]-g2[i])), math.Max(s, math.Abs(g1[i]))
	}
	t.Logf("auto Huber-TV against the built-in: loss %.3g relative, gradient %.3g relative to max |grad|", math.Abs(v1-v2)/math.Abs(v1), d/s)
	if math.Abs(v1-v2) > 1e-12*math.Abs(v1) || d > 1e-5*s {
		t.Errorf("auto Huber-TV: loss %.15g against %.15g, gradient differs by %.3g relative", v2, v1, d/s)
	}

	cauchy := mustLoss(t, "m-pc", autoObjective(t, o, "cauchy", func(x *G.Node) (*G.Node, error) {
		d, err := graph.Linear(graph.Diff{}, x)
		if err != nil {
			return nil, err
		}
		r2 := G.Must(G.Sum(G.Must(G.Square(d)), 1))
		return G.Sum(G.Must(G.Log1p(G.Must(G.Mul(r2, G.NewConstant(100.0))))))
	}, 1600), 3, 2)
	grad := make([]float64, cauchy.Dim())
	if _, err := cauchy.Eval(u, grad); err != nil {
		t.Fatal(err)
	}
	const h = 1e-5
	var worst, gmax float64
	for _, g := range grad {
		gmax = math.Max(gmax, math.Abs(g))
	}
	for i := 0; i < cauchy.Dim(); i += 5 {
		orig := u[i]
		u[i] = orig + h
		fp, _ := cauchy.Eval(u, nil)
		u[i] = orig - h
		fm, _ := cauchy.Eval(u, nil)
		u[i] = orig
		worst = math.Max(worst, math.Abs((fp-fm)/(2*h)-grad[i])/gmax)
	}
	t.Logf("auto Cauchy: worst |fd − grad|/max|grad| = %.2e", worst)
	if worst > 1e-5 {
		t.Errorf("auto Cauchy: unrolled gradient differs from central differences by %.2e relative", worst)
	}
}
