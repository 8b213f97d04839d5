package mconv

import (
	"math"
	"math/rand/v2"
	"testing"
)

// tileShapes run the 3×3 tile kernels: whole tiles and rest channels in
// both directions (the rest by vec.ConvRow3x where a row holds its block), widths that are and are not whole vectors (the last
// vector overlaps), one-row and two-row images, Banert's 32-channel layer.
var tileShapes = []Shape{
	{N: 2, Cin: 3, Cout: 17, H: 9, W: 13, K: 3},
	{N: 1, Cin: 19, Cout: 8, H: 2, W: 8, K: 3},
	{N: 2, Cin: 16, Cout: 12, H: 1, W: 21, K: 3},
	{N: 1, Cin: 8, Cout: 9, H: 12, W: 3, K: 3},
	{N: 1, Cin: 32, Cout: 32, H: 20, W: 24, K: 3},
	// Banert's last layer and the adjoint of its first: single output
	// planes (vec.ConvRow3x), rows of one block and more.
	{N: 1, Cin: 32, Cout: 1, H: 7, W: 40, K: 3},
	{N: 2, Cin: 3, Cout: 32, H: 5, W: 33, K: 3},
	{N: 1, Cin: 2, Cout: 11, H: 3, W: 32, K: 3},
}

// TestVectorTilesMatchScalar runs Forward, AdjointInput and AdjointWeights with
// and without the tile kernels: float64 bit for bit, float32 within the
// rounding of the sums (the kernels fuse): two sums of n terms in any order
// differ by at most 2nε·Σ|terms|.
func TestVectorTilesMatchScalar(t *testing.T) {
	if !convTiles {
		t.Skip("no tile kernels: this is a purego build, not amd64, or the CPU lacks AVX2 and FMA")
	}
	t.Run("float64", func(t *testing.T) { tilesCase[float64](t, 0) })
	t.Run("float32", func(t *testing.T) { tilesCase[float32](t, 0x1p-24) })
}

// tilesCase compares the three maps with and without tiles; eps = 0 asks
// for the same bits, otherwise |tiled − scalar| ≤ 2n·eps·(the map applied to
// absolute values) for sums of n terms.
func tilesCase[F Float](t *testing.T, eps float64) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, s := range tileShapes {
		x, w, b := spreadT[F](r, s.InputLen()), spreadT[F](r, s.WeightLen()), spreadT[F](r, s.Cout)
		y := spreadT[F](r, s.OutputLen())
		maps := []struct {
			name     string
			n, terms int
			run      func(dst []F, x, w, b, y []F) error
		}{
			{"Forward", s.OutputLen(), 9*s.Cin + 1, func(d, x, w, b, _ []F) error { return ForwardT(d, x, w, b, s) }},
			{"AdjointInput", s.InputLen(), 9 * s.Cout, func(d, _, w, _, y []F) error { return AdjointInputT(d, y, w, s) }},
			{"AdjointWeights", s.WeightLen() + s.Cout, s.N * s.H * s.W, func(d, x, _, _, y []F) error {
				return AdjointWeightsT(d[:s.WeightLen()], d[s.WeightLen():], x, y, s)
			}},
		}
		for _, m := range maps {
			tiled, scalar, bound := make([]F, m.n), make([]F, m.n), make([]F, m.n)
			if err := m.run(tiled, x, w, b, y); err != nil {
				t.Fatal(err)
			}
			convTiles = false
			_ = m.run(scalar, x, w, b, y)
			_ = m.run(bound, absT(x), absT(w), absT(b), absT(y))
			convTiles = true
			tol := 2 * float64(m.terms) * eps
			for i := range tiled {
				if eps == 0 && !sameBits(tiled[i], scalar[i]) ||
					math.Abs(float64(tiled[i]-scalar[i])) > tol*float64(bound[i]) {
					t.Fatalf("%+v: %s[%d] = %v with tiles, %v without", s, m.name, i, tiled[i], scalar[i])
				}
			}
		}
	}
}

func absT[F Float](v []F) []F {
	a := make([]F, len(v))
	for i, x := range v {
		a[i] = F(math.Abs(float64(x)))
	}
	return a
}

// TestTilesAdjointFloat32 checks ⟨Forward x, y⟩ = ⟨x, AdjointInput y⟩ =
// ⟨w, AdjointWeights(x, y)⟩ in float32 on the tile shapes, to float32's
// rounding (relative 1e-5 of ‖Forward x‖·‖y‖).
func TestTilesAdjointFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, s := range tileShapes {
		x, w, y := normalT[float32](r, s.InputLen()), normalT[float32](r, s.WeightLen()), normalT[float32](r, s.OutputLen())
		fx, aty, gw := make([]float32, s.OutputLen()), make([]float32, s.InputLen()), make([]float32, s.WeightLen())
		if err := ForwardT(fx, x, w, nil, s); err != nil {
			t.Fatal(err)
		}
		if err := AdjointInputT(aty, y, w, s); err != nil {
			t.Fatal(err)
		}
		if err := AdjointWeightsT(gw, nil, x, y, s); err != nil {
			t.Fatal(err)
		}
		lhs := dot32(fx, y)
		scale := math.Sqrt(dot32(fx, fx) * dot32(y, y))
		for _, c := range []struct {
			name string
			rhs  float64
		}{{"⟨x, AdjointInput y⟩", dot32(x, aty)}, {"⟨w, AdjointWeights(x, y)⟩", dot32(w, gw)}} {
			if rel := math.Abs(lhs-c.rhs) / scale; rel > 1e-5 {
				t.Errorf("%+v: ⟨Forward x, y⟩ = %v, %s = %v, rel %g", s, lhs, c.name, c.rhs, rel)
			}
		}
	}
}

func normalT[F Float](r *rand.Rand, n int) []F {
	v := make([]F, n)
	for i := range v {
		v[i] = F(r.NormFloat64())
	}
	return v
}

// dot32 is ⟨a, b⟩ summed in float64.
func dot32(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
