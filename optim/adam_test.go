package optim

import (
	"math"
	"testing"
)

// TestAdamBiasCorrection: with a constant gradient g the bias-corrected
// moments are g and g² at every step, so each step moves u by
// −lr·g/(|g| + ε) exactly (up to rounding).
func TestAdamBiasCorrection(t *testing.T) {
	g := []float64{3, -0.5, 1e-3}
	u := []float64{1, 2, 3}
	a := NewAdam(len(u), 0.01)
	for range 5 {
		if err := a.Update(u, g); err != nil {
			t.Fatal(err)
		}
	}
	for i, gi := range g {
		want := []float64{1, 2, 3}[i] - 5*0.01*gi/(math.Abs(gi)+1e-8)
		if math.Abs(u[i]-want) > 1e-14 {
			t.Errorf("u[%d] = %.17g after 5 steps, want %.17g", i, u[i], want)
		}
	}
	if err := a.Update(u, g[:2]); err == nil {
		t.Error("a gradient of the wrong length was accepted")
	}
}
