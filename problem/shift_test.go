package problem

import (
	"math"
	"strings"
	"testing"
)

// TestDeblurBlurWidthAndNoise checks the out-of-distribution options: another
// σ gives another blur, still of norm 1 (so L is unchanged), and another
// noise level gives residuals y − Ax of that standard deviation.
func TestDeblurBlurWidthAndNoise(t *testing.T) {
	base, err := Lookup("deblur", Options{H: 24})
	if err != nil {
		t.Fatal(err)
	}
	for _, sigma := range []float64{1.0, 2.0} {
		p, err := Lookup("deblur", Options{H: 24, BlurSigma: sigma, Noise: 0.02})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.A.String(), "gauss5-"+map[float64]string{1: "1", 2: "2"}[sigma]) {
			t.Errorf("σ = %g: operator %s does not name its width", sigma, p.A.String())
		}
		if math.Abs(p.L()-base.L()) > 1e-12 {
			t.Errorf("σ = %g: L = %g, want the problem's %g (the blur is normalised)", sigma, p.L(), base.L())
		}
		truth := make([]float64, 24*24)
		for i := range truth {
			truth[i] = float64(i%7) / 7
		}
		o, err := p.Instantiate(truth, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		ob, err := base.Instantiate(truth, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Residual of the noise: y − A x.
		ax := make([]float64, len(truth))
		if err := p.A.Apply(ax, truth, []int{1, 24, 24}); err != nil {
			t.Fatal(err)
		}
		var ss, diff float64
		for i := range ax {
			r := o.Y[i] - ax[i]
			ss += r * r
			diff += math.Abs(o.Y[i] - ob.Y[i])
		}
		std := math.Sqrt(ss / float64(len(ax)))
		if math.Abs(std-0.02) > 0.003 {
			t.Errorf("σ = %g, noise 0.02: residual standard deviation %.4f", sigma, std)
		}
		if diff/float64(len(ax)) < 1e-3 {
			t.Errorf("σ = %g: data equal to σ = 1.5's (mean |Δy| = %g)", sigma, diff/float64(len(ax)))
		}
	}
	if _, err := Lookup("ct-small", Options{BlurSigma: 2}); err == nil || !strings.Contains(err.Error(), "no Gaussian blur") {
		t.Errorf("ct-small with a blur width: err = %v, want a refusal naming the blur", err)
	}
	if _, err := Lookup("deblur", Options{BlurSigma: -1}); err == nil {
		t.Error("a negative blur width was accepted")
	}
	if _, err := Lookup("deblur", Options{Noise: math.NaN()}); err == nil {
		t.Error("a NaN noise level was accepted")
	}
}
