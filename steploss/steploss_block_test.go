package steploss

import (
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/models"
)

// blockCase is a method of the block-mode tests with the paths it is
// evaluated on and the evaluator it gets there.
type blockCase struct {
	name  string
	m     models.Method
	paths stepPaths
	kind  string
}

// blockMethods are the methods of the block-mode tests
// (testproblems.BlockMethods: the affine form, bound operators with both,
// one or neither term spectral, a reduced block, user types on the graph),
// each on the evaluator it gets by default, and M-PS on bound operators and
// M-PC on the graph and as one whole graph.
func blockMethods(t *testing.T) []blockCase {
	kinds := map[string]string{"m-ps": "affine", "pf:ps": "reduced", "outer:ps": "graph", "graph-only pc5:outer": "graph"}
	var out []blockCase
	for _, nm := range testproblems.BlockMethods(t) {
		kind, ok := kinds[nm.Name]
		if !ok {
			kind = "bound"
		}
		out = append(out, blockCase{nm.Name, nm.Method, stepPaths{}, kind})
	}
	return append(out,
		blockCase{"m-ps bound", testproblems.Method(t, "m-ps"), stepPaths{noAffine: true}, "bound"},
		blockCase{"m-pc graph", testproblems.Method(t, "m-pc"), stepPaths{graphOnly: true}, "graph"},
		blockCase{"m-pc full graph", testproblems.Method(t, "m-pc"), stepPaths{fullGraph: true}, "full-graph"})
}

// TestEvalBlockMatchesEval checks StepLoss.EvalBlock against Eval (value and
// the block's gradient to 1e-12) for every evaluator, through a sequence
// that reuses the frozen term (only the active block changes), renews it
// (the frozen block changes, the active block switches, a new step), and
// interleaves full evaluations.
func TestEvalBlockMatchesEval(t *testing.T) {
	const tol = 1e-12
	o := testproblems.DeblurSet(t, 3, 16, 2)
	x, g, p := testproblems.StepData(t, o, 1)
	x2, g2, p2 := testproblems.StepData(t, o, 2)
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
				if d := testsupport.RelDiff(gb, want); !(d <= tol) {
					t.Errorf("%s, block %d: gradient differs from Eval's by %.2g relative to its largest entry", what, b, d)
				}
				if vb != v || testsupport.RelDiff(gb, want) != 0 {
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
	o := testproblems.DeblurSet(t, 2, 8, 1)
	x, g, p := testproblems.StepData(t, o, 1)
	for _, name := range []string{"m-pc", "pc"} {
		s := newLoss(t, testproblems.Method(t, name), o, stepPaths{}, "bound")
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
