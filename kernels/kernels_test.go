package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

func relClose(t *testing.T, what string, a, b, tol float64) {
	t.Helper()
	if d := math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300); d > tol {
		t.Errorf("%s: %.17g vs %.17g (relative difference %.3g > %.1g)", what, a, b, d, tol)
	}
}

func TestConvAdjoints(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, b := range []Boundary{Zero, Reflect, Circular} {
		for _, sz := range [][4]int{{3, 9, 7, 5}, {2, 6, 6, 3}, {1, 5, 8, 1}, {2, 4, 5, 7}} {
			c := Conv{N: sz[0], H: sz[1], W: sz[2], K: sz[3], Boundary: b}
			if err := c.Validate(); err != nil {
				if b == Zero {
					t.Fatal(err)
				}
				continue
			}
			n := c.N * c.H * c.W
			x, y, k := randVec(r, n), randVec(r, n), randVec(r, c.K*c.K)
			ax, aty, akt := make([]float64, n), make([]float64, n), make([]float64, c.K*c.K)
			if err := c.Apply(ax, x, k); err != nil {
				t.Fatal(err)
			}
			if err := c.AdjointImage(aty, y, k); err != nil {
				t.Fatal(err)
			}
			if err := c.AdjointKernel(akt, x, y); err != nil {
				t.Fatal(err)
			}
			lhs := Dot(ax, y)
			relClose(t, b.String()+" image adjoint", lhs, Dot(x, aty), 1e-12)
			relClose(t, b.String()+" kernel adjoint", lhs, Dot(k, akt), 1e-12)
		}
	}
}

// TestConvAgainstDirect compares Apply with a direct evaluation of the definition.
func TestConvAgainstDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, b := range []Boundary{Zero, Reflect, Circular} {
		c := Conv{N: 2, H: 6, W: 7, K: 5, Boundary: b}
		n := c.N * c.H * c.W
		x, k := randVec(r, n), randVec(r, 25)
		y := make([]float64, n)
		if err := c.Apply(y, x, k); err != nil {
			t.Fatal(err)
		}
		at := func(img, i, j int) float64 {
			// explicit extension rules
			switch b {
			case Zero:
				if i < 0 || i >= c.H || j < 0 || j >= c.W {
					return 0
				}
			case Circular:
				i, j = (i+c.H)%c.H, (j+c.W)%c.W
			case Reflect:
				if i < 0 {
					i = -i - 1
				}
				if i >= c.H {
					i = 2*c.H - i - 1
				}
				if j < 0 {
					j = -j - 1
				}
				if j >= c.W {
					j = 2*c.W - j - 1
				}
			}
			return x[img*c.H*c.W+i*c.W+j]
		}
		for img := 0; img < c.N; img++ {
			for i := 0; i < c.H; i++ {
				for j := 0; j < c.W; j++ {
					var s float64
					for u := 0; u < 5; u++ {
						for v := 0; v < 5; v++ {
							s += k[u*5+v] * at(img, i+u-2, j+v-2)
						}
					}
					if got := y[img*c.H*c.W+i*c.W+j]; math.Abs(got-s) > 1e-12 {
						t.Fatalf("%v: y[%d,%d,%d] = %g, want %g", b, img, i, j, got, s)
					}
				}
			}
		}
	}
}

func TestFFTConvMatchesDirectCircularSum(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, sz := range [][3]int{{2, 8, 6}, {3, 7, 9}, {1, 5, 5}} {
		n, h, w := sz[0], sz[1], sz[2]
		c, err := NewFFTConv(n, h, w)
		if err != nil {
			t.Fatal(err)
		}
		x, k := randVec(r, n*h*w), randVec(r, h*w)
		y := make([]float64, n*h*w)
		if err := c.Apply(y, k, x); err != nil {
			t.Fatal(err)
		}
		for img := 0; img < n; img++ {
			for i := 0; i < h; i++ {
				for j := 0; j < w; j++ {
					var s float64
					for u := 0; u < h; u++ {
						for v := 0; v < w; v++ {
							s += k[u*w+v] * x[img*h*w+((i-u+h)%h)*w+(j-v+w)%w]
						}
					}
					if got := y[img*h*w+i*w+j]; math.Abs(got-s) > 1e-10 {
						t.Fatalf("%v: y[%d,%d,%d] = %g, want %g", sz, img, i, j, got, s)
					}
				}
			}
		}
		// adjoints
		yy := randVec(r, n*h*w)
		ax, ak := make([]float64, n*h*w), make([]float64, h*w)
		if err := c.AdjointImage(ax, k, yy); err != nil {
			t.Fatal(err)
		}
		if err := c.AdjointKernel(ak, x, yy); err != nil {
			t.Fatal(err)
		}
		lhs := Dot(y, yy)
		relClose(t, "FFT image adjoint", lhs, Dot(x, ax), 1e-12)
		relClose(t, "FFT kernel adjoint", lhs, Dot(k, ak), 1e-12)
		// a repeated call hits the cache and must give the same result
		y2 := make([]float64, n*h*w)
		if err := c.Apply(y2, k, x); err != nil {
			t.Fatal(err)
		}
		for i := range y {
			if y[i] != y2[i] {
				t.Fatalf("cached spectrum changed the result at %d: %g vs %g", i, y[i], y2[i])
			}
		}
	}
}

func TestGradAdjointAndNorm(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n, h, w := 3, 7, 5
	x, d := randVec(r, n*h*w), randVec(r, 2*n*h*w)
	dx, dtd := make([]float64, 2*n*h*w), make([]float64, n*h*w)
	if err := Grad(dx, x, n, h, w); err != nil {
		t.Fatal(err)
	}
	if err := GradAdjoint(dtd, d, n, h, w); err != nil {
		t.Fatal(err)
	}
	relClose(t, "D adjoint", Dot(dx, d), Dot(x, dtd), 1e-12)
	// spot check definition
	if got, want := dx[0*h*w+1*w+2], x[2*w+2]-x[1*w+2]; got != want {
		t.Errorf("vertical difference %g, want %g", got, want)
	}
	if got := dx[h*w+2*w+(w-1)]; got != 0 {
		t.Errorf("last horizontal difference %g, want 0 (Neumann)", got)
	}
	// ‖D‖² ≤ 8 by power iteration
	v := randVec(r, n*h*w)
	var lam float64
	for it := 0; it < 300; it++ {
		_ = Grad(dx, v, n, h, w)
		_ = GradAdjoint(v, dx, n, h, w)
		lam = math.Sqrt(Dot(v, v))
		for i := range v {
			v[i] /= lam
		}
	}
	if lam > 8 || lam < 6 {
		t.Errorf("‖D‖² = %g, want in (6, 8]", lam)
	}
}

func TestHuberDerivativesAgainstFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	n, hw := 2, 30
	hb := Huber{Eps: 0.3}
	d := randVec(r, 2*n*hw)
	for i := range d {
		d[i] *= 0.4 // mix of both regimes
	}
	g := make([]float64, len(d))
	_ = hb.Derivative(g, d, n, hw)
	vals := make([]float64, n)
	total := func(z []float64) float64 {
		_ = hb.Value(vals, z, n, hw)
		return vals[0] + vals[1]
	}
	u := randVec(r, len(d))
	const step = 1e-6
	zp, zm := make([]float64, len(d)), make([]float64, len(d))
	for i := range d {
		zp[i], zm[i] = d[i]+step*u[i], d[i]-step*u[i]
	}
	fd := (total(zp) - total(zm)) / (2 * step)
	relClose(t, "Huber derivative", Dot(g, u), fd, 1e-7)
	hv := make([]float64, len(d))
	_ = hb.HessVec(hv, d, u, n, hw)
	gp, gm := make([]float64, len(d)), make([]float64, len(d))
	_ = hb.Derivative(gp, zp, n, hw)
	_ = hb.Derivative(gm, zm, n, hw)
	for i := range hv {
		fdi := (gp[i] - gm[i]) / (2 * step)
		if math.Abs(fdi-hv[i]) > 1e-5*(1+math.Abs(fdi)) {
			t.Fatalf("Huber Hessian-vector [%d] = %g, finite differences %g", i, hv[i], fdi)
		}
	}
}

func TestFFT2RoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	f := NewFFT2(6, 9)
	x := randVec(r, 54)
	s := make([]complex128, f.SpectrumLen())
	f.Forward(s, x)
	y := make([]float64, 54)
	f.Inverse(y, s)
	for i := range x {
		if math.Abs(x[i]-y[i]) > 1e-13 {
			t.Fatalf("round trip [%d]: %g vs %g", i, y[i], x[i])
		}
	}
}

func TestBadSizesAreErrors(t *testing.T) {
	if err := (Conv{N: 1, H: 4, W: 4, K: 4}).Validate(); err == nil {
		t.Error("even kernel accepted")
	}
	c := Conv{N: 1, H: 4, W: 4, K: 3}
	if err := c.Apply(make([]float64, 15), make([]float64, 16), make([]float64, 9)); err == nil {
		t.Error("short output accepted")
	}
	if err := Grad(make([]float64, 10), make([]float64, 4), 1, 2, 2); err == nil {
		t.Error("wrong gradient length accepted")
	}
	if _, err := ParseBoundary("mirror"); err == nil {
		t.Error("unknown boundary accepted")
	}
}
