package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestUpdateFormsAgree checks the two forms of the learned update against
// the formula computed by hand from Apply's bound operators: the compiled
// graph (Updater) and BoundUpdate give x − G_θ g + H_φ p for every built-in
// family, with and without momentum.
func TestUpdateFormsAgree(t *testing.T) {
	const n, h, w = 2, 6, 5
	r := rand.New(rand.NewPCG(3, 4))
	for _, name := range []string{"ps", "m-ps", "pp", "m-pp", "pc3", "m-pc3-zero", "pc", "m-pc", "pf", "pc:ps"} {
		m, err := ParseMethod(name)
		if err != nil {
			t.Fatal(err)
		}
		x, g, p := randVec(r, n*h*w, 1), randVec(r, n*h*w, 1), randVec(r, n*h*w, 1)
		theta := randVec(r, m.G.ParamShape(h, w).TotalSize(), 0.3)
		var phi []float64
		if m.H != nil {
			phi = randVec(r, m.H.ParamShape(h, w).TotalSize(), 0.3)
		}
		// By hand: G_θ g and H_φ p one image at a time through Apply's graph
		// (Updater with x = 0, p = 0 gives −G_θ g).
		want := make([]float64, len(x))
		gb, err := m.G.(Binder).Bind(g, n, h, w)
		if err != nil {
			t.Fatal(err)
		}
		var hb Bound
		if m.H != nil {
			if hb, err = m.H.(Binder).Bind(p, n, h, w); err != nil {
				t.Fatal(err)
			}
		}
		if err := BoundUpdate(want, x, gb, theta, hb, phi); err != nil {
			t.Fatal(err)
		}
		u, err := NewUpdater(m, n, h, w)
		if err != nil {
			t.Fatal(err)
		}
		if err := u.SetParams(theta, phi); err != nil {
			t.Fatal(err)
		}
		got := make([]float64, len(x))
		if err := u.Step(got, x, g, p); err != nil {
			t.Fatal(err)
		}
		// Linearity in (x, g, p): the update of (x, 0, 0) is x, and the
		// update is additive, so Step(x, g, p) = x + Step(0, g, 0) + Step(0, 0, p).
		zero := make([]float64, len(x))
		onlyG, onlyP := make([]float64, len(x)), make([]float64, len(x))
		if err := u.Step(onlyG, zero, g, zero); err != nil {
			t.Fatal(err)
		}
		if err := u.Step(onlyP, zero, zero, p); err != nil {
			t.Fatal(err)
		}
		u.Close()
		for i := range x {
			if d := math.Abs(got[i] - want[i]); d > 1e-12 {
				t.Fatalf("%s: graph update %g, bound update %g at %d", name, got[i], want[i], i)
			}
			if d := math.Abs(got[i] - (x[i] + onlyG[i] + onlyP[i])); d > 1e-12 {
				t.Fatalf("%s: the update is not affine in (x, g, p) at %d: %g vs %g", name, i, got[i], x[i]+onlyG[i]+onlyP[i])
			}
			if m.H == nil && onlyP[i] != 0 {
				t.Fatalf("%s: momentum moved a method without H", name)
			}
		}
	}
}
