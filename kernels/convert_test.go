package kernels

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// conversionLengths are lengths below, at and around the kernels' block of
// 16 values, and the 230,400 values of a stack of 25 images of 96² (and one
// more, for a tail).
var conversionLengths = []int{0, 1, 3, 15, 16, 17, 31, 33, 100, 230400, 230401}

// special64 are float64 values whose rounding to float32 is a corner case:
// NaNs (quiet, signalling, negative, with payloads), ±Inf, ±0, float64
// subnormals (which round to ±0), float32 subnormals and the edges of their
// range, ties rounding to even, and values just below, at and above the
// point from which float32 rounds to ±Inf.
var special64 = []float64{
	math.NaN(), math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff8000000000123),
	math.Float64frombits(0x7ff7ffffffffffff), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
	math.SmallestNonzeroFloat64, -4e-320, 1e-40, -1e-45, 7e-46, 0x1p-150, 0x1.8p-150, 0x1p-149, 0x1p-126, 0x1.fffffcp-127,
	1 + 0x1p-24, 1 + 0x3p-24, -(1 + 0x1p-24), 0x1.fffffep127, 0x1.fffffefffffffp127, 0x1.ffffffp127,
	-0x1.ffffffp127, 0x1p128, math.MaxFloat64, -math.MaxFloat64,
}

// special32 are float32 values for the widening: NaNs with payloads
// (signalling ones are quieted), ±Inf, ±0, subnormals, the extremes.
var special32 = []float32{
	float32(math.NaN()), math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00123),
	float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
	math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 0x1p-127, math.MaxFloat32, -math.MaxFloat32,
}

// mixed returns n values of a wide range of magnitudes, with the special
// values spread over them (at the start, in the blocks and in the tail).
func mixed[F Float](r *rand.Rand, n int, special []F) []F {
	v := make([]F, n)
	for i := range v {
		v[i] = F(math.Ldexp(r.NormFloat64(), r.IntN(300)-150))
	}
	for i := 0; i < n; i += 1 + r.IntN(7) {
		v[i] = special[r.IntN(len(special))]
	}
	for k := 0; k < min(n, len(special)); k++ {
		v[n-1-k] = special[k]
	}
	return v
}

// TestVectorConvertMatchesLoop compares Convert between float64 and float32,
// both ways, with the AVX2 kernels against the plain loop: bitwise equal on
// the corner cases of IEEE rounding, at lengths with and without a tail,
// with nothing written past the end.
func TestVectorConvertMatchesLoop(t *testing.T) {
	if narrow == nil || widen == nil {
		t.Skip("no vector kernels: this is a purego build, not amd64, or the CPU lacks AVX2")
	}
	r := rand.New(rand.NewPCG(48, 51))
	for _, n := range conversionLengths {
		src64 := mixed(r, n, special64)
		got32, want32 := make([]float32, n+1), make([]float32, n+1)
		got32[n], want32[n] = -7, -7
		Convert(got32[:n], src64)
		convertLoop(want32[:n], src64)
		for i := range want32 {
			if math.Float32bits(got32[i]) != math.Float32bits(want32[i]) {
				t.Fatalf("n = %d: float32(%v) at %d is %#x, the loop gives %#x", n, src64[min(i, n-1)], i, math.Float32bits(got32[i]), math.Float32bits(want32[i]))
			}
		}
		src32 := mixed(r, n, special32)
		got64, want64 := make([]float64, n+1), make([]float64, n+1)
		got64[n], want64[n] = -7, -7
		Convert(got64[:n], src32)
		convertLoop(want64[:n], src32)
		for i := range want64 {
			if math.Float64bits(got64[i]) != math.Float64bits(want64[i]) {
				t.Fatalf("n = %d: float64(%v) at %d is %#x, the loop gives %#x", n, src32[min(i, n-1)], i, math.Float64bits(got64[i]), math.Float64bits(want64[i]))
			}
		}
	}
}

// TestConvertRounding checks Convert against values worked out by hand, so
// that the loop the kernels are tested against is itself right: ties to
// even, overflow to ±Inf only from the halfway point above MaxFloat32, and
// float32 subnormals rounded at 2⁻¹⁴⁹.
func TestConvertRounding(t *testing.T) {
	src := []float64{1 + 0x1p-24, 1 + 0x3p-24, 0x1.fffffefffffffp127, 0x1.ffffffp127, -0x1.ffffffp127, 0x1p-150, 0x1.8p-150, math.Copysign(0, -1)}
	want := []uint32{0x3f800000, 0x3f800002, 0x7f7fffff, 0x7f800000, 0xff800000, 0, 1, 0x80000000}
	src = append(src, make([]float64, 16)...) // past a block: the kernel's part too
	got := make([]float32, len(src))
	Convert(got, src)
	for i, w := range want {
		if b := math.Float32bits(got[i]); b != w {
			t.Errorf("float32(%v) = %#x, want %#x", src[i], b, w)
		}
	}
}

// TestVectorAxpyDotMatchesTwoPass compares AxpyDot's kernel with the two
// calls it fuses (floats.AddScaled, then Dot): the updated z and the dot
// product bitwise equal, at lengths with and without a tail, with next
// longer than z, and with next = z.
func TestVectorAxpyDotMatchesTwoPass(t *testing.T) {
	if axpyDot64 == nil {
		t.Skip("no vector kernels: this is a purego build, not amd64, or the CPU lacks AVX2")
	}
	r := rand.New(rand.NewPCG(9, 216))
	normal := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = r.NormFloat64()
		}
		return v
	}
	for trial := 0; trial < 40; trial++ {
		n := []int{1, 3, 4, 5, 6, 7, 8, 9, 96, 9216, 9217}[trial%11]
		values := spread
		if trial%2 == 1 {
			values = func(_ *rand.Rand, n int) []float64 { return normal(n) }
		}
		for _, self := range []bool{false, true} {
			z, b, next := values(r, n), values(r, n+1), values(r, n+3)
			alpha := r.NormFloat64() * 3
			z2 := append([]float64(nil), z...)
			if self {
				next = z
			}
			got := AxpyDot(z, alpha, b, next)
			next2 := next
			if self {
				next2 = z2
			}
			want := axpyDotTwoPass(z2, alpha, b[:n], next2[:n])
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("n = %d, next = z %v: dot %v, the two calls give %v", n, self, got, want)
			}
			sameBits(t, "AxpyDot's z", z, z2)
		}
	}
}

// TestAxpyDot checks AxpyDot against a sum worked out exactly: z = 1 + 2·b
// and next·z in small integers.
func TestAxpyDot(t *testing.T) {
	z, b, next := make([]float64, 9), make([]float64, 9), make([]float64, 9)
	want := 0.0
	for i := range z {
		z[i], b[i], next[i] = 1, float64(i), float64(i%3)
		want += next[i] * (1 + 2*b[i])
	}
	if got := AxpyDot(z, 2, b, next); got != want {
		t.Errorf("AxpyDot = %v, want %v", got, want)
	}
	if z[8] != 17 || floats.Sum(z) != 9+2*36 {
		t.Errorf("z = %v, want 1 + 2·b", z)
	}
}

// TestVectorConvertLargeSplit checks ConvertLarge where it splits the
// vector conversion over goroutines (VectorConvertLen and beyond, on 3
// goroutines: chunks that are not multiples of the kernels' block): bitwise
// the plain loop, both ways, nothing written past the end.
func TestVectorConvertLargeSplit(t *testing.T) {
	if narrow == nil || widen == nil {
		t.Skip("no vector kernels: this is a purego build, not amd64, or the CPU lacks AVX2")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	r := rand.New(rand.NewPCG(4, 8))
	n := VectorConvertLen + 5
	src64, src32 := mixed(r, n, special64), mixed(r, n, special32)
	got32, want32 := make([]float32, n+1), make([]float32, n+1)
	got64, want64 := make([]float64, n+1), make([]float64, n+1)
	got32[n], want32[n], got64[n], want64[n] = -7, -7, -7, -7
	ConvertLarge(got32[:n], src64)
	convertLoop(want32[:n], src64)
	ConvertLarge(got64[:n], src32)
	convertLoop(want64[:n], src32)
	for i := range want32 {
		if math.Float32bits(got32[i]) != math.Float32bits(want32[i]) || math.Float64bits(got64[i]) != math.Float64bits(want64[i]) {
			t.Fatalf("element %d: float32 %#x (loop %#x), float64 %#x (loop %#x)", i, math.Float32bits(got32[i]), math.Float32bits(want32[i]), math.Float64bits(got64[i]), math.Float64bits(want64[i]))
		}
	}
}
