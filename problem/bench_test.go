package problem

import (
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/kernels"
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

// BenchmarkGradP1: Problem 1's batched f and ∇f (N = 25, 96×96, zero
// boundary, α = 2e-4, ε = 0.005) in float64 (Objective.Eval, the path the
// tool uses) and in float32 (FusedObjective[float32]); both run the same
// generic kernels. cpu-ns/op is the CPU time of all threads per evaluation.
// Run with -cpu 2,1 for GOMAXPROCS 2 and 1.
func BenchmarkGradP1(b *testing.B) {
	o := benchObjective(b) // zero boundary: the default
	b.Run("float64", func(b *testing.B) {
		vals, grad := make([]float64, o.N), make([]float64, len(o.X0))
		ws := &Workspace{}
		if err := o.Eval(vals, grad, o.X0, ws); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		cpu := testsupport.CPUTime()
		for range b.N {
			if err := o.Eval(vals, grad, o.X0, ws); err != nil {
				b.Fatal(err)
			}
		}
		testsupport.ReportCPU(b, cpu)
	})
	b.Run("float32", func(b *testing.B) {
		e, err := NewFusedObjective[float32](o)
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		x := make([]float32, len(o.X0))
		kernels.Convert(x, o.X0)
		vals, grad := make([]float64, o.N), make([]float32, len(o.X0))
		if err := e.Eval(vals, grad, x); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		cpu := testsupport.CPUTime()
		for range b.N {
			if err := e.Eval(vals, grad, x); err != nil {
				b.Fatal(err)
			}
		}
		testsupport.ReportCPU(b, cpu)
	})
}
