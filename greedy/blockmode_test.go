package greedy

import (
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
)

// TestNAGBlockModeMatchesFullEvaluations trains a few steps with NAG in
// block mode (the default) and evaluating the whole loss every iteration:
// the parameters agree to 1e-10 (NAG's iterates are a function of the
// gradients, which agree), and so do the numbers of evaluations, but for
// graph-only pc5:outer: its φ = (a, b) starts at the saddle a = b = 0 where
// its gradient vanishes, so φ's block stays at u, and the full evaluations
// answer the first iteration of the next round's θ block from the last
// value (both gradients at u), which block mode has to compute (one more
// evaluation a round).
func TestNAGBlockModeMatchesFullEvaluations(t *testing.T) {
	o := deblurSet(t, 4, 16, 3)
	for _, mc := range testproblems.BlockMethods(t) { // each on its default evaluator
		for _, step := range []StepRule{StepExact, StepPaper} {
			t.Run(mc.Name+"/"+string(step), func(t *testing.T) {
				train := func(full bool) *Result {
					res, err := Train(o, Config{
						Method: Method{Param: mc.Method},
						Solver: Solver{Inner: NAG{Iters: 6, Rounds: 3, Step: step, fullEvals: full}},
						Stop:   Stop{MaxSteps: 3},
						Store:  Store{KeepParams: true},
					})
					if err != nil {
						t.Fatal(err)
					}
					return res
				}
				blk, full := train(false), train(true)
				if len(blk.Theta) != len(full.Theta) {
					t.Fatalf("%d steps in block mode, %d with full evaluations", len(blk.Theta), len(full.Theta))
				}
				bitwise := true
				for i := range blk.Theta {
					for _, pr := range [][2][]float64{{blk.Theta[i], full.Theta[i]}, {blk.Phi[i], full.Phi[i]}} {
						if d := testsupport.RelDiff(pr[0], pr[1]); !(d <= 1e-10) {
							t.Errorf("step %d: parameters differ by %.2g relative to the largest", i, d)
						} else if d != 0 {
							bitwise = false
						}
					}
					extra := 0
					if mc.Name == "graph-only pc5:outer" && i > 0 {
						extra = 3 // rounds
					}
					if blk.Steps[i].Evaluations != full.Steps[i].Evaluations+extra {
						t.Errorf("step %d: %d evaluations in block mode, %d with full evaluations", i, blk.Steps[i].Evaluations, full.Steps[i].Evaluations)
					}
				}
				t.Logf("bitwise equal: %t", bitwise)
			})
		}
	}
}
