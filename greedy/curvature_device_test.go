package greedy

import (
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// TestDeviceCurvatureAgainstHost checks NAG's exact block curvature of an
// M-PC step loss on a device (the power iteration on the Fourier diagonal
// summed there: exactCurvature) against the host's power iteration over
// the N images (blockCurvature) and against the closed form
// (StepLoss.SpectralCurvature): θ's operands are the gradients of 6
// deblurring functions of 18×18 (an even width) and 17×17 (odd: no
// Nyquist column), φ's Gaussian noise. The two iterations take the same
// steps from the same start, so they agree to rounding; the estimate lies
// on or above the closed form and at most the margin above it.
func TestDeviceCurvatureAgainstHost(t *testing.T) {
	for _, size := range []int{18, 17} {
		o := deblurSet(t, 6, size, 4)
		m := method(t, "m-pc")
		loss, err := steploss.NewStepLossOn(m, o, 0.5, gpu.CPU())
		if err != nil {
			t.Fatal(err)
		}
		grad := make([]float64, len(o.X0))
		if err := o.Eval(nil, grad, o.X0, nil); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(7, uint64(size)))
		p := make([]float64, len(o.X0))
		for i := range p {
			p[i] = r.NormFloat64()
		}
		if err := loss.SetStep(o.X0, grad, p, 0, 0); err != nil {
			t.Fatal(err)
		}
		for b, v := range [][]float64{grad, p} {
			par := m.G
			if b == 1 {
				par = m.H
			}
			host, err := blockCurvature(par, v, o.N, o.H, o.W)
			if err != nil {
				t.Fatal(err)
			}
			d, ok, err := loss.GramDiagonal(b)
			if err != nil || !ok {
				t.Fatalf("block %d: no diagonal on the device (ok %v, %v)", b, ok, err)
			}
			dev, err := diagonalCurvature(d, o.H, o.W)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := exactCurvature(loss, b, par, v, o.N, o.H, o.W); err != nil || got != dev {
				t.Errorf("block %d: exactCurvature %.17g (%v), want the diagonal's %.17g", b, got, err, dev)
			}
			closed, ok, err := loss.SpectralCurvature(b)
			if err != nil || !ok {
				t.Fatalf("closed form of block %d: ok %v, %v", b, ok, err)
			}
			if rel := dev/host - 1; rel < -1e-9 || rel > 1e-9 {
				t.Errorf("%d×%d, block %d: on the device %.12g, on the host %.12g (relative %.2g, want within 1e-9)", o.H, o.W, b, dev, host, rel)
			}
			if rel := dev/closed - 1; rel < 0 || rel > 1.01e-2 {
				t.Errorf("%d×%d, block %d: on the device %.12g, closed form %.12g (estimate/exact − 1 = %.2g, want in [0, 1.01e-2])", o.H, o.W, b, dev, closed, rel)
			}
		}
		loss.Close()
	}
	// On the CPU paths the curvature stays the host's power iteration.
	o := deblurSet(t, 2, 8, 4)
	cpu, err := steploss.NewStepLoss(method(t, "m-pc"), o, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	if _, ok, _ := cpu.GramDiagonal(0); ok {
		t.Error("the CPU step loss gave a diagonal: its curvature would leave the host's power iteration")
	}
}
