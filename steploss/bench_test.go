package steploss

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/models"
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
	benchMethod(b, testproblems.Method(b, name), size, paths)
}

// benchMethod is benchStepLoss for the method m on images of size×size.
func benchMethod(b *testing.B, m models.Method, size int, paths stepPaths) {
	benchMethodBlock(b, m, size, paths, -1)
}

// benchMethodBlock is benchMethod evaluating in block mode (StepLoss.EvalBlock)
// on block (0: θ, 1: φ), the other block frozen; block −1 evaluates the
// whole loss (StepLoss.Eval).
func benchMethodBlock(b *testing.B, m models.Method, size int, paths stepPaths, block int) {
	o := testproblems.DeblurSet(b, 25, size, 1)
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
	at := 0 // the entry perturbed: in the moving block
	if block >= 0 {
		g = make([]float64, loss.BlockLen(block))
		if block == 1 {
			at = loss.ThetaLen()
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testsupport.CPUSeconds()
	for i := 0; i < b.N; i++ {
		u[at] += 1e-9 // defeat the last-value cache; the frozen block stays
		var err error
		if block < 0 {
			_, err = loss.Eval(u, g)
		} else {
			_, err = loss.EvalBlock(block, u, g)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((testsupport.CPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
}

func BenchmarkStepLossMPS(b *testing.B)      { benchStepLoss(b, "m-ps", stepPaths{}) }
func BenchmarkStepLossMPSBound(b *testing.B) { benchStepLoss(b, "m-ps", stepPaths{noAffine: true}) }
func BenchmarkStepLossMPC(b *testing.B)      { benchStepLoss(b, "m-pc", stepPaths{}) }
func BenchmarkStepLossPP(b *testing.B)       { benchStepLoss(b, "pp", stepPaths{}) }

// Block mode (NAG's evaluations): θ moves and φ is frozen, or the reverse.
func BenchmarkStepLossMPCBlockTheta(b *testing.B) {
	benchMethodBlock(b, testproblems.Method(b, "m-pc"), 96, stepPaths{}, 0)
}
func BenchmarkStepLossMPCBlockPhi(b *testing.B) {
	benchMethodBlock(b, testproblems.Method(b, "m-pc"), 96, stepPaths{}, 1)
}
func BenchmarkStepLossMPSBlockTheta(b *testing.B) {
	benchMethodBlock(b, testproblems.Method(b, "m-ps"), 96, stepPaths{}, 0)
}
func BenchmarkStepLossMPPBlockTheta(b *testing.B) {
	benchMethodBlock(b, testproblems.Method(b, "m-pp"), 96, stepPaths{}, 0)
}

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
	benchMethod(b, models.Method{G: testproblems.OuterWeights{}, H: models.Scalar{}}, 96, stepPaths{})
}
func BenchmarkStepLossFullGraphSeparable(b *testing.B) {
	benchMethod(b, models.Method{G: testproblems.OuterWeights{}, H: models.Scalar{}}, 96, stepPaths{fullGraph: true})
}

// BenchmarkGradF times one batched ∇f by the direct kernels (25 images of 96×96).
func BenchmarkGradF(b *testing.B) {
	o := testproblems.DeblurSet(b, 25, 96, 1)
	grad := make([]float64, len(o.X0))
	ws := &problem.Workspace{}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testsupport.CPUSeconds()
	for i := 0; i < b.N; i++ {
		if err := o.Eval(nil, grad, o.X0, ws); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((testsupport.CPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
}

// BenchmarkStepLossDevice times the step loss on the CPU device's array
// operations (the engine's device pass on gpu.CPU(), the code path a CUDA device runs) against
// the fast evaluators, N = 25 images of 96×96.
func BenchmarkStepLossDevice(b *testing.B) {
	for _, name := range []string{"m-ps", "m-pc"} {
		b.Run(name+"/fast", func(b *testing.B) { benchStepLoss(b, name, stepPaths{}) })
		b.Run(name+"/host-ops", func(b *testing.B) { benchStepLoss(b, name, stepPaths{device: gpu.CPU()}) })
	}
}
