package problem

import (
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	G "gorgonia.org/gorgonia"
)

func benchObjective(b *testing.B) *Objective {
	p, err := Deblur(Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	truth := make([]float64, 25*96*96)
	for i := range truth {
		truth[i] = r.Float64()
	}
	o, err := p.Instantiate(truth, 25, 0)
	if err != nil {
		b.Fatal(err)
	}
	return o
}

// BenchmarkGradDirect: batched f and ∇f by the direct kernels, 25 images of 96×96.
func BenchmarkGradDirect(b *testing.B) {
	o := benchObjective(b)
	vals, grad := make([]float64, o.N), make([]float64, len(o.X0))
	ws := &Workspace{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := o.Eval(vals, grad, o.X0, ws); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGradGraph: f and ∇f (as forward ops) by re-running a built graph.
func BenchmarkGradGraph(b *testing.B) {
	o := benchObjective(b)
	g := G.NewGraph()
	x := graph.Input(g, "x", o.N, o.H, o.W)
	y := graph.Input(g, "y", o.DataShape(o.N)...)
	if _, err := o.GraphValue(x, y); err != nil {
		b.Fatal(err)
	}
	if _, err := o.GraphGrad(x, y); err != nil {
		b.Fatal(err)
	}
	m := graph.NewMachine(g)
	defer m.Close()
	_ = graph.Set(x, o.X0)
	_ = graph.Set(y, o.Y)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := m.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
