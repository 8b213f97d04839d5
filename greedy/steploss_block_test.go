package greedy

import (
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/param"
)

// blockMethods are the methods of the block-mode tests, with the evaluator
// each gets and the paths that choose it: the affine form (M-PS), bound
// operators with both terms spectral (M-PC), neither (M-PP), one of each in
// both orders (PC:PS, PP:PC), a reduced block (PF:PS), and graphs (a user
// type without a fast path, M-PC on the graph and as one whole graph).
func blockMethods(t *testing.T) []struct {
	name  string
	m     param.Method
	paths stepPaths
	kind  string
} {
	return []struct {
		name  string
		m     param.Method
		paths stepPaths
		kind  string
	}{
		{"m-ps", method(t, "m-ps"), stepPaths{}, "affine"},
		{"m-ps bound", method(t, "m-ps"), stepPaths{noAffine: true}, "bound"},
		{"m-pc", method(t, "m-pc"), stepPaths{}, "bound"},
		{"m-pp", method(t, "m-pp"), stepPaths{}, "bound"},
		{"pc:ps", method(t, "pc:ps"), stepPaths{}, "bound"},
		{"pp:pc", method(t, "pp:pc"), stepPaths{}, "bound"},
		{"m-pc5", method(t, "m-pc5"), stepPaths{}, "bound"},
		{"pf:ps", method(t, "pf:ps"), stepPaths{}, "reduced"},
		{"pc", method(t, "pc"), stepPaths{}, "bound"},
		{"outer:ps", param.Method{G: outerWeights{}, H: param.Scalar{}}, stepPaths{}, "graph"},
		{"graph-only pc5:outer", param.Method{G: graphOnly{param.SmallConv{K: 5}}, H: outerWeights{}}, stepPaths{}, "graph"},
		{"m-pc graph", method(t, "m-pc"), stepPaths{graphOnly: true}, "graph"},
		{"m-pc full graph", method(t, "m-pc"), stepPaths{fullGraph: true}, "full-graph"},
	}
}

// relDiff is |a − b| relative to the largest magnitude of want (or 1e-300).
func relDiff(got, want []float64) float64 {
	scale := math.Max(maxAbs(want), 1e-300)
	var d float64
	for i := range got {
		d = math.Max(d, math.Abs(got[i]-want[i]))
	}
	return d / scale
}

// TestEvalBlockMatchesEval checks StepLoss.EvalBlock against Eval (value and
// the block's gradient to 1e-12) for every evaluator, through a sequence
// that reuses the frozen term (only the active block changes), renews it
// (the frozen block changes, the active block switches, a new step), and
// interleaves full evaluations.
func TestEvalBlockMatchesEval(t *testing.T) {
	const tol = 1e-12
	o := deblurSet(t, 3, 16, 2)
	x, g, p := stepData(t, o, 1)
	x2, g2, p2 := stepData(t, o, 2)
	for i := range x2 { // another step: other iterates, gradients, momentum
		x2[i] += 0.1 * p2[i]
	}
	for _, mc := range blockMethods(t) {
		t.Run(mc.name, func(t *testing.T) {
			s := newLoss(t, mc.m, o, mc.paths, mc.kind)
			if err := s.SetStep(x, g, p, 0.3, 0.7); err != nil {
				t.Fatal(err)
			}
			blocks := 1
			if mc.m.H != nil {
				blocks = 2
			}
			u := perturbed(s.Reference(), 0.05, 9)
			bitwise := true
			check := func(what string, b int) {
				t.Helper()
				gb := make([]float64, s.BlockLen(b))
				vb, err := s.EvalBlock(b, u, gb)
				if err != nil {
					t.Fatal(err)
				}
				full := make([]float64, s.Dim())
				v, err := s.Eval(u, full)
				if err != nil {
					t.Fatal(err)
				}
				want := full[:s.ThetaLen()]
				if b == 1 {
					want = full[s.ThetaLen():]
				}
				if d := math.Abs(vb-v) / math.Abs(v); !(d <= tol) {
					t.Errorf("%s, block %d: value %.17g, Eval's %.17g (rel %.2g)", what, b, vb, v, d)
				}
				if d := relDiff(gb, want); !(d <= tol) {
					t.Errorf("%s, block %d: gradient differs from Eval's by %.2g relative to its largest entry", what, b, d)
				}
				if vb != v || relDiff(gb, want) != 0 {
					bitwise = false
				}
			}
			move := func(b int, seed uint64) { // perturbs block b of u
				lo, hi := 0, s.ThetaLen()
				if b == 1 {
					lo, hi = s.ThetaLen(), s.Dim()
				}
				d := perturbed(make([]float64, hi-lo), 0.01, seed)
				for i := range d {
					u[lo+i] += d[i]
				}
			}
			for b := 0; b < blocks; b++ {
				check("first", b)
				move(b, 11) // the active block moves: the frozen term is reused
				check("active block moved", b)
				move(b, 12)
				check("active block moved again", b)
				if blocks > 1 {
					move(1-b, 13) // the frozen block moves: it is renewed
					check("frozen block moved", b)
				}
			}
			// A new step renews the frozen term.
			if err := s.SetStep(x2, g2, p2, 0.3, 0.7); err != nil {
				t.Fatal(err)
			}
			check("new step", blocks-1)
			check("new step, other block", 0)
			t.Logf("%s (%s): bitwise equal to Eval: %t", mc.name, s.ev.kind(), bitwise)
		})
	}
}

// TestEvalBlockErrors checks the block number and the gradient's length.
func TestEvalBlockErrors(t *testing.T) {
	o := deblurSet(t, 2, 8, 1)
	x, g, p := stepData(t, o, 1)
	for _, name := range []string{"m-pc", "pc"} {
		s := newLoss(t, method(t, name), o, stepPaths{}, "bound")
		if err := s.SetStep(x, g, p, 0, 0); err != nil {
			t.Fatal(err)
		}
		u := s.Reference()
		if _, err := s.EvalBlock(2, u, make([]float64, 1)); err == nil {
			t.Errorf("%s: block 2 accepted", name)
		}
		if _, err := s.EvalBlock(0, u, make([]float64, s.BlockLen(0)+1)); err == nil {
			t.Errorf("%s: a gradient of the wrong length accepted", name)
		}
		if _, err := s.EvalBlock(0, u[1:], make([]float64, s.BlockLen(0))); err == nil {
			t.Errorf("%s: parameters of the wrong length accepted", name)
		}
	}
}

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
	for _, mc := range blockMethods(t) {
		if mc.paths != (stepPaths{}) {
			continue
		}
		for _, step := range []StepRule{StepExact, StepPaper} {
			t.Run(mc.name+"/"+string(step), func(t *testing.T) {
				train := func(full bool) *Result {
					res, err := Train(o, Config{Method: mc.m, MaxSteps: 3, KeepParams: true,
						Inner: NAG{Iters: 6, Rounds: 3, Step: step, fullEvals: full}})
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
						if d := relDiff(pr[0], pr[1]); !(d <= 1e-10) {
							t.Errorf("step %d: parameters differ by %.2g relative to the largest", i, d)
						} else if d != 0 {
							bitwise = false
						}
					}
					extra := 0
					if mc.name == "graph-only pc5:outer" && i > 0 {
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
