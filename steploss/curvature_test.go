package steploss

import (
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
)

// powerCurvature is ‖(1/N) Σk Bkᵀ Bk‖ of the map θ ↦ (θ ⊛ vk)k by a long
// power iteration through the family's bound operator.
func powerCurvature(t *testing.T, v []float64, n, h, w int) float64 {
	t.Helper()
	bd, err := (&models.FullConv{}).Bind(v, n, h, w)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, len(v))
	pi := kernels.PowerIteration{Seed: [2]uint64{5, 7}, MaxIter: 20000, MinIter: 10, RelTol: 1e-13}
	lam, _, err := pi.Largest(h*w, func(x []float64) error {
		clear(y)
		if err := bd.AddApply(y, x, 1); err != nil {
			return err
		}
		clear(x)
		return bd.AddAdjoint(x, y, 1/float64(n))
	})
	if err != nil {
		t.Fatal(err)
	}
	return lam
}

// TestSpectralCurvature checks the closed form of a PC block's curvature,
// max over ω of (1/N) Σk |v̂k(ω)|², against a power iteration of
// (1/N) Σk Bkᵀ Bk, for the θ block (operands g) and the φ block (p), on
// every path that keeps the spectra: float64, float32, the CPU device and 3
// shards (bitwise the engine's). Blocks that are not PC say so (ok false).
func TestSpectralCurvature(t *testing.T) {
	o := testproblems.DeblurSet(t, 7, 16, 2)
	x, g, p := testproblems.StepData(t, o, 7)
	s := loadedLoss(t, "m-pc", o, stepPaths{}, x, g, p, 0, 0)
	for b, v := range [][]float64{g, p} {
		want := powerCurvature(t, v, o.N, o.H, o.W)
		c, ok, err := s.SpectralCurvature(b)
		if err != nil || !ok {
			t.Fatalf("block %d: ok %v, err %v", b, ok, err)
		}
		if math.Abs(c-want) > 1e-6*want {
			t.Errorf("block %d: closed form %v, power iteration %v", b, c, want)
		}
		for _, tc := range []struct {
			name  string
			paths stepPaths
			tol   float64
		}{
			{"float32", stepPaths{precision: Float32}, 1e-5},
			{"device", stepPaths{device: gpu.CPU()}, 1e-12},
			{"3 shards", stepPaths{shards: Blocks(o.N, 3)}, 0},
		} {
			other := loadedLoss(t, "m-pc", o, tc.paths, x, g, p, 0, 0)
			got, ok, err := other.SpectralCurvature(b)
			if err != nil || !ok || math.Abs(got-c) > tc.tol*c {
				t.Errorf("%s, block %d: %v (ok %v, err %v), want %v", tc.name, b, got, ok, err, c)
			}
		}
	}
	ps := loadedLoss(t, "m-ps", o, stepPaths{}, x, g, p, 0, 0)
	if _, ok, err := ps.SpectralCurvature(0); ok || err != nil {
		t.Errorf("m-ps: ok %v, err %v; want no closed form", ok, err)
	}
}
