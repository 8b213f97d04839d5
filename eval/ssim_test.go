package eval

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSSIMClosedForms checks SSIM against closed forms: 1 for equal images;
// (2ab + C1)/(a² + b² + C1) for constant images a and b (no variance); and,
// for y = x + c, the luminance term alone, averaged over the windows.
func TestSSIMClosedForms(t *testing.T) {
	const h, w = 20, 17
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, h*w)
	for i := range x {
		x[i] = rng.Float64()
	}
	if s := SSIM(x, x, h, w); math.Abs(s-1) > 1e-12 {
		t.Errorf("SSIM(x, x) = %.15g, want 1", s)
	}
	a, b := make([]float64, h*w), make([]float64, h*w)
	for i := range a {
		a[i], b[i] = 0.3, 0.7
	}
	want := (2*0.3*0.7 + 1e-4) / (0.09 + 0.49 + 1e-4)
	if s := SSIM(a, b, h, w); math.Abs(s-want) > 1e-12 {
		t.Errorf("SSIM of constants 0.3 and 0.7 = %.15g, want %.15g", s, want)
	}
	// x + 0.1 has the same variances and covariance in every window: the
	// contrast–structure term is 1 and each window gives its luminance term.
	y := make([]float64, h*w)
	for i := range y {
		y[i] = x[i] + 0.1
	}
	win := gaussianWindow(11, 1.5)
	var sum float64
	for r := 0; r+11 <= h; r++ {
		for c := 0; c+11 <= w; c++ {
			var m float64
			for i := range 11 {
				for j := range 11 {
					m += win[i*11+j] * x[(r+i)*w+c+j]
				}
			}
			sum += (2*m*(m+0.1) + 1e-4) / (m*m + (m+0.1)*(m+0.1) + 1e-4)
		}
	}
	if s, want := SSIM(y, x, h, w), sum/float64((h-10)*(w-10)); math.Abs(s-want) > 1e-10 {
		t.Errorf("SSIM(x + 0.1, x) = %.12g, want %.12g", s, want)
	}
	if !math.IsNaN(SSIM(x, x, h, w+1)) {
		t.Error("SSIM of mismatched sizes is not NaN")
	}
}
