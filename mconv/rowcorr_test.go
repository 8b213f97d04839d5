package mconv

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVectorRowsMatchScalar compares Forward and AdjointInput with and
// without the vector row kernels (rowCorrVec): bitwise equal, for K = 3 and
// 5 and widths that are and are not multiples of the vector.
func TestVectorRowsMatchScalar(t *testing.T) {
	if !vectorRows {
		t.Skip("no vector kernels: this is a purego build, not amd64, or the CPU lacks AVX2")
	}
	r := rand.New(rand.NewPCG(31, 32))
	for _, s := range []Shape{
		{N: 2, Cin: 3, Cout: 4, H: 9, W: 7, K: 3},
		{N: 1, Cin: 4, Cout: 3, H: 12, W: 32, K: 3},
		{N: 1, Cin: 2, Cout: 5, H: 11, W: 13, K: 5},
		{N: 1, Cin: 8, Cout: 8, H: 24, W: 96, K: 5},
	} {
		x, w, b := spreadVec(r, s.InputLen()), spreadVec(r, s.WeightLen()), spreadVec(r, s.Cout)
		y := spreadVec(r, s.OutputLen())
		fv, fs := make([]float64, s.OutputLen()), make([]float64, s.OutputLen())
		av, as := make([]float64, s.InputLen()), make([]float64, s.InputLen())
		if err := Forward(fv, x, w, b, s); err != nil {
			t.Fatal(err)
		}
		if err := AdjointInput(av, y, w, s); err != nil {
			t.Fatal(err)
		}
		vectorRows = false
		_ = Forward(fs, x, w, b, s)
		_ = AdjointInput(as, y, w, s)
		vectorRows = true
		for i := range fv {
			if math.Float64bits(fv[i]) != math.Float64bits(fs[i]) {
				t.Fatalf("%+v: Forward[%d] = %v with vector rows, %v without", s, i, fv[i], fs[i])
			}
		}
		for i := range av {
			if math.Float64bits(av[i]) != math.Float64bits(as[i]) {
				t.Fatalf("%+v: AdjointInput[%d] = %v with vector rows, %v without", s, i, av[i], as[i])
			}
		}
	}
}

// TestVectorAdjointWeightsMatchScalar compares AdjointWeights (filters and
// bias) with and without the vector row sums: bitwise equal, for K = 3 and 5
// and input channels in groups of four and not.
func TestVectorAdjointWeightsMatchScalar(t *testing.T) {
	if !vectorRows {
		t.Skip("no vector kernels: this is a purego build, not amd64, or the CPU lacks AVX2")
	}
	r := rand.New(rand.NewPCG(33, 34))
	for _, s := range []Shape{
		{N: 2, Cin: 4, Cout: 3, H: 9, W: 7, K: 3},
		{N: 1, Cin: 6, Cout: 2, H: 12, W: 32, K: 3},
		{N: 2, Cin: 8, Cout: 3, H: 11, W: 13, K: 5},
		{N: 1, Cin: 3, Cout: 2, H: 8, W: 8, K: 3},
		{N: 1, Cin: 4, Cout: 2, H: 5, W: 2, K: 3},
	} {
		x, y := spreadVec(r, s.InputLen()), spreadVec(r, s.OutputLen())
		wv, ws := make([]float64, s.WeightLen()), make([]float64, s.WeightLen())
		bv, bs := make([]float64, s.Cout), make([]float64, s.Cout)
		if err := AdjointWeights(wv, bv, x, y, s); err != nil {
			t.Fatal(err)
		}
		vectorRows = false
		_ = AdjointWeights(ws, bs, x, y, s)
		vectorRows = true
		for i := range wv {
			if math.Float64bits(wv[i]) != math.Float64bits(ws[i]) {
				t.Fatalf("%+v: gw[%d] = %v with vector rows, %v without", s, i, wv[i], ws[i])
			}
		}
		for i := range bv {
			if math.Float64bits(bv[i]) != math.Float64bits(bs[i]) {
				t.Fatalf("%+v: gb[%d] = %v with vector rows, %v without", s, i, bv[i], bs[i])
			}
		}
	}
}

// spreadVec returns n normal values scaled by 2^e, e uniform in [−20, 20]:
// sums of their products change in the last bits when reordered.
func spreadVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Ldexp(r.NormFloat64(), r.IntN(41)-20)
	}
	return v
}
