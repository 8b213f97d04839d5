package greedy

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/param"
	"github.com/greedyl2o/greedyl2o/problem"
)

// benchStepLoss times one evaluation of the greedy step loss and its gradient
// for N = 25 images of 96×96 (Problem 1), on the paths that paths allows.
// cpu-ms/op is the process's CPU time per evaluation (all threads): on a
// loaded machine it is steadier than the wall time.
func benchStepLoss(b *testing.B, name string, paths stepPaths) {
	benchStepLossSize(b, name, 96, paths)
}

// benchStepLossSize is benchStepLoss on images of size×size.
func benchStepLossSize(b *testing.B, name string, size int, paths stepPaths) {
	benchMethod(b, method(b, name), size, paths)
}

// benchMethod is benchStepLoss for the method m on images of size×size.
func benchMethod(b *testing.B, m param.Method, size int, paths stepPaths) {
	o := deblurSet(b, 25, size, 1)
	loss, err := newStepLoss(m, o, 1/o.L, paths)
	if err != nil {
		b.Fatal(err)
	}
	defer loss.Close()
	grad := make([]float64, len(o.X0))
	if err := o.Eval(nil, grad, o.X0, nil); err != nil {
		b.Fatal(err)
	}
	p := make([]float64, len(o.X0))
	for i := range p {
		p[i] = 0.01 * grad[i]
	}
	if err := loss.SetStep(o.X0, grad, p, 0, 0); err != nil {
		b.Fatal(err)
	}
	u := loss.Reference()
	g := make([]float64, len(u))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPUSeconds()
	for i := 0; i < b.N; i++ {
		u[0] += 1e-9 // defeat the last-value cache
		if _, err := loss.Eval(u, g); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((processCPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
}

func BenchmarkStepLossMPS(b *testing.B)      { benchStepLoss(b, "m-ps", stepPaths{}) }
func BenchmarkStepLossMPSBound(b *testing.B) { benchStepLoss(b, "m-ps", stepPaths{noAffine: true}) }
func BenchmarkStepLossMPC(b *testing.B)      { benchStepLoss(b, "m-pc", stepPaths{}) }
func BenchmarkStepLossPP(b *testing.B)       { benchStepLoss(b, "pp", stepPaths{}) }

// PF at 40×40 (2.56 million parameters): in the reduced coordinates of the
// gradients' span, and on the full matrix.
func BenchmarkStepLossPF40(b *testing.B) { benchStepLossSize(b, "pf", 40, stepPaths{}) }
func BenchmarkStepLossPF40Full(b *testing.B) {
	benchStepLossSize(b, "pf", 40, stepPaths{noReduce: true})
}

// The graph evaluator (direct objective, graph of the parametrizations'
// forward expressions) on built-in methods, against the fast paths above,
// and the whole loss as one graph (the earlier graph path).
func BenchmarkStepLossGraphMPS(b *testing.B) { benchStepLoss(b, "m-ps", stepPaths{graphOnly: true}) }
func BenchmarkStepLossGraphMPC(b *testing.B) { benchStepLoss(b, "m-pc", stepPaths{graphOnly: true}) }
func BenchmarkStepLossGraphPP(b *testing.B)  { benchStepLoss(b, "pp", stepPaths{graphOnly: true}) }
func BenchmarkStepLossFullGraphMPS(b *testing.B) {
	benchStepLoss(b, "m-ps", stepPaths{fullGraph: true})
}
func BenchmarkStepLossFullGraphMPC(b *testing.B) {
	benchStepLoss(b, "m-pc", stepPaths{fullGraph: true})
}

// A user type without a fast path (outerWeights: pointwise weights a_i b_j,
// H + W parameters, written only as a forward expression) with a scalar
// momentum, on its default evaluator (the graph evaluator) and as one graph;
// pp:ps (pointwise weights, bound) is the fast path of a like operator.
func BenchmarkStepLossPPPS(b *testing.B) { benchStepLoss(b, "pp:ps", stepPaths{}) } // the bound path of a like operator
func BenchmarkStepLossGraphSeparable(b *testing.B) {
	benchMethod(b, param.Method{G: outerWeights{}, H: param.Scalar{}}, 96, stepPaths{})
}
func BenchmarkStepLossFullGraphSeparable(b *testing.B) {
	benchMethod(b, param.Method{G: outerWeights{}, H: param.Scalar{}}, 96, stepPaths{fullGraph: true})
}

// BenchmarkGradF times one batched ∇f by the direct kernels (25 images of 96×96).
func BenchmarkGradF(b *testing.B) {
	o := deblurSet(b, 25, 96, 1)
	grad := make([]float64, len(o.X0))
	ws := &problem.Workspace{}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPUSeconds()
	for i := 0; i < b.N; i++ {
		if err := o.Eval(nil, grad, o.X0, ws); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((processCPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
}
