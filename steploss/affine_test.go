package steploss

import (
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/problem"
)

// affineObjectives returns small objectives of every regularizer kind: Huber-TV
// deblurring, least squares, CT with Huber-TV, and WCRR with random weights.
func affineObjectives(t *testing.T) map[string]*problem.Objective {
	t.Helper()
	return testproblems.Mixed(t)
}

// TestAffineStepLossMatchesBound checks the affine form of the PS and M-PS
// step loss (A and K applied once per step) against the bound operators and
// the objective's own kernels: value, gradient, value alone and x⁺.
func TestAffineStepLossMatchesBound(t *testing.T) {
	for name, o := range affineObjectives(t) {
		for _, mname := range []string{"ps", "m-ps"} {
			t.Run(name+"/"+mname, func(t *testing.T) {
				x, g, p := testproblems.StepData(t, o, 3)
				aff, err := newStepLoss(testproblems.Method(t, mname), o, 1/o.L, stepPaths{})
				if err != nil {
					t.Fatal(err)
				}
				if aff.ev.kind() != "affine" {
					t.Fatal("no affine path")
				}
				bnd, err := newStepLoss(testproblems.Method(t, mname), o, 1/o.L, stepPaths{noAffine: true})
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range []*StepLoss{aff, bnd} {
					if err := s.SetStep(x, g, p, 0.2, 0.4); err != nil {
						t.Fatal(err)
					}
				}
				// A step well away from the reference, into the nonlinear
				// parts of the potentials.
				u := perturbed(aff.Reference(), 0.3, 11)
				ga, gb := make([]float64, aff.Dim()), make([]float64, bnd.Dim())
				va, err := aff.Eval(u, ga)
				if err != nil {
					t.Fatal(err)
				}
				vb, err := bnd.Eval(u, gb)
				if err != nil {
					t.Fatal(err)
				}
				if d := math.Abs(va-vb) / math.Abs(vb); !(d <= 1e-12) {
					t.Errorf("value: affine %.17g, bound %.17g (rel %.2g)", va, vb, d)
				}
				for i := range ga {
					if d := math.Abs(ga[i]-gb[i]) / testsupport.MaxAbs(gb); !(d <= 1e-10) {
						t.Errorf("∂u[%d]: affine %.15g, bound %.15g (rel %.2g)", i, ga[i], gb[i], d)
					}
				}
				u[0] *= 1.1
				va, _ = aff.Eval(u, nil)
				vb, _ = bnd.Eval(u, nil)
				if d := math.Abs(va-vb) / math.Abs(vb); !(d <= 1e-12) {
					t.Errorf("value alone: affine %.17g, bound %.17g", va, vb)
				}
				na, nb := make([]float64, len(x)), make([]float64, len(x))
				if err := aff.Next(na, u); err != nil {
					t.Fatal(err)
				}
				if err := bnd.Next(nb, u); err != nil {
					t.Fatal(err)
				}
				for i := range na {
					if math.Abs(na[i]-nb[i]) > 1e-13*testsupport.MaxAbs(nb) {
						t.Fatalf("x⁺[%d]: affine %.17g, bound %.17g", i, na[i], nb[i])
					}
				}
			})
		}
	}
}
