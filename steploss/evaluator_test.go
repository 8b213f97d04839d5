package steploss

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/wcrr"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// doubled is a user parametrization with one parameter that binds:
// G_θ v = 2θ v. It has the affine capability without being models.Scalar.
type doubled struct{}

func (doubled) Name() string                     { return "doubled" }
func (doubled) ParamShape(h, w int) tensor.Shape { return tensor.Shape{1} }
func (doubled) Apply(theta, v *G.Node) (*G.Node, error) {
	two, err := G.Mul(v, G.NewConstant(2.0))
	if err != nil {
		return nil, err
	}
	return graph.Bilinear(graph.Scale{}, theta, two)
}
func (doubled) Reference(tau float64, h, w int) []float64 { return []float64{tau / 2} }
func (doubled) Bind(v []float64, n, h, w int) (models.Bound, error) {
	two := make([]float64, len(v))
	for i, x := range v {
		two[i] = 2 * x
	}
	return models.Scalar{}.Bind(two, n, h, w)
}

// TestEvaluatorChoice checks that the evaluator follows the capabilities of
// the parametrizations (interfaces), for built-in and user types, and the
// restrictions of stepPaths.
func TestEvaluatorChoice(t *testing.T) {
	o := testproblems.DeblurSet(t, 2, 8, 1)
	ls := testproblems.DeblurSet(t, 2, 8, 1)
	ls.Reg = noAnalysis{ls.Reg}
	parse := func(name string) models.Method { return testproblems.Method(t, name) }
	for _, c := range []struct {
		m     models.Method
		o     *problem.Objective
		paths stepPaths
		kind  string
	}{
		{parse("ps"), o, stepPaths{}, "affine"},
		{parse("m-ps"), o, stepPaths{}, "affine"},
		{models.Method{G: doubled{}, H: models.Scalar{}}, o, stepPaths{}, "affine"},
		{parse("m-ps"), ls, stepPaths{}, "bound"}, // no problem.Analysis
		{parse("m-ps"), o, stepPaths{noAffine: true}, "bound"},
		{parse("pp"), o, stepPaths{}, "bound"},
		{parse("m-pc"), o, stepPaths{}, "bound"},
		{parse("pc5:ps"), o, stepPaths{}, "bound"},
		{parse("pf"), o, stepPaths{}, "reduced"},
		{parse("pf:ps"), o, stepPaths{}, "reduced"},
		{parse("m-pf"), o, stepPaths{noReduce: true}, "bound"},
		{parse("m-pc"), o, stepPaths{graphOnly: true}, "graph"},
		{parse("m-pc"), o, stepPaths{fullGraph: true}, "full-graph"},
		{models.Method{G: testproblems.OuterWeights{}}, o, stepPaths{}, "graph"},
		{models.Method{G: testproblems.OuterWeights{}, H: models.Scalar{}}, o, stepPaths{}, "graph"},
		{models.Method{G: models.Scalar{}, H: testproblems.GraphOnly{P: models.Scalar{}}}, o, stepPaths{}, "graph"},
	} {
		s := newLoss(t, c.m, c.o, c.paths, c.kind)
		if c.kind == "reduced" && s.reducers == nil {
			t.Errorf("%s: reduced evaluator without reducers", c.m.Name())
		}
	}
}

// noAnalysis hides the problem.Analysis capability of a regularizer.
type noAnalysis struct{ problem.Regularizer }

// wcrrWeights writes a small random WCRR model in the file format of
// wcrr.Load (as ../shared/data/wcrr/wcrr_sigma18.json) and returns its path.
func wcrrWeights(t *testing.T) string {
	t.Helper()
	m := wcrr.Random(3, [3]int{2, 3, 4}, 9)
	type layer struct {
		In      int             `json:"in_channels"`
		Out     int             `json:"out_channels"`
		K       int             `json:"kernel_size"`
		Padding int             `json:"padding"`
		Weight  [][][][]float64 `json:"weight"`
	}
	var layers []layer
	for _, l := range m.Layers {
		w := make([][][][]float64, l.Cout)
		for o := range w {
			w[o] = make([][][]float64, l.Cin)
			for i := range w[o] {
				w[o][i] = make([][]float64, l.K)
				for r := range w[o][i] {
					at := ((o*l.Cin+i)*l.K + r) * l.K
					w[o][i][r] = l.Weight[at : at+l.K]
				}
			}
		}
		layers = append(layers, layer{In: l.Cin, Out: l.Cout, K: l.K, Padding: l.K / 2, Weight: w})
	}
	doc := map[string]any{
		"mu": m.Mu, "L": m.L,
		"conv":      map[string]any{"layers": layers},
		"potential": map[string]any{"closed_form": map[string]any{"h_c": m.H, "T_c": m.T}},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "wcrr_random.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// lookupSet returns n synthetic functions of the named problem at size×size.
func lookupSet(t *testing.T, name string, opt problem.Options, n int) *problem.Objective {
	t.Helper()
	p, err := problem.Lookup(name, opt)
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, pix, err := data.Stack(data.Synthetic(n, p.H, p.W, 7))
	if err != nil {
		t.Fatal(err)
	}
	o, err := p.Instantiate(pix, n, 3)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestGraphEvaluatorAgreement compares, on deblurring, CT and deblurring
// with WCRR (problems built by problem.Lookup), the graph evaluator with the
// fast path of built-in methods and with the whole loss as one graph, for
// built-in and user parametrizations: values, gradients, values alone and
// x⁺ agree to rounding, and the graph evaluator's gradient agrees with
// central differences.
func TestGraphEvaluatorAgreement(t *testing.T) {
	const size = 12
	problems := []struct {
		name string
		opt  problem.Options
	}{
		{"deblur", problem.Options{H: size}},
		{"ct-small", problem.Options{H: size}},
		{"deblur-wcrr", problem.Options{H: size, WCRRWeights: wcrrWeights(t)}},
	}
	methods := []struct {
		name string
		m    models.Method
		fast string // the default evaluator
	}{
		{"m-ps", testproblems.Method(t, "m-ps"), "affine"},
		{"m-pc", testproblems.Method(t, "m-pc"), "bound"},
		{"pc3-zero:pp", testproblems.Method(t, "pc3-zero:pp"), "bound"},
		{"doubled:ps", models.Method{G: doubled{}, H: models.Scalar{}}, "affine"},
		{"outer:ps", models.Method{G: testproblems.OuterWeights{}, H: models.Scalar{}}, "graph"},
		{"graph-only pc5:outer", models.Method{G: testproblems.GraphOnly{P: models.SmallConv{K: 5}}, H: testproblems.OuterWeights{}}, "graph"},
	}
	for _, pr := range problems {
		o := lookupSet(t, pr.name, pr.opt, 3)
		x, g, p := testproblems.StepData(t, o, 4)
		for _, mc := range methods {
			t.Run(pr.name+"/"+mc.name, func(t *testing.T) {
				full := newLoss(t, mc.m, o, stepPaths{fullGraph: true}, "full-graph")
				gr := newLoss(t, mc.m, o, stepPaths{graphOnly: true}, "graph")
				ls := []*StepLoss{full, gr}
				if mc.fast != "graph" {
					ls = append(ls, newLoss(t, mc.m, o, stepPaths{}, mc.fast))
				}
				// Well away from the reference, into the nonlinear parts of
				// the potentials.
				u := perturbed(full.Reference(), 0.2, 5)
				compareLosses(t, x, g, p, u, 1e-11, ls...)
				checkFiniteDifferences(t, gr, x, g, p, 0.05)
			})
		}
	}
}
