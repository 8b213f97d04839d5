package steploss

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// fullAndReduced returns the step loss of the method bound in full and in
// reduced coordinates, both set to the same step.
func fullAndReduced(t *testing.T, name string, lambda, mu float64) (full, red *StepLoss) {
	t.Helper()
	o := testproblems.DeblurSet(t, 3, 8, 4)
	x, g, p := testproblems.StepData(t, o, 2)
	var err error
	if full, err = newStepLoss(testproblems.Method(t, name), o, 1/o.L, stepPaths{noReduce: true}); err != nil {
		t.Fatal(err)
	}
	if red, err = newStepLoss(testproblems.Method(t, name), o, 1/o.L, stepPaths{}); err != nil {
		t.Fatal(err)
	}
	if red.reducers == nil {
		t.Fatalf("%s: no reduced block", name)
	}
	for _, s := range []*StepLoss{full, red} {
		if err := s.SetStep(x, g, p, lambda, mu); err != nil {
			t.Fatal(err)
		}
	}
	return full, red
}

// expand returns the full parameters (θ, φ) of the reduced point z, concatenated.
func expand(t *testing.T, s *StepLoss, z []float64) []float64 {
	t.Helper()
	th, ph, err := s.Params(z)
	if err != nil {
		t.Fatal(err)
	}
	return append(th, ph...)
}

// TestReducedStepLossMatchesFull checks that the loss in the coordinates z
// of the PF subspace is the full loss at θ = θ̃ + E z: equal values and x⁺,
// a gradient that is Eᵀ of the full gradient, and ‖E z‖ = ‖z‖. (greedy's
// TestReducedCurvature checks the reduced block's curvature against a power
// iteration on the full block.)
func TestReducedStepLossMatchesFull(t *testing.T) {
	for _, name := range []string{"pf", "m-pf", "pf:ps"} {
		t.Run(name, func(t *testing.T) {
			full, red := fullAndReduced(t, name, 0.3, 0.7)
			if red.Dim() >= full.Dim() {
				t.Fatalf("reduced dimension %d, full %d: nothing was reduced", red.Dim(), full.Dim())
			}
			if a, b := red.ParamLens(); a+b != full.Dim() {
				t.Fatalf("ParamLens %d + %d, want %d", a, b, full.Dim())
			}
			z := perturbed(red.Reference(), 0.05, 7)
			u := expand(t, red, z)
			ref := full.Reference()
			// Isometry of the coordinates.
			var du2 float64
			for i := range u {
				du2 += (u[i] - ref[i]) * (u[i] - ref[i])
			}
			zr := red.Reference()
			var dz2 float64
			for i := range z {
				dz2 += (z[i] - zr[i]) * (z[i] - zr[i])
			}
			if d := math.Abs(du2-dz2) / dz2; !(d <= 1e-12) {
				t.Errorf("‖θ − θ̃‖² = %.15g, ‖z‖² = %.15g (rel %.2g)", du2, dz2, d)
			}
			gz, gu := make([]float64, red.Dim()), make([]float64, full.Dim())
			vz, err := red.Eval(z, gz)
			if err != nil {
				t.Fatal(err)
			}
			vu, err := full.Eval(u, gu)
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(vz-vu) / math.Abs(vu); !(d <= 1e-12) {
				t.Errorf("value: reduced %.17g, full %.17g (rel %.2g)", vz, vu, d)
			}
			// ⟨∇_z, dz⟩ = ⟨∇_θ, E dz⟩ for random directions dz.
			r := rand.New(rand.NewPCG(3, 9))
			for trial := 0; trial < 3; trial++ {
				dz := make([]float64, red.Dim())
				for i := range dz {
					dz[i] = r.NormFloat64()
				}
				for i := range dz {
					dz[i] += zr[i]
				}
				edz := expand(t, red, dz)
				for i := range edz {
					edz[i] -= ref[i]
				}
				for i := range dz {
					dz[i] -= zr[i]
				}
				a, b := kernels.Dot(gz, dz), kernels.Dot(gu, edz)
				if d := math.Abs(a-b) / (math.Abs(b) + 1e-300); !(d <= 1e-10) {
					t.Errorf("directional derivative: reduced %.15g, full %.15g (rel %.2g)", a, b, d)
				}
			}
			nz, nu := make([]float64, len(full.obj.X0)), make([]float64, len(full.obj.X0))
			if err := red.Next(nz, z); err != nil {
				t.Fatal(err)
			}
			if err := full.Next(nu, u); err != nil {
				t.Fatal(err)
			}
			for i := range nz {
				if math.Abs(nz[i]-nu[i]) > 1e-12*testsupport.MaxAbs(nu) {
					t.Fatalf("x⁺[%d]: reduced %.17g, full %.17g", i, nz[i], nu[i])
				}
			}
		})
	}
}
