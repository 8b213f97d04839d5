package report

import (
	"bufio"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHeavyBallReferenceClosedForm: for eigenvalues in [1, 9] the closed
// form gives θ* = 4/16 and φ* = (2/4)²; and on a quadratic with those
// eigenvalues the heavy-ball iteration matrix has spectral radius √φ* at
// every eigenvalue of [μ, L] (the rate the tuning equalises), larger than
// √φ* for any other θ at some eigenvalue.
func TestHeavyBallReferenceClosedForm(t *testing.T) {
	theta, phi, err := HeavyBallReference(9, 1)
	if err != nil || math.Abs(theta-0.25) > 1e-15 || math.Abs(phi-0.25) > 1e-15 {
		t.Fatalf("HeavyBallReference(9, 1) = %g, %g, %v; want 0.25, 0.25", theta, phi, err)
	}
	// Roots of z² − (1 + φ − θλ)z + φ: the modes of x⁺ = x − θλx + φ(x − x⁻).
	radius := func(theta, phi, lambda float64) float64 {
		b := 1 + phi - theta*lambda
		d := cmplx.Sqrt(complex(b*b-4*phi, 0))
		return math.Max(cmplx.Abs((complex(b, 0)+d)/2), cmplx.Abs((complex(b, 0)-d)/2))
	}
	for _, q := range []struct{ L, mu float64 }{{9, 1}, {1.32, 1.32e-4}, {4.2, 0.01}} {
		theta, phi, err := HeavyBallReference(q.L, q.mu)
		if err != nil {
			t.Fatal(err)
		}
		want := (math.Sqrt(q.L) - math.Sqrt(q.mu)) / (math.Sqrt(q.L) + math.Sqrt(q.mu))
		worst := 0.0
		for i := 0; i <= 20; i++ {
			lambda := q.mu + (q.L-q.mu)*float64(i)/20
			r := radius(theta, phi, lambda)
			worst = math.Max(worst, r)
			if math.Abs(r-want) > 1e-6 {
				t.Errorf("L = %g, μ = %g: rate %g at λ = %g, want √φ* = %g", q.L, q.mu, r, lambda, want)
			}
		}
		for _, f := range []float64{0.9, 1.1} {
			other := 0.0
			for _, lambda := range []float64{q.mu, q.L} {
				other = math.Max(other, radius(theta*f, phi, lambda))
			}
			if !(other > worst+1e-9) {
				t.Errorf("L = %g, μ = %g: θ = %g·θ* has worst rate %g, not above θ*'s %g", q.L, q.mu, f, other, worst)
			}
		}
	}
	if th, ph, err := HeavyBallReference(2, 0); err != nil || math.Abs(th-2) > 1e-15 || ph != 1 {
		t.Errorf("μ = 0: %g, %g, %v; want the limits 4/L = 2 and 1", th, ph, err)
	}
	for _, bad := range [][2]float64{{0, 0}, {-1, 0}, {math.Inf(1), 0}, {1, 1}, {1, -0.1}, {1, math.NaN()}} {
		if _, _, err := HeavyBallReference(bad[0], bad[1]); err == nil {
			t.Errorf("HeavyBallReference(%g, %g): no error", bad[0], bad[1])
		}
	}
}

// TestSmallKernelPanelIsImpulseResponse: the panel of a K×K correlation
// kernel is G_θ's response to an impulse, read around the impulse, the
// convention KernelCrop draws image-sized convolution kernels in; an
// asymmetric θ tells a flip from none.
func TestSmallKernelPanelIsImpulseResponse(t *testing.T) {
	const k, n = 5, 11
	theta := make([]float64, k*k)
	for i := range theta {
		theta[i] = float64(i*i%7) - 2.5 + 0.1*float64(i)
	}
	// (G_θ v)(x) = Σ_u θ[u] v(x + u − c) on an n×n image with v = δ at its centre.
	c, m := k/2, n/2
	resp := make([]float64, n*n)
	for x := 0; x < n; x++ {
		for y := 0; y < n; y++ {
			for u := 0; u < k; u++ {
				for v := 0; v < k; v++ {
					if x+u-c == m && y+v-c == m {
						resp[x*n+y] += theta[u*k+v]
					}
				}
			}
		}
	}
	for _, size := range []int{0, 5, 3, 1} {
		p, err := SmallKernelPanel("θ", theta, k, size)
		if err != nil {
			t.Fatal(err)
		}
		s := p.H / 2
		if size != 0 && p.H != size || size == 0 && p.H != k || p.W != p.H {
			t.Fatalf("size %d: panel %d×%d", size, p.H, p.W)
		}
		for a := 0; a < p.H; a++ {
			for b := 0; b < p.W; b++ {
				if want := resp[(m+a-s)*n+(m+b-s)]; p.Pix[a*p.W+b] != want {
					t.Errorf("size %d: pixel (%d, %d) = %g, impulse response %g", size, a, b, p.Pix[a*p.W+b], want)
				}
			}
		}
	}
	// The same kernel as an image-sized circular convolution kernel (origin
	// at (0, 0)): KernelCrop gives the same panel.
	full := make([]float64, n*n)
	for u := 0; u < k; u++ {
		for v := 0; v < k; v++ {
			full[((c-u+n)%n)*n+(c-v+n)%n] += theta[u*k+v]
		}
	}
	crop, _ := KernelCrop("θ", full, n, n, k)
	small, _ := SmallKernelPanel("θ", theta, k, 0)
	for i := range crop.Pix {
		if crop.Pix[i] != small.Pix[i] {
			t.Fatalf("pixel %d: KernelCrop of the embedded kernel %g, SmallKernelPanel %g", i, crop.Pix[i], small.Pix[i])
		}
	}
	for _, bad := range [][3]int{{4, 16, 0}, {5, 24, 0}, {5, 25, 7}, {5, 25, 2}} {
		if _, err := SmallKernelPanel("θ", make([]float64, bad[1]), bad[0], bad[2]); err == nil {
			t.Errorf("K = %d, %d values, size %d: no error", bad[0], bad[1], bad[2])
		}
	}
}

// TestBandsAgainstCurves: the band of each curve in both optimality
// figures runs through its minima and maxima at its iterations and at its
// seconds, and the mean line through its means.
func TestBandsAgainstCurves(t *testing.T) {
	for _, c := range testCurves() {
		for _, seconds := range []bool{false, true} {
			mean, band, err := curveXYs(c, seconds, func(v float64) float64 { return v })
			if err != nil {
				t.Fatal(err)
			}
			n := len(c.Iter)
			if len(mean) != n || len(band) != 2*n {
				t.Fatalf("%s: %d mean and %d band points for %d iterations", c.Method, len(mean), len(band), n)
			}
			for j := 0; j < n; j++ {
				x := float64(c.Iter[j])
				if seconds {
					x = c.Seconds[j]
				}
				lo, hi := band[j], band[2*n-1-j]
				if mean[j].X != x || lo.X != x || hi.X != x || mean[j].Y != c.Mean[j] || lo.Y != c.Min[j] || hi.Y != c.Max[j] {
					t.Errorf("%s seconds=%v point %d: mean %v, band %v–%v; want x %g, %g in [%g, %g]", c.Method, seconds, j, mean[j], lo, hi, x, c.Mean[j], c.Min[j], c.Max[j])
				}
			}
		}
	}
	bad := testCurves()[0]
	bad.Seconds[2] = math.NaN()
	if _, _, err := curveXYs(bad, true, func(v float64) float64 { return v }); err == nil {
		t.Error("a NaN second: no error")
	}
	if _, _, err := curveXYs(bad, false, func(v float64) float64 { return v }); err != nil {
		t.Errorf("a NaN second on the iteration axis: %v", err)
	}
}

// TestLearnedFiguresStateTheirInputs: the scalar figure, its caption and
// scalars.csv state the heavy-ball reference with its L and μ; every kernel
// set is drawn into its own file and captioned; the sources are listed.
func TestLearnedFiguresStateTheirInputs(t *testing.T) {
	theta, phi, err := HeavyBallReference(1.32, 1.32e-4)
	if err != nil {
		t.Fatal(err)
	}
	r := testReport()
	r.Scalars.AlphaStar, r.Scalars.BetaStar, r.Scalars.L, r.Scalars.Mu = theta, phi, 1.32, 1.32e-4
	r.Scalars.Reference = "μ = L·10⁻⁴ assumed"
	small, err := SmallKernelPanel("θ, t = 0", []float64{0, 0, 0, 0, 1, 0.5, 0, 0, 0}, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	r.KernelSets = []KernelSet{{Method: "greedy m-pc5", Panels: []Panel{small, small}, Note: "3×3 kernels", Source: "m-pc5 run"}, {Method: "greedy m-pc5", Panels: []Panel{small}}}
	r.Sources = []string{"scalars.png: greedy m-ps from runs/m-ps"}
	dir := t.TempDir()
	if _, err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kernels.png", "kernels_greedy-m-pc5.png", "kernels_greedy-m-pc5.svg", "kernels_greedy-m-pc5-2.png"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "scalars.svg"))
	for _, want := range []string{"L = 1.32, μ = 0.000132", "θ* = " + strconv.FormatFloat(theta, 'g', 4, 64), "φ* = " + strconv.FormatFloat(phi, 'g', 4, 64)} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("scalars.svg does not say %q", want)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, want := range []string{"for L = 1.32, μ = 0.000132 (μ = L·10⁻⁴ assumed)", `src="kernels_greedy-m-pc5.png"`, "Learned kernels of greedy m-pc5. 3×3 kernels.", "<li>scalars.png: greedy m-ps from runs/m-ps</li>\n<li>kernels_greedy-m-pc5.png: m-pc5 run</li>"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("index.html does not say %q", want)
		}
	}
	f, err := os.Open(filepath.Join(dir, "scalars.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ref string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if strings.HasPrefix(sc.Text(), "# heavy-ball reference") {
			ref = sc.Text()
		}
	}
	if !strings.Contains(ref, "θ* = 4/(√L+√μ)² = "+strconv.FormatFloat(theta, 'g', 4, 64)) || !strings.Contains(ref, "L = 1.32, μ = 0.000132") {
		t.Errorf("scalars.csv's reference line %q", ref)
	}
	r.KernelSets = []KernelSet{{Method: "x"}}
	if _, err := r.Write(t.TempDir()); err == nil {
		t.Error("an empty kernel set: no error")
	}
}
