package greedy

import (
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// reducedPair returns the functions, and the step loss of the method in full
// parameters (steploss.NewStepLossFull) and in the reduced coordinates it
// gets by default (steploss.NewStepLoss), both set to the same step.
func reducedPair(t *testing.T, name string, lambda, mu float64) (o *problem.Objective, full, red *steploss.StepLoss) {
	t.Helper()
	o = deblurSet(t, 3, 8, 4)
	x, g, p := testproblems.StepData(t, o, 2)
	var losses [2]*steploss.StepLoss
	for i, build := range []func(models.Method, *problem.Objective, float64) (*steploss.StepLoss, error){steploss.NewStepLossFull, steploss.NewStepLoss} {
		s, err := build(method(t, name), o, 1/o.L)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetStep(x, g, p, lambda, mu); err != nil {
			t.Fatal(err)
		}
		losses[i] = s
	}
	_, reduced0 := losses[1].Curvature(0)
	_, reduced1 := losses[1].Curvature(1)
	if !reduced0 && !reduced1 {
		t.Fatalf("%s: no reduced block", name)
	}
	return o, losses[0], losses[1]
}

// TestReducedCurvature checks the curvature of the reduced θ block (exact,
// from the reduction) against a power iteration on the full block
// (blockCurvature, NAG's estimate for blocks in full).
func TestReducedCurvature(t *testing.T) {
	for _, name := range []string{"pf", "m-pf", "pf:ps"} {
		t.Run(name, func(t *testing.T) {
			o, _, red := reducedPair(t, name, 0.3, 0.7)
			// The reduced curvature is the full block's, computed exactly.
			c, ok := red.Curvature(0)
			if !ok {
				t.Fatal("no curvature for the reduced θ block")
			}
			_, g, _ := testproblems.StepData(t, o, 2)
			cf, err := blockCurvature(method(t, name).G, g, o.N, o.H, o.W)
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(cf/c - 1); !(d <= 2e-3) {
				t.Errorf("curvature: reduced %.6g, power iteration on the full block %.6g", c, cf)
			}
		})
	}
}

// TestReducedNAGMatchesFull runs the paper's NAG inner solver on the full PF
// step and in reduced coordinates: the iterates are the same, so the
// expanded solutions agree to rounding.
func TestReducedNAGMatchesFull(t *testing.T) {
	for _, name := range []string{"pf", "m-pf"} {
		t.Run(name, func(t *testing.T) {
			o, full, red := reducedPair(t, name, 1e-3, 1e-3)
			lip := func(s *steploss.StepLoss) func(b int) (float64, error) {
				return func(b int) (float64, error) {
					c, _ := red.Curvature(b)
					return 1e-3 + o.L*c, nil
				}
			}
			solver := NAG{Iters: 40, Rounds: 2}
			uf, err := solver.Minimize(&Subproblem{Loss: full, Lipschitz: lip(full)}, full.Reference())
			if err != nil {
				t.Fatal(err)
			}
			uz, err := solver.Minimize(&Subproblem{Loss: red, Lipschitz: lip(red)}, red.Reference())
			if err != nil {
				t.Fatal(err)
			}
			th, ph, err := red.Params(uz) // the full parameters of uz
			if err != nil {
				t.Fatal(err)
			}
			ue := append(th, ph...)
			ref := full.Reference()
			var diff, moved float64
			for i := range uf {
				diff = math.Max(diff, math.Abs(uf[i]-ue[i]))
				moved = math.Max(moved, math.Abs(uf[i]-ref[i]))
			}
			if moved == 0 {
				t.Fatal("NAG did not move from the reference")
			}
			if !(diff <= 1e-9*moved) {
				t.Errorf("NAG solutions differ by %.3g (the step moved θ by %.3g)", diff, moved)
			}
			vf, _ := full.Eval(uf, nil)
			vz, _ := red.Eval(uz, nil)
			v0, _ := red.Eval(red.Reference(), nil)
			if !(vz < v0) || math.Abs(vz-vf) > 1e-10*math.Abs(vf) {
				t.Errorf("losses: reduced %.15g, full %.15g, reference %.15g", vz, vf, v0)
			}
		})
	}
}
