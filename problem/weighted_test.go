package problem

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	"gonum.org/v1/gonum/floats"
	G "gorgonia.org/gorgonia"
)

// TestAlphaFamily: each function of deblur with α ∈ [1e-4, 1e-3] is, in
// value and gradient, deblur at its own α_k on the same data; L is that of
// the largest α; Subset keeps each function's weight; a range of one α is
// that α's problem bitwise.
func TestAlphaFamily(t *testing.T) {
	const n, h = 4, 16
	os := familyObjectives(t, n, h, Options{AlphaRange: [2]float64{1e-4, 1e-3}}, Options{Alpha: 1e-3}, Options{AlphaRange: [2]float64{1e-3, 1e-3}})
	fam, one := os[0], os[2]
	w, ok := fam.Reg.(*WeightedAnalysis)
	if !ok || fam.Alpha != 1e-3 || math.Abs(fam.L-(1+1e-3*8/0.005)) > 1e-12 {
		t.Fatalf("the family's regularizer %v, α %g, L %g", fam.Reg, fam.Alpha, fam.L)
	}
	x := randVec(rand.New(rand.NewPCG(51, 52)), len(fam.X0), 1)
	vals, grad := make([]float64, n), make([]float64, len(x))
	if err := fam.Eval(vals, grad, x, nil); err != nil {
		t.Fatal(err)
	}
	hw := h * h
	for k := range n {
		alpha := fam.Alpha * w.C[k]
		if alpha < 1e-4*(1-1e-12) || alpha > 1e-3*(1+1e-12) {
			t.Errorf("function %d drew α = %g outside [1e-4, 1e-3]", k, alpha)
		}
		single := familyObjectives(t, n, h, Options{Alpha: alpha})[0]
		sub, err := single.Subset([]int{k})
		if err != nil {
			t.Fatal(err)
		}
		v, g := make([]float64, 1), make([]float64, hw)
		if err := sub.Eval(v, g, x[k*hw:(k+1)*hw], nil); err != nil {
			t.Fatal(err)
		}
		if d := floats.Distance(g, grad[k*hw:(k+1)*hw], math.Inf(1)); math.Abs(v[0]-vals[k]) > 1e-12*v[0] || d > 1e-12*floats.Norm(g, math.Inf(1)) {
			t.Errorf("function %d (α = %g): f %.17g against %.17g, ‖Δ∇f‖∞ %g", k, alpha, vals[k], v[0], d)
		}
		famK, err := fam.Subset([]int{k})
		if err != nil {
			t.Fatal(err)
		}
		if err := famK.Eval(v, g, x[k*hw:(k+1)*hw], nil); err != nil || math.Abs(v[0]-vals[k]) > 1e-12*v[0] {
			t.Errorf("function %d of the family's subset: f %.17g against %.17g (%v)", k, v[0], vals[k], err)
		}
	}
	if one.Reg.String() != os[1].Reg.String() || one.Alpha != os[1].Alpha {
		t.Errorf("α ∈ [1e-3, 1e-3] gave %v, α %g; α = 1e-3 gives %v", one.Reg, one.Alpha, os[1].Reg)
	}
	for _, bad := range []Options{{AlphaRange: [2]float64{1e-3, 1e-4}}, {AlphaRange: [2]float64{0, 1e-3}}, {Alpha: 1e-4, AlphaRange: [2]float64{1e-4, 1e-3}}} {
		if _, err := Lookup("deblur", bad); err == nil || !strings.Contains(err.Error(), "regularisation weights") {
			t.Errorf("%+v: error %v", bad, err)
		}
	}
}

// TestWeightedGraph: the graph's value and gradient of C[k]·S equal the
// direct evaluation's.
func TestWeightedGraph(t *testing.T) {
	const n, h = 3, 10
	r := NewWeighted(HuberTV{Eps: 0.01}, []float64{0.2, 1, 0.55})
	x := randVec(rand.New(rand.NewPCG(53, 54)), n*h*h, 1)
	vals, grad := make([]float64, n), make([]float64, len(x))
	if err := r.ValueGrad(vals, grad, x, n, h, h); err != nil {
		t.Fatal(err)
	}
	g := G.NewGraph()
	xn := graph.Input(g, "x", n, h, h)
	fv, err := r.GraphValue(xn)
	if err != nil {
		t.Fatal(err)
	}
	gv, err := r.GraphGrad(xn)
	if err != nil {
		t.Fatal(err)
	}
	m := graph.NewMachine(g)
	defer m.Close()
	if err := graph.Set(xn, x); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	total, _ := graph.Scalar(fv)
	if want := floats.Sum(vals); math.Abs(total-want) > 1e-12*want {
		t.Errorf("graph value %.17g, direct %.17g", total, want)
	}
	gg, _ := graph.Value(gv)
	if d := floats.Distance(gg, grad, math.Inf(1)); d > 1e-12*floats.Norm(grad, math.Inf(1)) {
		t.Errorf("graph gradient differs by %g", d)
	}
	if err := r.ValueGrad(vals[:2], nil, x[:2*h*h], 2, h, h); err == nil {
		t.Error("a batch of 2 images for 3 weights was accepted")
	}
}
