package problem

import (
	"math"
	"testing"
)

// TestCheckGaussianWidth: widths whose kernel cannot be sampled (2σ²
// underflows to 0, σ ≤ 0, σ not finite) are refused; the smallest width
// the message advises gives a kernel of finite weights summing to 1.
func TestCheckGaussianWidth(t *testing.T) {
	for _, s := range []float64{1e-300, 1e-170, 0, -1, math.NaN(), math.Inf(1)} {
		if err := CheckGaussianWidth(5, s); err == nil {
			t.Errorf("σ = %g accepted", s)
		}
	}
	for _, s := range []float64{1e-150, 0.3, 1.5, 1e300} {
		if err := CheckGaussianWidth(5, s); err != nil {
			t.Errorf("σ = %g: %v", s, err)
		}
		var sum float64
		for _, v := range GaussianKernel(5, s) {
			sum += v
		}
		if math.Abs(sum-1) > 1e-15 {
			t.Errorf("σ = %g: kernel sums to %g", s, sum)
		}
	}
	if _, err := Lookup("deblur", Options{H: 8, BlurSigma: 1e-300}); err == nil {
		t.Error("deblur at σ = 1e-300 built")
	}
}
