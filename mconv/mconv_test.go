package mconv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// naiveForward is the direct definition of Forward, written independently of
// the row kernels: one multiply-add per (output pixel, channel, tap) with an
// explicit test for the zero padding.
func naiveForward(x, w, bias []float64, s Shape) []float64 {
	p := s.K / 2
	y := make([]float64, s.OutputLen())
	for n := 0; n < s.N; n++ {
		for o := 0; o < s.Cout; o++ {
			for i := 0; i < s.H; i++ {
				for j := 0; j < s.W; j++ {
					var acc float64
					if bias != nil {
						acc = bias[o]
					}
					for c := 0; c < s.Cin; c++ {
						for u := 0; u < s.K; u++ {
							for v := 0; v < s.K; v++ {
								r, q := i+u-p, j+v-p
								if r < 0 || r >= s.H || q < 0 || q >= s.W {
									continue
								}
								acc += w[((o*s.Cin+c)*s.K+u)*s.K+v] * x[((n*s.Cin+c)*s.H+r)*s.W+q]
							}
						}
					}
					y[((n*s.Cout+o)*s.H+i)*s.W+j] = acc
				}
			}
		}
	}
	return y
}

func randSlice(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func norm(a []float64) float64 { return math.Sqrt(dot(a, a)) }

var testShapes = []Shape{
	{N: 1, Cin: 1, Cout: 1, H: 7, W: 9, K: 3},
	{N: 3, Cin: 2, Cout: 4, H: 8, W: 7, K: 5},
	{N: 1, Cin: 3, Cout: 2, H: 5, W: 6, K: 5},
	{N: 3, Cin: 4, Cout: 3, H: 10, W: 11, K: 3},
	{N: 1, Cin: 2, Cout: 3, H: 3, W: 4, K: 5},  // image smaller than the kernel
	{N: 2, Cin: 2, Cout: 3, H: 9, W: 12, K: 7}, // generic kernel size
	{N: 2, Cin: 3, Cout: 2, H: 4, W: 5, K: 1},
	{N: 3, Cin: 4, Cout: 5, H: 20, W: 17, K: 5}, // large enough to run in parallel
	{N: 1, Cin: 8, Cout: 6, H: 33, W: 31, K: 3}, // parallel over output channels
	// 3×3 register tiles where the CPU has them (tile.go): whole tiles and
	// rest channels, rows as narrow as one vector, one or two rows.
	{N: 2, Cin: 5, Cout: 11, H: 6, W: 13, K: 3},
	{N: 1, Cin: 9, Cout: 9, H: 2, W: 4, K: 3},
	{N: 2, Cin: 16, Cout: 8, H: 1, W: 9, K: 3},
	{N: 1, Cin: 5, Cout: 3, H: 6, W: 37, K: 3},
}

func TestForwardMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range testShapes {
		for _, withBias := range []bool{false, true} {
			x := randSlice(rng, s.InputLen())
			w := randSlice(rng, s.WeightLen())
			var bias []float64
			if withBias {
				bias = randSlice(rng, s.Cout)
			}
			y := randSlice(rng, s.OutputLen()) // garbage: Forward must overwrite
			if err := Forward(y, x, w, bias, s); err != nil {
				t.Fatal(err)
			}
			want := naiveForward(x, w, bias, s)
			var maxErr float64
			for i := range y {
				maxErr = max(maxErr, math.Abs(y[i]-want[i]))
			}
			if tol := 1e-12 * (1 + norm(want)/math.Sqrt(float64(len(want)))); maxErr > tol {
				t.Errorf("shape %+v bias %v: max |Forward − naive| = %g > %g", s, withBias, maxErr, tol)
			}
		}
	}
}

func TestAdjointIdentities(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range testShapes {
		x := randSlice(rng, s.InputLen())
		w := randSlice(rng, s.WeightLen())
		b := randSlice(rng, s.Cout)
		y := randSlice(rng, s.OutputLen())

		fx := make([]float64, s.OutputLen())
		if err := Forward(fx, x, w, nil, s); err != nil {
			t.Fatal(err)
		}
		aty := randSlice(rng, s.InputLen())
		if err := AdjointInput(aty, y, w, s); err != nil {
			t.Fatal(err)
		}
		lhs, rhs := dot(fx, y), dot(x, aty)
		if rel := math.Abs(lhs-rhs) / (norm(fx) * norm(y)); rel > 1e-12 {
			t.Errorf("shape %+v: ⟨Forward x, y⟩ = %v, ⟨x, AdjointInput y⟩ = %v, rel %g", s, lhs, rhs, rel)
		}

		// In the weights and bias jointly: Forward is linear in (w, b).
		fb := make([]float64, s.OutputLen())
		if err := Forward(fb, x, w, b, s); err != nil {
			t.Fatal(err)
		}
		gw := randSlice(rng, s.WeightLen())
		gb := randSlice(rng, s.Cout)
		if err := AdjointWeights(gw, gb, x, y, s); err != nil {
			t.Fatal(err)
		}
		lhs, rhs = dot(fb, y), dot(w, gw)+dot(b, gb)
		if rel := math.Abs(lhs-rhs) / (norm(fb) * norm(y)); rel > 1e-12 {
			t.Errorf("shape %+v: ⟨Forward(x; w, b), y⟩ = %v, ⟨w, gw⟩ + ⟨b, gb⟩ = %v, rel %g", s, lhs, rhs, rel)
		}
		// And without bias: gb == nil must leave only the weight part.
		if err := AdjointWeights(gw, nil, x, y, s); err != nil {
			t.Fatal(err)
		}
		if rel := math.Abs(dot(fx, y)-dot(w, gw)) / (norm(fx) * norm(y)); rel > 1e-12 {
			t.Errorf("shape %+v: ⟨Forward(x; w), y⟩ ≠ ⟨w, AdjointWeights⟩, rel %g", s, rel)
		}
	}
}

func TestErrors(t *testing.T) {
	good := Shape{N: 1, Cin: 2, Cout: 3, H: 4, W: 5, K: 3}
	x := make([]float64, good.InputLen())
	y := make([]float64, good.OutputLen())
	w := make([]float64, good.WeightLen())
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"even K", Forward(y, x, w, nil, Shape{N: 1, Cin: 2, Cout: 3, H: 4, W: 5, K: 4}), "odd"},
		{"zero H", Forward(y, x, w, nil, Shape{N: 1, Cin: 2, Cout: 3, H: 0, W: 5, K: 3}), "H = 0"},
		{"short x", Forward(y, x[1:], w, nil, good), "len(x)"},
		{"bias", Forward(y, x, w, []float64{1}, good), "len(bias)"},
		{"adjoint y", AdjointInput(x, y[:3], w, good), "len(y)"},
		{"gw", AdjointWeights(w[1:], nil, x, y, good), "len(gw)"},
		{"gb", AdjointWeights(w, []float64{1, 2}, x, y, good), "len(gb)"},
		{"overflow", Shape{N: 1 << 40, Cin: 1 << 30, Cout: 1, H: 1, W: 1, K: 1}.Validate(), "overflow"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, c.err, c.want)
		}
	}
}

func ExampleForward() {
	// One 3×3 image, one channel in and out, a 3×3 box filter: each output
	// pixel is the sum of its (zero-padded) neighbourhood.
	s := Shape{N: 1, Cin: 1, Cout: 1, H: 3, W: 3, K: 3}
	x := []float64{
		1, 2, 3,
		4, 5, 6,
		7, 8, 9,
	}
	w := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1}
	y := make([]float64, s.OutputLen())
	if err := Forward(y, x, w, nil, s); err != nil {
		fmt.Println(err)
		return
	}
	for i := 0; i < 3; i++ {
		fmt.Println(y[3*i : 3*i+3])
	}
	// Output:
	// [12 21 16]
	// [27 45 33]
	// [24 39 28]
}

func benchShapes() []struct {
	name string
	s    Shape
} {
	return []struct {
		name string
		s    Shape
	}{
		{"wcrr1_25x1to4_96_k5", Shape{N: 25, Cin: 1, Cout: 4, H: 96, W: 96, K: 5}},
		{"wcrr2_25x4to8_96_k5", Shape{N: 25, Cin: 4, Cout: 8, H: 96, W: 96, K: 5}},
		{"wcrr3_25x8to60_96_k5", Shape{N: 25, Cin: 8, Cout: 60, H: 96, W: 96, K: 5}},
		{"banert_8x32to32_96_k3", Shape{N: 8, Cin: 32, Cout: 32, H: 96, W: 96, K: 3}},
	}
}

func benchmark(b *testing.B, s Shape, which string) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := randSlice(rng, s.InputLen())
	y := randSlice(rng, s.OutputLen())
	w := randSlice(rng, s.WeightLen())
	gw := make([]float64, s.WeightLen())
	b.ResetTimer()
	for b.Loop() {
		var err error
		switch which {
		case "forward":
			err = Forward(y, x, w, nil, s)
		case "adjointInput":
			err = AdjointInput(x, y, w, s)
		case "adjointWeights":
			err = AdjointWeights(gw, nil, x, y, s)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	perOp := b.Elapsed().Seconds() / float64(b.N)
	macs := float64(s.N*s.Cout*s.Cin*s.H*s.W*s.K*s.K) / perOp
	b.ReportMetric(perOp*1e3, "ms/op")
	b.ReportMetric(macs/1e9, "GMAC/s")
}

func BenchmarkForward(b *testing.B) {
	for _, c := range benchShapes() {
		b.Run(c.name, func(b *testing.B) { benchmark(b, c.s, "forward") })
	}
}

func BenchmarkAdjointInput(b *testing.B) {
	for _, c := range benchShapes() {
		b.Run(c.name, func(b *testing.B) { benchmark(b, c.s, "adjointInput") })
	}
}

func BenchmarkAdjointWeights(b *testing.B) {
	for _, c := range benchShapes() {
		b.Run(c.name, func(b *testing.B) { benchmark(b, c.s, "adjointWeights") })
	}
}
