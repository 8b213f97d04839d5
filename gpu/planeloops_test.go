package gpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomPlane returns n float32 values in [−1, 1) with zeros, a negative
// zero and (nan) a NaN among them, from a fixed seed.
func randomPlane(n int, seed uint64, nan bool) []float32 {
	r := rand.New(rand.NewPCG(seed, 51))
	x := make([]float32, n)
	for i := range x {
		x[i] = 2*r.Float32() - 1
	}
	for i := 0; i < n; i += 7 {
		x[i] = 0
	}
	if n > 3 {
		x[3] = float32(math.Copysign(0, -1))
	}
	if nan && n > 5 {
		x[5] = float32(math.NaN())
	}
	return x
}

// sumAbs is Σ |x| (|x·y| with y), in float64.
func sumAbs(x, y []float32) float64 {
	var s float64
	for i, v := range x {
		t := float64(v)
		if y != nil {
			t *= float64(y[i])
		}
		s += math.Abs(t)
	}
	return s
}

// TestPlaneLoopsVectorFloat32 runs the float32 kernels of the host plane
// operations against the scalar loops: the leaky ReLU and the centred plane
// bit for bit, the float64 sums to 1e-13 of Σ|terms| (another order of
// float64 additions), the fused combinations to float32 rounding of their
// terms (2⁻²² Σ|term|), on lengths with and without a tail.
func TestPlaneLoopsVectorFloat32(t *testing.T) {
	if !planeVec {
		t.Skip("no AVX2 and FMA kernels in this build or on this CPU")
	}
	const sumTol, fuseTol = 1e-13, 0x1p-22
	for _, n := range []int{3, 8, 37, 96 * 96, 96*96 + 5} {
		x, y, z := randomPlane(n, 1, false), randomPlane(n, 2, false), randomPlane(n, 3, true)
		if got, want := planeSum32(x), planeSumLoop(x); math.Abs(got-want) > sumTol*sumAbs(x, nil) {
			t.Errorf("n %d: plane sum %v, loop %v", n, got, want)
		}
		if got, want := planeDot32(x, y), planeDotLoop(x, y); math.Abs(got-want) > sumTol*sumAbs(x, y) {
			t.Errorf("n %d: plane dot %v, loop %v", n, got, want)
		}
		su, suz := planeSumDot32(x, y)
		wu, wuz := planeSumDotLoop(x, y)
		if math.Abs(su-wu) > sumTol*sumAbs(x, nil) || math.Abs(suz-wuz) > sumTol*sumAbs(x, y) {
			t.Errorf("n %d: plane sum and dot %v %v, loop %v %v", n, su, suz, wu, wuz)
		}
		const c, a, b = float32(-0.3125), float32(1.7), float32(-0.45)
		zv, zl := make([]float32, n), make([]float32, n)
		qv, ql := shiftSquares32(zv, x, c), shiftSquaresLoop(zl, x, c)
		if math.Abs(qv-ql) > sumTol*sumAbs(zl, zl) {
			t.Errorf("n %d: centred squares %v, loop %v", n, qv, ql)
		}
		checkSame(t, "centred plane", n, zv, zl)
		lv, ll := make([]float32, n), make([]float32, n)
		leaky32(lv, z, y, 0.2)
		leakyLoop(ll, z, y, 0.2)
		checkSame(t, "leaky mask", n, lv, ll)
		av, al := make([]float32, n), make([]float32, n)
		affine32(av, x, a, c)
		affineLoop(al, x, a, c)
		cv, cl := make([]float32, n), make([]float32, n)
		combine32(cv, x, y, a, b, c)
		combineLoop(cl, x, y, a, b, c)
		for i := range n {
			ta := math.Abs(float64(a*x[i])) + math.Abs(float64(c))
			if d := math.Abs(float64(av[i] - al[i])); d > fuseTol*ta {
				t.Fatalf("n %d: affine [%d] %v, loop %v", n, i, av[i], al[i])
			}
			tc := ta + math.Abs(float64(b*y[i]))
			if d := math.Abs(float64(cv[i] - cl[i])); d > fuseTol*tc {
				t.Fatalf("n %d: combine [%d] %v, loop %v", n, i, cv[i], cl[i])
			}
		}
	}
}

// checkSame fails unless got and want hold the same bits.
func checkSame(t *testing.T, what string, n int, got, want []float32) {
	t.Helper()
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("n %d: %s [%d] %v, loop %v", n, what, i, got[i], want[i])
		}
	}
}
