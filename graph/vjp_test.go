package graph

import (
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
	G "gorgonia.org/gorgonia"
)

// TestVJP builds two outputs of the parameters (a, b, s), one nonlinear in
// them, y1 = (a bᵀ) ⊙ v1 per image and y2 = s·v2, with one shared cotangent
// c, and checks the forward values and Σ_i J_iᵀ c against central
// differences of ⟨y1 + y2, c⟩, over several runs with changing inputs.
func TestVJP(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	n, h, w := 2, 3, 4
	g := G.NewGraph()
	a, b, s := Input(g, "a", h), Input(g, "b", w), Input(g, "s", 1)
	v1, v2 := Input(g, "v1", n, h, w), Input(g, "v2", n, h, w)
	c := Input(g, "c", n, h, w)
	weights, err := Bilinear(Outer{}, a, b)
	if err != nil {
		t.Fatal(err)
	}
	y1, err := Bilinear(Pointwise{}, weights, v1)
	if err != nil {
		t.Fatal(err)
	}
	y2, err := Bilinear(Scale{}, s, v2)
	if err != nil {
		t.Fatal(err)
	}
	vjp, err := NewVJP(g, G.Nodes{y1, y2}, G.Nodes{c, c}, G.Nodes{a, b, s})
	if err != nil {
		t.Fatal(err)
	}
	defer vjp.Close()
	params := []*G.Node{a, b, s}
	// f(p) = ⟨y1(p) + y2(p), c⟩ computed by the forward machine alone.
	f := func(p [][]float64, cv []float64) float64 {
		for i, n := range params {
			if err := Set(n, p[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := vjp.Forward(); err != nil {
			t.Fatal(err)
		}
		o1, _ := vjp.Output(0)
		o2, _ := vjp.Output(1)
		return kernels.Dot(o1, cv) + kernels.Dot(o2, cv)
	}
	for run := 0; run < 3; run++ {
		p := [][]float64{randVec(r, h), randVec(r, w), randVec(r, 1)}
		vv1, vv2, cv := randVec(r, n*h*w), randVec(r, n*h*w), randVec(r, n*h*w)
		_ = Set(v1, vv1)
		_ = Set(v2, vv2)
		_ = Set(c, cv)
		f(p, cv)
		o1, _ := vjp.Output(0)
		for k := 0; k < n; k++ {
			for i := 0; i < h; i++ {
				for j := 0; j < w; j++ {
					at := (k*h+i)*w + j
					if d := relDiff(o1[at], p[0][i]*p[1][j]*vv1[at]); d > 1e-14 {
						t.Fatalf("run %d: y1[%d] off by %g", run, at, d)
					}
				}
			}
		}
		if err := vjp.Backward(); err != nil {
			t.Fatal(err)
		}
		for i := range params {
			gr, err := vjp.Grad(i)
			if err != nil {
				t.Fatal(err)
			}
			gr = append([]float64(nil), gr...)
			d := randVec(r, len(gr))
			const step = 1e-6
			plus, minus := clone(p), clone(p)
			for j := range d {
				plus[i][j] += step * d[j]
				minus[i][j] -= step * d[j]
			}
			fd := (f(plus, cv) - f(minus, cv)) / (2 * step)
			if e := relDiff(fd, kernels.Dot(gr, d)); e > 1e-7 {
				t.Errorf("run %d, parameter %s: ⟨Jᵀc, d⟩ = %g, central difference %g", run, params[i].Name(), kernels.Dot(gr, d), fd)
			}
		}
	}
}

func clone(p [][]float64) [][]float64 {
	out := make([][]float64, len(p))
	for i := range p {
		out[i] = append([]float64(nil), p[i]...)
	}
	return out
}

// TestVJPRejects checks the argument checks of NewVJP.
func TestVJPRejects(t *testing.T) {
	g := G.NewGraph()
	s, v := Input(g, "s", 1), Input(g, "v", 2, 3, 3)
	y, err := Bilinear(Scale{}, s, v)
	if err != nil {
		t.Fatal(err)
	}
	wrong := Input(g, "c", 2, 3, 4)
	if _, err := NewVJP(g, G.Nodes{y}, G.Nodes{wrong}, G.Nodes{s}); err == nil {
		t.Error("a cotangent of the wrong shape was accepted")
	}
	if _, err := NewVJP(g, G.Nodes{y}, G.Nodes{y}, G.Nodes{s}); err == nil {
		t.Error("a computed node was accepted as a cotangent")
	}
	if _, err := NewVJP(g, G.Nodes{y}, nil, G.Nodes{s}); err == nil {
		t.Error("missing cotangents were accepted")
	}
}

// TestInputOnSharesItsBuffer builds two graphs whose cotangent inputs are
// backed by one buffer (InputOn): writing the buffer sets both, and each
// graph's product is that of its own Set-fed twin, bitwise; the buffer is
// not written by the backward passes.
func TestInputOnSharesItsBuffer(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	n, h, w := 2, 3, 4
	shared := make([]float64, n*h*w)
	build := func(own bool) (*VJP, *G.Node, *G.Node, *G.Node) {
		g := G.NewGraph()
		s, v := Input(g, "s", 1), Input(g, "v", n, h, w)
		var c *G.Node
		if own {
			c = Input(g, "c", n, h, w)
		} else {
			c = InputOn(g, "c", shared, n, h, w)
		}
		y, err := Bilinear(Scale{}, s, v)
		if err != nil {
			t.Fatal(err)
		}
		vjp, err := NewVJP(g, G.Nodes{y}, G.Nodes{c}, G.Nodes{s})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { vjp.Close() })
		return vjp, s, v, c
	}
	type pair struct {
		vjp     *VJP
		s, v, c *G.Node
	}
	var on, own [2]pair
	for i := range on {
		on[i].vjp, on[i].s, on[i].v, on[i].c = build(false)
		own[i].vjp, own[i].s, own[i].v, own[i].c = build(true)
	}
	for run := 0; run < 3; run++ {
		copy(shared, randVec(r, len(shared)))
		before := append([]float64(nil), shared...)
		for i := range on {
			sv, vv := randVec(r, 1), randVec(r, n*h*w)
			for _, p := range []pair{on[i], own[i]} {
				_ = Set(p.s, sv)
				_ = Set(p.v, vv)
			}
			_ = Set(own[i].c, shared)
			for _, p := range []pair{on[i], own[i]} {
				if err := p.vjp.Forward(); err != nil {
					t.Fatal(err)
				}
				if err := p.vjp.Backward(); err != nil {
					t.Fatal(err)
				}
			}
			got, _ := on[i].vjp.Grad(0)
			want, _ := own[i].vjp.Grad(0)
			if got[0] != want[0] || got[0] != kernels.Dot(vv, before) {
				t.Errorf("run %d, graph %d: product %v, the Set-fed graph's %v, ⟨v, c⟩ = %v", run, i, got[0], want[0], kernels.Dot(vv, before))
			}
		}
		for i := range shared {
			if shared[i] != before[i] {
				t.Fatalf("run %d: the shared buffer was written at %d", run, i)
			}
		}
	}
	// A name already taken by an input of the same shape is refused.
	defer func() {
		if recover() == nil {
			t.Error("InputOn with a name already in the graph did not panic")
		}
	}()
	g := G.NewGraph()
	Input(g, "c", n, h, w)
	InputOn(g, "c", shared, n, h, w)
}
