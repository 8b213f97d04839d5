package mconv

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testsupport"
)

// TestVectorRowsMatchScalar compares Forward and AdjointInput with and
// without the vector row kernels (rowCorrVec): bitwise equal in both
// precisions, for K = 3 and 5 and widths that are and are not multiples of
// the vector.
func TestVectorRowsMatchScalar(t *testing.T) {
	if !vectorRows {
		t.Skip("no vector kernels: this is a purego build, not amd64, or the CPU lacks AVX2")
	}
	t.Run("float64", func(t *testing.T) { vectorRowsCase[float64](t) })
	t.Run("float32", func(t *testing.T) { vectorRowsCase[float32](t) })
}

func vectorRowsCase[F Float](t *testing.T) {
	withoutTiles(t)
	r := rand.New(rand.NewPCG(31, 32))
	for _, s := range []Shape{
		{N: 2, Cin: 3, Cout: 4, H: 9, W: 7, K: 3},
		{N: 1, Cin: 4, Cout: 3, H: 12, W: 32, K: 3},
		{N: 1, Cin: 2, Cout: 5, H: 11, W: 13, K: 5},
		{N: 1, Cin: 8, Cout: 8, H: 24, W: 96, K: 5},
	} {
		x, w, b := spreadT[F](r, s.InputLen()), spreadT[F](r, s.WeightLen()), spreadT[F](r, s.Cout)
		y := spreadT[F](r, s.OutputLen())
		fv, fs := make([]F, s.OutputLen()), make([]F, s.OutputLen())
		av, as := make([]F, s.InputLen()), make([]F, s.InputLen())
		if err := ForwardT(fv, x, w, b, s); err != nil {
			t.Fatal(err)
		}
		if err := AdjointInputT(av, y, w, s); err != nil {
			t.Fatal(err)
		}
		vectorRows = false
		_ = ForwardT(fs, x, w, b, s)
		_ = AdjointInputT(as, y, w, s)
		vectorRows = true
		for i := range fv {
			if !sameBits(fv[i], fs[i]) {
				t.Fatalf("%+v: Forward[%d] = %v with vector rows, %v without", s, i, fv[i], fs[i])
			}
		}
		for i := range av {
			if !sameBits(av[i], as[i]) {
				t.Fatalf("%+v: AdjointInput[%d] = %v with vector rows, %v without", s, i, av[i], as[i])
			}
		}
	}
}

// TestVectorAdjointWeightsMatchScalar compares AdjointWeights (filters and
// bias) with and without the vector row sums: bitwise equal in both
// precisions, for K = 3 and 5 and input channels in whole vectors and not.
func TestVectorAdjointWeightsMatchScalar(t *testing.T) {
	if !vectorRows {
		t.Skip("no vector kernels: this is a purego build, not amd64, or the CPU lacks AVX2")
	}
	t.Run("float64", func(t *testing.T) { vectorAdjointWeightsCase[float64](t) })
	t.Run("float32", func(t *testing.T) { vectorAdjointWeightsCase[float32](t) })
}

func vectorAdjointWeightsCase[F Float](t *testing.T) {
	withoutTiles(t)
	r := rand.New(rand.NewPCG(33, 34))
	for _, s := range []Shape{
		{N: 2, Cin: 4, Cout: 3, H: 9, W: 7, K: 3},
		{N: 1, Cin: 6, Cout: 2, H: 12, W: 32, K: 3},
		{N: 2, Cin: 8, Cout: 3, H: 11, W: 13, K: 5},
		{N: 1, Cin: 3, Cout: 2, H: 8, W: 8, K: 3},
		{N: 1, Cin: 4, Cout: 2, H: 5, W: 2, K: 3},
		{N: 1, Cin: 19, Cout: 2, H: 10, W: 11, K: 3},
		{N: 1, Cin: 16, Cout: 3, H: 9, W: 12, K: 5},
	} {
		x, y := spreadT[F](r, s.InputLen()), spreadT[F](r, s.OutputLen())
		wv, ws := make([]F, s.WeightLen()), make([]F, s.WeightLen())
		bv, bs := make([]F, s.Cout), make([]F, s.Cout)
		if err := AdjointWeightsT(wv, bv, x, y, s); err != nil {
			t.Fatal(err)
		}
		vectorRows = false
		_ = AdjointWeightsT(ws, bs, x, y, s)
		vectorRows = true
		for i := range wv {
			if !sameBits(wv[i], ws[i]) {
				t.Fatalf("%+v: gw[%d] = %v with vector rows, %v without", s, i, wv[i], ws[i])
			}
		}
		for i := range bv {
			if !sameBits(bv[i], bs[i]) {
				t.Fatalf("%+v: gb[%d] = %v with vector rows, %v without", s, i, bv[i], bs[i])
			}
		}
	}
}

// withoutTiles turns the 3×3 tile kernels off until the test ends, so that
// the row kernels run.
func withoutTiles(t *testing.T) {
	saved := convTiles
	convTiles = false
	t.Cleanup(func() { convTiles = saved })
}

// spreadT returns n normal values scaled by 2^e, e uniform in [−20, 20]:
// sums of their products change in the last bits when reordered.
func spreadT[F Float](r *rand.Rand, n int) []F {
	v := make([]F, n)
	for i := range v {
		v[i] = F(math.Ldexp(r.NormFloat64(), r.IntN(41)-20))
	}
	return v
}

// sameBits reports whether a and b have the same bits.
func sameBits[F Float](a, b F) bool {
	return math.Float64bits(float64(a)) == math.Float64bits(float64(b))
}

// BenchmarkBanertLayer times one 32→32 3×3 layer of Banert's network on one
// 96×96 image (the shape of an Adam step at T = 10 on one function) in each
// precision: Forward, AdjointInput and AdjointWeights, with ms/op and the
// process's CPU time per op (cpu-ms/op, all threads).
func BenchmarkBanertLayer(b *testing.B) {
	s := Shape{N: 1, Cin: 32, Cout: 32, H: 96, W: 96, K: 3}
	b.Run("float64", func(b *testing.B) { benchLayer[float64](b, s) })
	b.Run("float32", func(b *testing.B) { benchLayer[float32](b, s) })
}

func benchLayer[F Float](b *testing.B, s Shape) {
	r := rand.New(rand.NewPCG(5, 6))
	x, y, w := spreadT[F](r, s.InputLen()), spreadT[F](r, s.OutputLen()), spreadT[F](r, s.WeightLen())
	gw, gb := make([]F, s.WeightLen()), make([]F, s.Cout)
	for _, op := range []string{"forward", "adjointInput", "adjointWeights"} {
		b.Run(op, func(b *testing.B) {
			cpu := testsupport.CPUSeconds()
			for b.Loop() {
				switch op {
				case "forward":
					_ = ForwardT(y, x, w, gb, s)
				case "adjointInput":
					_ = AdjointInputT(x, y, w, s)
				default:
					_ = AdjointWeightsT(gw, gb, x, y, s)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/op")
			b.ReportMetric((testsupport.CPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}
