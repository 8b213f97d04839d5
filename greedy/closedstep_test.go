package greedy

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// TestClosedStep checks NAG's closed step rule on M-PC: the closed form of
// each PC block's curvature is what the power iteration estimates (which
// approaches it from below: within 1e-4, never above), and a training with it
// takes other steps than StepExact (no margin) while staying within 1e-2 of
// its parameters.
func TestClosedStep(t *testing.T) {
	o := deblurSet(t, 4, 16, 3)
	m := testproblems.Method(t, "m-pc")
	x, g, p := testproblems.StepData(t, o, 3)
	loss, err := steploss.NewStepLoss(m, o, 1/o.L)
	if err != nil {
		t.Fatal(err)
	}
	defer loss.Close()
	if err := loss.SetStep(x, g, p, 0, 0); err != nil {
		t.Fatal(err)
	}
	for b, v := range [][]float64{g, p} {
		closed, ok, err := loss.SpectralCurvature(b)
		if err != nil || !ok {
			t.Fatalf("block %d: ok %v, err %v", b, ok, err)
		}
		exact, err := blockCurvature([]models.Parametrization{m.G, m.H}[b], v, o.N, o.H, o.W)
		if err != nil {
			t.Fatal(err)
		}
		// The power iteration approaches the largest eigenvalue from below.
		raw := exact / (1 + 1e-3)
		if raw > closed*(1+1e-12) || (closed-raw)/closed > 1e-4 {
			t.Errorf("block %d: closed form %v, power iteration %v (without its margin)", b, closed, raw)
		}
	}
	train := func(step StepRule) *Result {
		res, err := Train(o, Config{
			Method: Method{Param: m},
			Solver: Solver{Inner: NAG{Iters: 20, Rounds: 2, Step: step}},
			Stop:   Stop{MaxSteps: 2},
			Store:  Store{KeepParams: true},
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	cl, ex := train(StepClosed), train(StepExact)
	for i := range cl.Theta {
		d := testsupport.RelDiff(cl.Theta[i], ex.Theta[i])
		if d == 0 || d > 1e-2 {
			t.Errorf("step %d: θ of the closed and exact rules differ by %.2g relative (want > 0 and ≤ 1e-2)", i, d)
		}
	}
}
