package tomo

import (
	"math"
	"math/rand"
	"testing"
)

// TestFloat32Projector compares ForwardT and AdjointT in float32 with the
// float64 projector on the same (float32) inputs, single images and batches
// of lanes: relative differences below 1e-5; and checks the float32 pair's
// adjointness, |⟨Ax, y⟩ − ⟨x, Aᵀy⟩| ≤ 1e-5 ‖Ax‖‖y‖.
func TestFloat32Projector(t *testing.T) {
	for _, n := range []int{24, 40} {
		g, err := NewGeometry(n, 45, 0)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewProjector(g)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewSource(int64(n)))
		for _, b := range []int{1, 4, 6} {
			x32, y32 := make([]float32, b*g.ImageLen()), make([]float32, b*g.SinoLen())
			for i := range x32 {
				x32[i] = float32(r.NormFloat64())
			}
			for i := range y32 {
				y32[i] = float32(r.NormFloat64())
			}
			x64, y64 := widen(x32), widen(y32)
			ax32, ax64 := make([]float32, len(y32)), make([]float64, len(y32))
			aty32, aty64 := make([]float32, len(x32)), make([]float64, len(x32))
			if err := ForwardT(p, ax32, x32, b); err != nil {
				t.Fatal(err)
			}
			if err := p.Forward(ax64, x64, b); err != nil {
				t.Fatal(err)
			}
			if err := AdjointT(p, aty32, y32, b); err != nil {
				t.Fatal(err)
			}
			if err := p.Adjoint(aty64, y64, b); err != nil {
				t.Fatal(err)
			}
			df, da := relDiff32(ax32, ax64), relDiff32(aty32, aty64)
			if df > 1e-5 || da > 1e-5 {
				t.Errorf("n=%d batch %d: float32 forward differs by %.2g, adjoint by %.2g", n, b, df, da)
			}
			lhs := dot(widen(ax32), y64)
			rhs := dot(x64, widen(aty32))
			scale := norm2(widen(ax32)) * norm2(y64)
			if d := math.Abs(lhs-rhs) / scale; d > 1e-5 {
				t.Errorf("n=%d batch %d: float32 adjointness %.2g", n, b, d)
			}
			t.Logf("n=%d batch %d: forward %.2g, adjoint %.2g relative to float64", n, b, df, da)
		}
		if err := ForwardT(p, make([]float32, 3), make([]float32, g.ImageLen()), 1); err == nil {
			t.Error("a short sinogram was accepted")
		}
	}
}

func widen(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func relDiff32(a []float32, b []float64) float64 {
	var d, s float64
	for i, v := range b {
		e := float64(a[i]) - v
		d += e * e
		s += v * v
	}
	return math.Sqrt(d / s)
}
