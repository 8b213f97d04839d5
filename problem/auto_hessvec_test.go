package problem

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestAutoHessVecExactOnQuadratics: for S(x) = ½‖Dx‖² the Hessian is DᵀD,
// and HessVec's differences are exact up to rounding.
func TestAutoHessVecExactOnQuadratics(t *testing.T) {
	const n, h, w = 2, 9, 7
	r, err := NewAutoRegularizer("half-squared-diff", func(x *G.Node) (*G.Node, error) {
		d, err := graph.Linear(graph.Diff{}, x)
		if err != nil {
			return nil, err
		}
		return G.Mul(G.Must(G.Sum(G.Must(G.Square(d)))), G.NewConstant(0.5))
	}, h, w, 8)
	if err != nil {
		t.Fatal(err)
	}
	x, u := pointAndDirection(n*h*w, 3)
	got := make([]float64, len(x))
	if err := r.HessVec(got, x, u, n, h, w); err != nil {
		t.Fatal(err)
	}
	in := tensor.Shape{n, h, w}
	out, _ := graph.Diff{}.OutShape(in)
	du := make([]float64, out.TotalSize())
	want := make([]float64, len(x))
	if err := (graph.Diff{}).Apply(du, u, in); err != nil {
		t.Fatal(err)
	}
	if err := (graph.Diff{}).Adjoint(want, du, in); err != nil {
		t.Fatal(err)
	}
	if d := maxRelDiff(got, want); d > 1e-9 {
		t.Errorf("HessVec of ½‖Dx‖² differs from DᵀD u by %.3g (relative to max |DᵀD u|)", d)
	}
}

// TestAutoHessVecMatchesCentralDifferences: on the smooth Cauchy penalty,
// HessVec agrees with plain central differences of ∇S at another step.
func TestAutoHessVecMatchesCentralDifferences(t *testing.T) {
	const n, h, w = 2, 10, 10
	r, err := NewAutoRegularizer("cauchy-test", func(x *G.Node) (*G.Node, error) {
		d, err := graph.Linear(graph.Diff{}, x)
		if err != nil {
			return nil, err
		}
		r2 := G.Must(G.Sum(G.Must(G.Square(d)), 1))
		return G.Sum(G.Must(G.Log1p(G.Must(G.Mul(r2, G.NewConstant(100.0))))))
	}, h, w, 1600)
	if err != nil {
		t.Fatal(err)
	}
	x, u := pointAndDirection(n*h*w, 5)
	got := make([]float64, len(x))
	if err := r.HessVec(got, x, u, n, h, w); err != nil {
		t.Fatal(err)
	}
	const step = 1e-6
	xp, xm := make([]float64, len(x)), make([]float64, len(x))
	for i := range x {
		xp[i], xm[i] = x[i]+step*u[i], x[i]-step*u[i]
	}
	gp, gm := make([]float64, len(x)), make([]float64, len(x))
	if err := r.ValueGrad(nil, gp, xp, n, h, w); err != nil {
		t.Fatal(err)
	}
	if err := r.ValueGrad(nil, gm, xm, n, h, w); err != nil {
		t.Fatal(err)
	}
	want := make([]float64, len(x))
	for i := range want {
		want[i] = (gp[i] - gm[i]) / (2 * step)
	}
	if d := maxRelDiff(got, want); d > 1e-6 {
		t.Errorf("HessVec differs from central differences of ∇S by %.3g (relative to the largest entry)", d)
	}
	zero := make([]float64, len(x))
	if err := r.HessVec(got, x, zero, n, h, w); err != nil || maxAbs(got) != 0 {
		t.Errorf("H·0 = %v (max %g), want 0", err, maxAbs(got))
	}
}

// pointAndDirection returns a point uniform in [0, 1] and a normal direction.
func pointAndDirection(n int, seed uint64) (x, u []float64) {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	x, u = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], u[i] = rng.Float64(), rng.NormFloat64()
	}
	return x, u
}

func maxRelDiff(a, b []float64) float64 {
	var d, s float64
	for i := range a {
		d, s = math.Max(d, math.Abs(a[i]-b[i])), math.Max(s, math.Abs(b[i]))
	}
	return d / s
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
