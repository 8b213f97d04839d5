package models

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// scaleOp is A = diag(a) on one image, applied to every image of a batch:
// AᵀA = diag(a²), so (AᵀA)^j v = a^{2j}·v in closed form.
type scaleOp struct{ a []float64 }

func (s scaleOp) String() string { return "scaleOp" }
func (s scaleOp) OutShape(in tensor.Shape) (tensor.Shape, error) {
	return in.Clone(), nil
}
func (s scaleOp) Apply(dst, src []float64, _ tensor.Shape) error {
	for i, v := range src {
		dst[i] = s.a[i%len(s.a)] * v
	}
	return nil
}
func (s scaleOp) Adjoint(dst, src []float64, in tensor.Shape) error { return s.Apply(dst, src, in) }

var _ graph.LinearMap = scaleOp{}

// TestNormalPolyClosedForm checks npoly3 on a diagonal operator against the
// closed form Σ θ_j a^{2j} v, through its bound term (Krylov vectors) and
// its graph, the adjoint identity, a rebinding, and npoly1 = PS bitwise.
func TestNormalPolyClosedForm(t *testing.T) {
	const n, h, w = 2, 3, 4
	r := rand.New(rand.NewPCG(21, 22))
	a := randVec(r, h*w, 1)
	p := NormalPoly{D: 3}.WithOperator(scaleOp{a}).(NormalPoly)
	theta := []float64{0.7, -0.3, 0.2}
	for round := range 2 {
		v, rr := randVec(r, n*h*w, 1), randVec(r, n*h*w, 1)
		want := make([]float64, len(v))
		for i, x := range v {
			a2 := a[i%(h*w)] * a[i%(h*w)]
			want[i] = (theta[0] + theta[1]*a2 + theta[2]*a2*a2) * x
		}
		var bd Bound
		var err error
		if bd, err = p.Bind(v, n, h, w); err != nil {
			t.Fatal(err)
		}
		if round == 1 { // the same through a rebound operator
			old, _ := p.Bind(randVec(r, n*h*w, 1), n, h, w)
			if err := old.(Rebinder).Rebind(v); err != nil {
				t.Fatal(err)
			}
			bd = old
		}
		got := make([]float64, len(v))
		if err := bd.AddApply(got, theta, 1); err != nil {
			t.Fatal(err)
		}
		if d := maxRel(got, want); d > 1e-14 {
			t.Errorf("round %d: bound G_θ v off the closed form by %.2g", round, d)
		}
		gb := NewGraphBinder(p)
		gbd, err := gb.Bind(v, n, h, w)
		if err != nil {
			t.Fatal(err)
		}
		viaGraph := make([]float64, len(v))
		if err := gbd.AddApply(viaGraph, theta, 1); err != nil {
			t.Fatal(err)
		}
		if d := maxRel(viaGraph, want); d > 1e-14 {
			t.Errorf("round %d: graph G_θ v off the closed form by %.2g", round, d)
		}
		adj, adjGraph := make([]float64, 3), make([]float64, 3)
		if err := bd.AddAdjoint(adj, rr, 1); err != nil {
			t.Fatal(err)
		}
		if err := gbd.AddAdjoint(adjGraph, rr, 1); err != nil {
			t.Fatal(err)
		}
		gb.Close()
		if lhs, rhs := kernels.Dot(want, rr), kernels.Dot(theta, adj); relDiff(lhs, rhs) > 1e-13 {
			t.Errorf("round %d: ⟨G_θ v, r⟩ = %.15g, ⟨θ, adjoint⟩ = %.15g", round, lhs, rhs)
		}
		if d := maxRel(adj, adjGraph); d > 1e-13 {
			t.Errorf("round %d: adjoint differs from the graph's by %.2g", round, d)
		}
	}

	// npoly1 is PS: θ·v, bitwise, through the graph.
	v := randVec(r, n*h*w, 1)
	ps, poly := NewGraphBinder(Scalar{}), NewGraphBinder(NormalPoly{D: 1}.WithOperator(scaleOp{a}))
	defer ps.Close()
	defer poly.Close()
	var outs [2][]float64
	for q, b := range []*GraphBinder{ps, poly} {
		bd, err := b.Bind(v, n, h, w)
		if err != nil {
			t.Fatal(err)
		}
		outs[q] = make([]float64, len(v))
		if err := bd.AddApply(outs[q], []float64{0.37}, -1); err != nil {
			t.Fatal(err)
		}
	}
	for i := range outs[0] {
		if outs[0][i] != outs[1][i] {
			t.Fatalf("npoly1 differs from PS at %d: %v vs %v", i, outs[1][i], outs[0][i])
		}
	}
}

// TestNormalPolyNeedsItsOperator: without an operator, Bind and Apply refuse
// with ErrNoOperator; ParseMethod gives npolyD and m-npolyD; D is checked.
func TestNormalPolyNeedsItsOperator(t *testing.T) {
	m, err := ParseMethod("m-npoly3")
	if err != nil || m.G.Name() != "npoly3" || m.H.Name() != "npoly3" {
		t.Fatalf("m-npoly3: %v, %+v", err, m)
	}
	if _, err := m.G.(Binder).Bind(make([]float64, 12), 1, 3, 4); !errors.Is(err, ErrNoOperator) {
		t.Errorf("Bind without an operator: %v, want ErrNoOperator", err)
	}
	g := G.NewGraph()
	if _, err := m.G.Apply(graph.Input(g, "theta", 3), graph.Input(g, "v", 1, 3, 4)); !errors.Is(err, ErrNoOperator) {
		t.Errorf("Apply without an operator: %v, want ErrNoOperator", err)
	}
	bound := m.ForOperator(scaleOp{[]float64{1}})
	if bound.G.(NormalPoly).Op == nil || bound.H.(NormalPoly).Op == nil {
		t.Error("ForOperator left a term without the operator")
	}
	for _, bad := range []string{"npoly0", "npoly17", "npolyx"} {
		if _, err := ParseMethod(bad); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}
