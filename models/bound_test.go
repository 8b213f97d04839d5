package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	"gonum.org/v1/gonum/mat"
	G "gorgonia.org/gorgonia"
)

// TestBoundMatchesApplyAndAdjoint checks each Binder against its own graph
// expression (G_θ v by Apply) and the adjoint identity
// ⟨G_θ v, r⟩ = ⟨θ, ∇_θ⟨G_θ v, r⟩⟩, on a non-square batch.
func TestBoundMatchesApplyAndAdjoint(t *testing.T) {
	const n, h, w = 3, 10, 12
	r := rand.New(rand.NewPCG(5, 6))
	params := []Parametrization{Scalar{}, Pointwise{}, SmallConv{K: 3, Boundary: kernels.Reflect}, SmallConv{K: 5, Boundary: kernels.Circular}, NewFullConv(), Full{}}
	for _, p := range params {
		b, ok := p.(Binder)
		if !ok {
			t.Fatalf("%s: no Bind", p.Name())
		}
		v := randVec(r, n*h*w, 1)
		theta := randVec(r, p.ParamShape(h, w).TotalSize(), 1)
		rr := randVec(r, n*h*w, 1)
		bd, err := b.Bind(v, n, h, w)
		if err != nil {
			t.Fatal(err)
		}
		// Apply by the graph.
		g := G.NewGraph()
		th := graph.Input(g, "theta", p.ParamShape(h, w)...)
		vn := graph.Input(g, "v", n, h, w)
		out, err := p.Apply(th, vn)
		if err != nil {
			t.Fatal(err)
		}
		m := graph.NewMachine(g)
		if err := graph.Set(th, theta); err != nil {
			t.Fatal(err)
		}
		if err := graph.Set(vn, v); err != nil {
			t.Fatal(err)
		}
		if err := m.Run(); err != nil {
			t.Fatal(err)
		}
		want, _ := graph.Value(out)
		got := randVec(r, n*h*w, 1)
		base := append([]float64(nil), got...)
		if err := bd.AddApply(got, theta, -2); err != nil {
			t.Fatal(err)
		}
		var scale float64
		for _, x := range want {
			scale = math.Max(scale, math.Abs(x))
		}
		for i := range got {
			if d := got[i] - base[i] + 2*want[i]; math.Abs(d) > 1e-12*scale {
				t.Fatalf("%s: AddApply[%d] off by %.3g (graph value %.6g)", p.Name(), i, d, want[i])
			}
		}
		m.Close()
		adj := make([]float64, len(theta))
		adj[0] = 1 // AddAdjoint adds
		if err := bd.AddAdjoint(adj, rr, 1); err != nil {
			t.Fatal(err)
		}
		adj[0]--
		lhs := kernels.Dot(want, rr)
		rhs := kernels.Dot(theta, adj)
		if relDiff(lhs, rhs) > 1e-12 {
			t.Errorf("%s: ⟨G_θ v, r⟩ = %.17g, ⟨θ, adjoint⟩ = %.17g", p.Name(), lhs, rhs)
		}
	}
}

func TestBindRejectsBadBatch(t *testing.T) {
	for _, p := range []Binder{Scalar{}, Pointwise{}, SmallConv{K: 3}, NewFullConv(), Full{}} {
		if _, err := p.Bind(make([]float64, 10), 2, 3, 3); err == nil {
			t.Errorf("%T: bound 10 values as 2 images of 3×3", p)
		}
	}
}

// TestFullOpNormMatchesSVD checks PF's spectral norm against the largest
// singular value from gonum's SVD and against the graph's power iteration.
func TestFullOpNormMatchesSVD(t *testing.T) {
	const h, w = 5, 6
	n := h * w
	theta := randVec(rand.New(rand.NewPCG(8, 9)), n*n, 1)
	got, err := Full{}.OpNorm(theta, h, w)
	if err != nil {
		t.Fatal(err)
	}
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(n, n, theta), mat.SVDNone) {
		t.Fatal("SVD failed")
	}
	want := svd.Values(nil)[0]
	if d := math.Abs(got-want) / want; !(d <= 1e-8) {
		t.Errorf("‖θ‖₂ = %.12g, SVD %.12g (rel %.2g)", got, want, d)
	}
	viaGraph, err := PowerNorm(Full{}, theta, h, w)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(got-viaGraph) / want; !(d <= 1e-8) {
		t.Errorf("‖θ‖₂ = %.12g, graph power iteration %.12g", got, viaGraph)
	}
	if _, err := (Full{}).OpNorm(theta[1:], h, w); err == nil {
		t.Error("a short parameter vector was accepted")
	}
}
