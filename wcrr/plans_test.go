package wcrr

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"github.com/greedyl2o/greedyl2o/mconv"
)

// directGrad computes ∇S(x) = Wᵀψ'(Wx) with mconv's direct kernels, written
// independently of the Model's cached plans.
func directGrad(t *testing.T, m *Model, x []float64, n, h, w int) []float64 {
	t.Helper()
	scale := 1 / math.Sqrt(m.L)
	a := make([]float64, len(x))
	for i, v := range x {
		a[i] = v * scale
	}
	for _, layer := range m.Layers {
		s := mconv.Shape{N: n, Cin: layer.Cin, Cout: layer.Cout, H: h, W: w, K: layer.K}
		out := make([]float64, s.OutputLen())
		if err := mconv.Forward(out, a, layer.Weight, nil, s); err != nil {
			t.Fatal(err)
		}
		a = out
	}
	if err := m.PsiPrime(a, a, n, h, w); err != nil {
		t.Fatal(err)
	}
	for l := 2; l >= 0; l-- {
		layer := m.Layers[l]
		s := mconv.Shape{N: n, Cin: layer.Cin, Cout: layer.Cout, H: h, W: w, K: layer.K}
		in := make([]float64, s.InputLen())
		if err := mconv.AdjointInput(in, a, layer.Weight, s); err != nil {
			t.Fatal(err)
		}
		a = in
	}
	for i := range a {
		a[i] *= scale
	}
	return a
}

// TestGradMatchesDirect checks the Model's gradient, whose 4→8 and 8→60
// layers run by FFT at these sizes, against the direct kernels, and that
// the cached plans follow a change of the weights.
func TestGradMatchesDirect(t *testing.T) {
	m := Random(3, [3]int{4, 8, 60}, 10)
	rng := rand.New(rand.NewPCG(9, 9))
	for _, sz := range [][3]int{{3, 40, 40}, {2, 37, 50}, {1, 33, 29}} {
		n, h, w := sz[0], sz[1], sz[2]
		x := randImages(rng, n*h*w)
		for round := range 2 {
			if round == 1 {
				// Change the weights in place: the cached spectra must not be used.
				m.Layers[2].Weight[7] += 0.5
				m.Layers[1].Weight[3] -= 0.25
			}
			got := make([]float64, len(x))
			if err := m.Grad(got, x, n, h, w); err != nil {
				t.Fatal(err)
			}
			want := directGrad(t, m, x, n, h, w)
			var diff, ref float64
			for i := range got {
				diff = max(diff, math.Abs(got[i]-want[i]))
				ref = max(ref, math.Abs(want[i]))
			}
			if diff > 1e-13*ref {
				t.Errorf("%d×%d×%d round %d: max |Grad − direct| = %g, max |direct| = %g", n, h, w, round, diff, ref)
			}
		}
		if lp := m.layerPlans(h, w); lp.layers[2].Method() != mconv.FFT {
			t.Errorf("%d×%d: layer 3 uses %v, want the FFT path to be exercised", h, w, lp.layers[2].Method())
		}
	}
	if len(m.plans) > maxPlans {
		t.Errorf("%d cached plan sets, want at most %d", len(m.plans), maxPlans)
	}
}

// TestGradConcurrent runs gradients for several image sizes at once on one
// Model (more sizes than it caches plans for) and compares them with
// serial calls.
func TestGradConcurrent(t *testing.T) {
	m := Random(4, [3]int{2, 4, 12}, 5)
	sizes := [][2]int{{20, 20}, {21, 18}, {16, 30}, {20, 20}, {9, 11}, {25, 24}}
	rng := rand.New(rand.NewPCG(3, 3))
	xs := make([][]float64, len(sizes))
	want := make([][]float64, len(sizes))
	for i, sz := range sizes {
		xs[i] = randImages(rng, 2*sz[0]*sz[1])
		want[i] = make([]float64, len(xs[i]))
		if err := m.Grad(want[i], xs[i], 2, sz[0], sz[1]); err != nil {
			t.Fatal(err)
		}
	}
	got := make([][]float64, len(sizes))
	errs := make([]error, len(sizes))
	var wg sync.WaitGroup
	for i, sz := range sizes {
		got[i] = make([]float64, len(xs[i]))
		wg.Go(func() { errs[i] = m.Grad(got[i], xs[i], 2, sz[0], sz[1]) })
	}
	wg.Wait()
	for i := range sizes {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		for j := range got[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("size %v: concurrent Grad[%d] = %v, serial %v", sizes[i], j, got[i][j], want[i][j])
			}
		}
	}
}

// TestValueGradFused checks ValueGrad, which applies ψ and ψ' to each
// response plane inside the last layer's FFT pass, on the shape of Problem 3
// (the pretrained model, or random weights of the same shape when it is
// absent, on 96×96 images): its values equal Value's bit for bit, its
// gradient equals Grad's bit for bit and the direct-kernel ∇S (written
// independently of the plans) to 1e-12 relative.
func TestValueGradFused(t *testing.T) {
	var m *Model
	if dir := dataDir(); dir != "" {
		var err error
		if m, err = Load(filepath.Join(dir, "wcrr_sigma18.json")); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Log("pretrained model not fetched (l2o data fetch wcrr): using random weights of the same 1→4→8→60 shape")
		m = Random(5, [3]int{4, 8, 60}, 48)
	}
	const n, h, w = 2, 96, 96
	x := randImages(rand.New(rand.NewPCG(13, 14)), n*h*w)
	if lp := m.layerPlans(h, w); lp.layers[2].Method() != mconv.FFT {
		t.Fatalf("layer 3 uses %v at 96×96, want the FFT path", lp.layers[2].Method())
	}
	g := make([]float64, len(x))
	vals, err := m.ValueGrad(g, x, n, h, w)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Value(x, n, h, w)
	if err != nil {
		t.Fatal(err)
	}
	for k := range want {
		if vals[k] != want[k] {
			t.Errorf("image %d: ValueGrad's S = %v, Value's %v", k, vals[k], want[k])
		}
	}
	g2 := make([]float64, len(x))
	if err := m.Grad(g2, x, n, h, w); err != nil {
		t.Fatal(err)
	}
	for i := range g {
		if g[i] != g2[i] {
			t.Fatalf("ValueGrad's ∇S[%d] = %v, Grad's %v", i, g[i], g2[i])
		}
	}
	ref := directGrad(t, m, x, n, h, w)
	var diff, scale float64
	for i := range g {
		diff = max(diff, math.Abs(g[i]-ref[i]))
		scale = max(scale, math.Abs(ref[i]))
	}
	if diff > 1e-12*scale {
		t.Errorf("max |∇S − direct| = %g, max |direct| = %g", diff, scale)
	}
}
