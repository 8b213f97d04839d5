package greedy

import (
	"testing"
	"time"

	"github.com/greedyl2o/greedyl2o/internal/testsupport"
)

// nagBenchIters is the NAG iterations a block of the NAG step benchmarks, a
// hundredth of the paper's 1,000: the cost of a step is proportional to its
// evaluations (20,000 at the paper's budget), which the benchmarks
// extrapolate to.
const nagBenchIters = 10

// timedInner is an inner solver that times its Minimize calls (wall and
// process CPU) and counts their evaluations.
type timedInner struct {
	InnerSolver
	wall  time.Duration
	cpu   float64
	evals int
}

func (t *timedInner) Minimize(sp *Subproblem, u0 []float64) ([]float64, error) {
	began, cpu, evals := time.Now(), testsupport.CPUSeconds(), sp.Loss.Evaluations()
	u, err := t.InnerSolver.Minimize(sp, u0)
	t.wall += time.Since(began)
	t.cpu += testsupport.CPUSeconds() - cpu
	t.evals += sp.Loss.Evaluations() - evals
	return u, err
}

// benchNAGStep times one greedy step (Train with MaxSteps 1) of M-PC on
// N = 25 images of 96×96 with the paper's NAG (its step bound, 10 rounds)
// at nagBenchIters iterations a block, and extrapolates to the paper's
// budget of 1,000 iterations a block (20,000 evaluations): the step's time
// outside NAG plus 20,000 times NAG's time per evaluation, in wall seconds
// (paper-s/step) and CPU seconds of all threads (paper-cpu-s/step); also
// NAG's time per evaluation (ms/eval, cpu-ms/eval).
func benchNAGStep(b *testing.B, full bool) {
	o := deblurSet(b, 25, 96, 1)
	inner := &timedInner{InnerSolver: NAG{Iters: nagBenchIters, Rounds: 10, Step: StepPaper, fullEvals: full}}
	cfg := Config{Method: Method{Param: method(b, "m-pc")}, Solver: Solver{Inner: inner}, Stop: Stop{MaxSteps: 1}}
	var wall time.Duration
	b.ResetTimer()
	cpu := testsupport.CPUSeconds()
	for i := 0; i < b.N; i++ {
		began := time.Now()
		if _, err := Train(o, cfg); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(began)
	}
	cpuS := testsupport.CPUSeconds() - cpu
	n, evals := float64(b.N), float64(inner.evals)
	perEval, perEvalCPU := inner.wall.Seconds()/evals, inner.cpu/evals
	outside, outsideCPU := (wall-inner.wall).Seconds()/n, (cpuS-inner.cpu)/n
	b.ReportMetric(perEval*1e3, "ms/eval")
	b.ReportMetric(perEvalCPU*1e3, "cpu-ms/eval")
	b.ReportMetric(outside+perEval*20000, "paper-s/step")
	b.ReportMetric(outsideCPU+perEvalCPU*20000, "paper-cpu-s/step")
}

// BenchmarkNAGStepMPCPaper is NAG in block mode (the default);
// BenchmarkNAGStepMPCPaperFull evaluates the whole loss every iteration.
func BenchmarkNAGStepMPCPaper(b *testing.B) { benchNAGStep(b, false) }

func BenchmarkNAGStepMPCPaperFull(b *testing.B) { benchNAGStep(b, true) }
