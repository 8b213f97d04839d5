package problem

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/kernels"
	"gorgonia.org/tensor"
)

// goldenProblem lists FNV-1a hashes of the bits of the float64 separable
// blur and fused objective outputs on fixed-seed data, computed with the
// float64-only code (commit a1086c6), before the kernels were made generic.
// GOLDEN_PRINT=1 prints the current hashes.
var goldenProblem = map[string]string{
	"blur/gauss3/circular/2x12x10/adjoint": "62dbba1838c2de9b",
	"blur/gauss3/circular/2x12x10/apply":   "7b3b669546e549d8",
	"blur/gauss3/circular/3x96x96/adjoint": "51c9466de5aac428",
	"blur/gauss3/circular/3x96x96/apply":   "2630bf32f96f35e4",
	"blur/gauss3/reflect/2x12x10/adjoint":  "d26562a059631788",
	"blur/gauss3/reflect/2x12x10/apply":    "feb8b7d711171fa1",
	"blur/gauss3/reflect/3x96x96/adjoint":  "e1abe08da14888a3",
	"blur/gauss3/reflect/3x96x96/apply":    "8a80ced6a17a7ffa",
	"blur/gauss3/zero/2x12x10/adjoint":     "935fbad968a893ca",
	"blur/gauss3/zero/2x12x10/apply":       "85f084468422cdbc",
	"blur/gauss3/zero/3x96x96/adjoint":     "83a212442b34b2d2",
	"blur/gauss3/zero/3x96x96/apply":       "ad4f310d048e246a",
	"blur/gauss5/circular/2x12x10/adjoint": "5c0860929647ce10",
	"blur/gauss5/circular/2x12x10/apply":   "6278ebeb7b83dbfc",
	"blur/gauss5/circular/3x96x96/adjoint": "5dcbd2971502dd64",
	"blur/gauss5/circular/3x96x96/apply":   "5b9d3114bd718464",
	"blur/gauss5/reflect/2x12x10/adjoint":  "19f6f9840c77d864",
	"blur/gauss5/reflect/2x12x10/apply":    "63ff010747b9cd5f",
	"blur/gauss5/reflect/3x96x96/adjoint":  "c115746fdfdd7af0",
	"blur/gauss5/reflect/3x96x96/apply":    "30b3b8f73360c5d8",
	"blur/gauss5/zero/2x12x10/adjoint":     "3b52ca269848c576",
	"blur/gauss5/zero/2x12x10/apply":       "55f660dfb779e13e",
	"blur/gauss5/zero/3x96x96/adjoint":     "b85fc9734f742bd6",
	"blur/gauss5/zero/3x96x96/apply":       "6523d8bce83d82d0",
	"blur/outer7/circular/2x12x10/adjoint": "bc42d2cc5049444c",
	"blur/outer7/circular/2x12x10/apply":   "1a7ac7b2aa29fc0e",
	"blur/outer7/circular/3x96x96/adjoint": "1838aad2089417e3",
	"blur/outer7/circular/3x96x96/apply":   "1f83b0578ab604e0",
	"blur/outer7/reflect/2x12x10/adjoint":  "067ed761c152ff94",
	"blur/outer7/reflect/2x12x10/apply":    "6d648be3a26d7bdd",
	"blur/outer7/reflect/3x96x96/adjoint":  "a23bec605e5b8be0",
	"blur/outer7/reflect/3x96x96/apply":    "c4cb8f469ad311d6",
	"blur/outer7/zero/2x12x10/adjoint":     "502bfaf7ade191cf",
	"blur/outer7/zero/2x12x10/apply":       "2bced5af43c95877",
	"blur/outer7/zero/3x96x96/adjoint":     "645f36fb255460ac",
	"blur/outer7/zero/3x96x96/apply":       "04e07bc3f3f00e55",
	"p1/circular/grad":                     "0bf60cbc786e9824",
	"p1/circular/ls/grad":                  "725967019058f2f8",
	"p1/circular/ls/vals":                  "6a11ac2a7bcca849",
	"p1/circular/tv/grad":                  "d3b7d468a2db6aac",
	"p1/circular/tv/vals":                  "8704334ccb38edb1",
	"p1/circular/vals":                     "93c4f2eea9c0da74",
	"p1/circular/valsonly":                 "93c4f2eea9c0da74",
	"p1/reflect/grad":                      "247c9f754d23bd9c",
	"p1/reflect/ls/grad":                   "6fa51ce3cf4f0be0",
	"p1/reflect/ls/vals":                   "0498e761e23a43af",
	"p1/reflect/tv/grad":                   "d3b7d468a2db6aac",
	"p1/reflect/tv/vals":                   "8704334ccb38edb1",
	"p1/reflect/vals":                      "a766e65e8ceaebb9",
	"p1/reflect/valsonly":                  "a766e65e8ceaebb9",
	"p1/zero/grad":                         "c4ee38abdcc25c7e",
	"p1/zero/ls/grad":                      "15cd25bc2590e30e",
	"p1/zero/ls/vals":                      "701614b48eb47bb4",
	"p1/zero/tv/grad":                      "d3b7d468a2db6aac",
	"p1/zero/tv/vals":                      "8704334ccb38edb1",
	"p1/zero/vals":                         "62c31995e01138a4",
	"p1/zero/valsonly":                     "62c31995e01138a4",
}

func floatBitsHash(v []float64) string {
	h := fnv.New64a()
	var buf [8]byte
	for _, f := range v {
		b := math.Float64bits(f)
		for i := range buf {
			buf[i] = byte(b >> (8 * i))
		}
		h.Write(buf[:])
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// p1Objective builds Problem 1's objective by hand (normalised 5×5 Gaussian
// blur σ = 1.5, Huber-TV ε = 0.005, α = 2e-4) on n random images of h×w,
// independent of the problem registry's data generation.
func p1Objective(t testing.TB, n, h, w int, bd kernels.Boundary, seed uint64) *Objective {
	t.Helper()
	blur, err := NewBlur("gauss5-1.5", GaussianKernel(5, 1.5), 5, bd)
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := Normalize(blur, h, w)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 77))
	y := make([]float64, n*h*w)
	x0 := make([]float64, n*h*w)
	for i := range y {
		y[i] = r.Float64()
		x0[i] = y[i] + 0.01*r.NormFloat64()
	}
	return &Objective{A: a, Reg: HuberTV{Eps: 0.005}, Alpha: 2e-4, N: n, H: h, W: w, Y: y, X0: x0, L: 1 + 2e-4*8/0.005, NormA: 1}
}

func goldenProblemOutputs(t *testing.T) map[string]string {
	out := map[string]string{}
	r := rand.New(rand.NewPCG(2026, 181))
	a7, b7 := randVec(r, 7, 1), randVec(r, 7, 1)
	outer := make([]float64, 49)
	for u := range a7 {
		for v := range b7 {
			outer[u*7+v] = a7[u] * b7[v]
		}
	}
	kernelsBy := []struct {
		name string
		k    []float64
		kk   int
	}{{"gauss5", GaussianKernel(5, 1.5), 5}, {"gauss3", GaussianKernel(3, 0.7), 3}, {"outer7", outer, 7}}
	for _, kc := range kernelsBy {
		for _, bd := range []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular} {
			for _, sz := range [][3]int{{2, 12, 10}, {3, 96, 96}} {
				blur, err := NewBlur("b", kc.k, kc.kk, bd)
				if err != nil {
					t.Fatal(err)
				}
				n := sz[0] * sz[1] * sz[2]
				x := randVec(r, n, 1)
				got := make([]float64, n)
				in := tensor.Shape{sz[0], sz[1], sz[2]}
				name := fmt.Sprintf("blur/%s/%v/%dx%dx%d/", kc.name, bd, sz[0], sz[1], sz[2])
				if err := blur.Apply(got, x, in); err != nil {
					t.Fatal(err)
				}
				out[name+"apply"] = floatBitsHash(got)
				if err := blur.Adjoint(got, x, in); err != nil {
					t.Fatal(err)
				}
				out[name+"adjoint"] = floatBitsHash(got)
			}
		}
	}
	for _, bd := range []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular} {
		o := p1Objective(t, 5, 96, 96, bd, 3)
		if _, _, _, ok := o.fusedBlur(); !ok {
			t.Fatal("Problem 1 objective does not take the fused path")
		}
		vals, grad := make([]float64, o.N), make([]float64, len(o.X0))
		if err := o.Eval(vals, grad, o.X0, nil); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("p1/%v/", bd)
		out[name+"vals"] = floatBitsHash(vals)
		out[name+"grad"] = floatBitsHash(grad)
		if err := o.Eval(vals, nil, o.X0, nil); err != nil {
			t.Fatal(err)
		}
		out[name+"valsonly"] = floatBitsHash(vals)
		ls := *o
		ls.Alpha = 0
		if err := ls.Eval(vals, grad, o.X0, nil); err != nil {
			t.Fatal(err)
		}
		out[name+"ls/vals"] = floatBitsHash(vals)
		out[name+"ls/grad"] = floatBitsHash(grad)
		// The unfused path: HuberTV.ValueGrad through kernels.
		rv, rg := make([]float64, o.N), make([]float64, len(o.X0))
		if err := (HuberTV{Eps: 0.005}).ValueGrad(rv, rg, o.X0, o.N, o.H, o.W); err != nil {
			t.Fatal(err)
		}
		out[name+"tv/vals"] = floatBitsHash(rv)
		out[name+"tv/grad"] = floatBitsHash(rg)
	}
	return out
}

// TestFloat64BitwiseGoldenProblem checks the float64 blur and fused ∇f
// against goldenProblem.
func TestFloat64BitwiseGoldenProblem(t *testing.T) {
	got := goldenProblemOutputs(t)
	testsupport.CheckGolden(t, got, goldenProblem)
}
