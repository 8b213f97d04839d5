package testproblems

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// DeblurSet returns n functions of Problem 1's kind on size×size synthetic
// images: Deblur with the problem's blur boundary and α.
func DeblurSet(tb testing.TB, n, size int, seed int64) *problem.Objective {
	tb.Helper()
	return Deblur(tb, n, size, "", -1, seed)
}

// Method parses a method name (models.ParseMethod), failing the test on an
// error.
func Method(tb testing.TB, name string) models.Method {
	tb.Helper()
	m, err := models.ParseMethod(name)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// StepData returns the data of a greedy step on o: x = x⁰, g = ∇f(x), and a
// momentum direction p (0.02 g plus noise of size 0.01 from seed).
func StepData(tb testing.TB, o *problem.Objective, seed uint64) (x, g, p []float64) {
	tb.Helper()
	x = append([]float64(nil), o.X0...)
	g = make([]float64, len(x))
	if err := o.Eval(nil, g, x, nil); err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 3))
	p = make([]float64, len(x))
	for i := range p {
		p[i] = 0.02*g[i] + 0.01*r.NormFloat64()
	}
	return x, g, p
}

// GraphOnly hides a parametrization's fast paths (models.Binder,
// models.Reducer, device kinds): only its forward expression is left.
type GraphOnly struct{ P models.Parametrization }

func (g GraphOnly) Name() string                            { return g.P.Name() }
func (g GraphOnly) ParamShape(h, w int) tensor.Shape        { return g.P.ParamShape(h, w) }
func (g GraphOnly) Apply(theta, v *G.Node) (*G.Node, error) { return g.P.Apply(theta, v) }
func (g GraphOnly) Reference(tau float64, h, w int) []float64 {
	return g.P.Reference(tau, h, w)
}

// OuterWeights is a user parametrization with no capability but its forward
// expression (as Separable in greedy's examples): pointwise weights a_i b_j,
// the outer product of a column profile a (H values) and a row profile b (W
// values). G_θ v is nonlinear in θ = (a, b).
type OuterWeights struct{}

func (OuterWeights) Name() string                     { return "outer" }
func (OuterWeights) ParamShape(h, w int) tensor.Shape { return tensor.Shape{h + w} }
func (OuterWeights) Apply(theta, v *G.Node) (*G.Node, error) {
	h, w := v.Shape()[1], v.Shape()[2]
	a, err := G.Slice(theta, G.S(0, h))
	if err != nil {
		return nil, err
	}
	b, err := G.Slice(theta, G.S(h, h+w))
	if err != nil {
		return nil, err
	}
	weights, err := graph.Bilinear(graph.Outer{}, a, b) // not G.OuterProd: see graph.Outer
	if err != nil {
		return nil, err
	}
	return graph.Bilinear(graph.Pointwise{}, weights, v)
}
func (OuterWeights) Reference(tau float64, h, w int) []float64 {
	p := make([]float64, h+w)
	for i := range p {
		p[i] = math.Sqrt(math.Max(tau, 0))
	}
	return p
}

// NamedMethod is a method and the name a test reports it by.
type NamedMethod struct {
	Name   string
	Method models.Method
}

// BlockMethods are the methods of the block-mode tests (the step loss's
// EvalBlock, NAG's block mode): the affine form (M-PS), bound operators with
// both terms spectral (M-PC), neither (M-PP), one of each in both orders
// (PC:PS, PP:PC), a reduced block (PF:PS), one block alone (PC), and graphs
// (user types without a fast path).
func BlockMethods(tb testing.TB) []NamedMethod {
	tb.Helper()
	var out []NamedMethod
	for _, name := range []string{"m-ps", "m-pc", "m-pp", "pc:ps", "pp:pc", "m-pc5", "pf:ps", "pc"} {
		out = append(out, NamedMethod{name, Method(tb, name)})
	}
	return append(out,
		NamedMethod{"outer:ps", models.Method{G: OuterWeights{}, H: models.Scalar{}}},
		NamedMethod{"graph-only pc5:outer", models.Method{G: GraphOnly{P: models.SmallConv{K: 5}}, H: OuterWeights{}}})
}
