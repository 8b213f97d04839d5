package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestBindersMatchGraphBinder checks every family's own bound operator
// against its graph term (GraphBinder, the oracle): AddApply and AddAdjoint
// agree to rounding, after a second Bind with a new operand too (the graph
// is re-run, not rebuilt).
func TestBindersMatchGraphBinder(t *testing.T) {
	const n, h, w = 2, 7, 9
	r := rand.New(rand.NewPCG(11, 12))
	for _, p := range []Parametrization{Scalar{}, Pointwise{}, SmallConv{K: 3, Boundary: kernels.Zero}, SmallConv{K: 5, Boundary: kernels.Reflect}, NewFullConv(), Full{}} {
		gb := NewGraphBinder(p)
		for round := range 2 {
			v := randVec(r, n*h*w, 1)
			theta := randVec(r, p.ParamShape(h, w).TotalSize(), 1)
			rr := randVec(r, n*h*w, 1)
			fast, err := p.(Binder).Bind(v, n, h, w)
			if err != nil {
				t.Fatal(err)
			}
			slow, err := gb.Bind(v, n, h, w)
			if err != nil {
				t.Fatal(err)
			}
			want, got := make([]float64, n*h*w), make([]float64, n*h*w)
			if err := fast.AddApply(want, theta, -0.5); err != nil {
				t.Fatal(err)
			}
			if err := slow.AddApply(got, theta, -0.5); err != nil {
				t.Fatal(err)
			}
			if d := maxRel(got, want); d > 1e-12 {
				t.Errorf("%s round %d: AddApply differs by %.2g relative", p.Name(), round, d)
			}
			wantAdj, gotAdj := make([]float64, len(theta)), make([]float64, len(theta))
			if err := fast.AddAdjoint(wantAdj, rr, 3); err != nil {
				t.Fatal(err)
			}
			if err := slow.AddAdjoint(gotAdj, rr, 3); err != nil {
				t.Fatal(err)
			}
			if d := maxRel(gotAdj, wantAdj); d > 1e-12 {
				t.Errorf("%s round %d: AddAdjoint differs by %.2g relative", p.Name(), round, d)
			}
		}
		if err := gb.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// squared is a parametrization nonlinear in θ: G_θ v = θ²·v (one scalar).
type squared struct{}

func (squared) Name() string                              { return "squared" }
func (squared) ParamShape(h, w int) tensor.Shape          { return tensor.Shape{1} }
func (squared) Reference(tau float64, h, w int) []float64 { return []float64{math.Sqrt(tau)} }
func (squared) Apply(theta, v *G.Node) (*G.Node, error) {
	t2, err := G.Mul(theta, theta)
	if err != nil {
		return nil, err
	}
	return G.BroadcastHadamardProd(t2, v, []byte{0, 1, 2}, nil)
}

// TestGraphBinderNonlinear checks GraphBinder on an Apply nonlinear in θ:
// AddAdjoint is the derivative of ⟨G_θ v, r⟩ at the θ of the last AddApply,
// 2θ⟨v, r⟩ in closed form.
func TestGraphBinderNonlinear(t *testing.T) {
	const n, h, w = 2, 3, 4
	r := rand.New(rand.NewPCG(13, 14))
	v, rr := randVec(r, n*h*w, 1), randVec(r, n*h*w, 1)
	gb := NewGraphBinder(squared{})
	defer gb.Close()
	bd, err := gb.Bind(v, n, h, w)
	if err != nil {
		t.Fatal(err)
	}
	for _, theta := range []float64{0.7, -1.3} {
		out := make([]float64, n*h*w)
		if err := bd.AddApply(out, []float64{theta}, 1); err != nil {
			t.Fatal(err)
		}
		if got, want := out[5], theta*theta*v[5]; math.Abs(got-want) > 1e-15 {
			t.Errorf("θ = %g: G_θ v[5] = %g, want %g", theta, got, want)
		}
		adj := []float64{0}
		if err := bd.AddAdjoint(adj, rr, 1); err != nil {
			t.Fatal(err)
		}
		if want := 2 * theta * kernels.Dot(v, rr); relDiff(adj[0], want) > 1e-13 {
			t.Errorf("θ = %g: adjoint %.15g, want 2θ⟨v, r⟩ = %.15g", theta, adj[0], want)
		}
	}
	if _, err := gb.Bind(v[1:], n, h, w); err == nil {
		t.Error("a batch of the wrong length was bound")
	}
}

func maxRel(got, want []float64) float64 {
	var d, s float64
	for i := range want {
		d = math.Max(d, math.Abs(got[i]-want[i]))
		s = math.Max(s, math.Abs(want[i]))
	}
	return d / s
}

// TestRebindIsBind checks that rebinding a bound operator in place
// (Rebinder) gives bitwise what binding the new operand afresh gives.
func TestRebindIsBind(t *testing.T) {
	const n, h, w = 2, 6, 8
	r := rand.New(rand.NewPCG(15, 16))
	for _, p := range []Parametrization{Scalar{}, Pointwise{}, SmallConv{K: 3, Boundary: kernels.Zero}, NewFullConv()} {
		v1, v2 := randVec(r, n*h*w, 1), randVec(r, n*h*w, 1)
		theta, rr := randVec(r, p.ParamShape(h, w).TotalSize(), 1), randVec(r, n*h*w, 1)
		old, err := p.(Binder).Bind(v1, n, h, w)
		if err != nil {
			t.Fatal(err)
		}
		rb, ok := old.(Rebinder)
		if !ok {
			t.Fatalf("%s: its bound operator does not rebind", p.Name())
		}
		if err := rb.Rebind(v2); err != nil {
			t.Fatal(err)
		}
		fresh, err := p.(Binder).Bind(v2, n, h, w)
		if err != nil {
			t.Fatal(err)
		}
		var outs, adjs [2][]float64
		for q, bd := range []Bound{old, fresh} {
			outs[q], adjs[q] = make([]float64, n*h*w), make([]float64, len(theta))
			if err := bd.AddApply(outs[q], theta, -1); err != nil {
				t.Fatal(err)
			}
			if err := bd.AddAdjoint(adjs[q], rr, 1); err != nil {
				t.Fatal(err)
			}
		}
		if maxRel(outs[0], outs[1]) != 0 || maxRel(adjs[0], adjs[1]) != 0 {
			t.Errorf("%s: rebound and fresh operators differ", p.Name())
		}
		if err := rb.Rebind(v2[1:]); err == nil {
			t.Errorf("%s: rebound a batch of the wrong length", p.Name())
		}
	}
}
