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
