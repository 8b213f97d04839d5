package problem

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// withoutVectorKernels runs f with the float32 vector kernels turned off.
func withoutVectorKernels(f func()) {
	c, r, s, h := combineRows32, correlateRow32, residual32, huberTVRow32
	c64, r64, h64 := combineRows64, correlateRow64, huberTVRow64
	combineRows32, correlateRow32, residual32, huberTVRow32 = nil, nil, nil, nil
	combineRows64, correlateRow64, huberTVRow64 = nil, nil, nil
	defer func() {
		combineRows32, correlateRow32, residual32, huberTVRow32 = c, r, s, h
		combineRows64, correlateRow64, huberTVRow64 = c64, r64, h64
	}()
	f()
}

// TestVectorKernelsMatchScalar compares the float32 evaluation with and
// without the vector kernels (package kernels/vec, on an AVX2 CPU):
// gradients bitwise equal, values to 1e-12 relative (their float64 sums run in
// another order), for Problem 1's 5×5 blur with every boundary, widths that
// are and are not multiples of 8, and iterates inside and beyond ε.
func TestVectorKernelsMatchScalar(t *testing.T) {
	if !VectorKernels() {
		t.Skip("no vector kernels: this is a purego build, not amd64, or the CPU lacks AVX2")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, bd := range []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular} {
		for _, size := range [][2]int{{24, 32}, {19, 21}, {96, 96}, {9, 7}} {
			o := p1Objective(t, 3, size[0], size[1], bd, 4)
			e, err := NewFusedObjective[float32](o)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range [][]float64{o.X0, randVec(r, len(o.X0), 0.3), randVec(r, len(o.X0), 0.001)} {
				x32 := to32(x)
				vv, gv := make([]float64, o.N), make([]float32, len(x))
				vs, gs := make([]float64, o.N), make([]float32, len(x))
				if err := e.Eval(vv, gv, x32); err != nil {
					t.Fatal(err)
				}
				withoutVectorKernels(func() {
					if err := e.Eval(vs, gs, x32); err != nil {
						t.Fatal(err)
					}
				})
				for i := range gv {
					if gv[i] != gs[i] {
						t.Fatalf("%v %v: ∇f[%d] = %v with vector kernels, %v without", bd, size, i, gv[i], gs[i])
					}
				}
				for k := range vv {
					if d := math.Abs(vv[k]-vs[k]) / math.Abs(vs[k]); d > 1e-12 {
						t.Errorf("%v %v: f_%d = %v with vector kernels, %v without (%.2g)", bd, size, k, vv[k], vs[k], d)
					}
				}
			}
			e.Close()
		}
	}
}

// TestVectorKernelsFloat64Bitwise compares the float64 evaluation with and
// without the vector kernels: values and gradients bitwise equal (the float64
// kernels change no order), for the sizes and boundaries above.
func TestVectorKernelsFloat64Bitwise(t *testing.T) {
	if !VectorKernels() {
		t.Skip("no vector kernels: this is a purego build, not amd64, or the CPU lacks AVX2")
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, bd := range []kernels.Boundary{kernels.Zero, kernels.Reflect, kernels.Circular} {
		for _, size := range [][2]int{{24, 32}, {19, 21}, {96, 96}, {9, 7}} {
			o := p1Objective(t, 3, size[0], size[1], bd, 4)
			e, err := NewFusedObjective[float64](o)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range [][]float64{o.X0, randVec(r, len(o.X0), 0.3), randVec(r, len(o.X0), 0.001)} {
				vv, gv := make([]float64, o.N), make([]float64, len(x))
				vs, gs := make([]float64, o.N), make([]float64, len(x))
				if err := e.Eval(vv, gv, x); err != nil {
					t.Fatal(err)
				}
				withoutVectorKernels(func() {
					if err := e.Eval(vs, gs, x); err != nil {
						t.Fatal(err)
					}
				})
				for i := range gv {
					if math.Float64bits(gv[i]) != math.Float64bits(gs[i]) {
						t.Fatalf("%v %v: ∇f[%d] = %v with vector kernels, %v without", bd, size, i, gv[i], gs[i])
					}
				}
				for k := range vv {
					if math.Float64bits(vv[k]) != math.Float64bits(vs[k]) {
						t.Fatalf("%v %v: f_%d = %v with vector kernels, %v without", bd, size, k, vv[k], vs[k])
					}
				}
			}
			e.Close()
		}
	}
}
