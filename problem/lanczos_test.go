package problem

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/kernels"
	"gonum.org/v1/gonum/floats"
)

// reorthogonaliseTwoPass is reorthogonalise as the plain loop, with a dot product and an
// update a step, two passes over z: z − c·b as z + (−c)·b, the same value
// bit for bit (negation is exact), in gonum's vector loop.
func reorthogonaliseTwoPass(z []float64, basis [][]float64) float64 {
	for pass := 0; pass < 2; pass++ {
		for _, b := range basis {
			floats.AddScaled(z, -kernels.Dot(b, z), b)
		}
	}
	return kernels.Dot(z, z)
}

// TestLanczosFusedMatchesTwoPass checks that the fused reorthogonalisation
// (one pass over z a basis vector, kernels.AxpyDot) returns ‖A‖ bit for bit
// as the two-pass loop (a dot product, then an update), on Problem 1's
// 96×96 Gaussian blur with each boundary and on an image size whose length
// leaves a tail after the vectors of four.
func TestLanczosFusedMatchesTwoPass(t *testing.T) {
	for _, c := range []struct {
		h, w int
		bnd  kernels.Boundary
	}{{96, 96, kernels.Zero}, {96, 96, kernels.Reflect}, {96, 96, kernels.Circular}, {13, 11, kernels.Zero}} {
		blur, err := NewBlur("g", GaussianKernel(5, 1.5), 5, c.bnd)
		if err != nil {
			t.Fatal(err)
		}
		fused, err := operatorNorm(blur, c.h, c.w, 500, 1e-15, 1, reorthogonalise)
		if err != nil {
			t.Fatal(err)
		}
		twoPass, err := operatorNorm(blur, c.h, c.w, 500, 1e-15, 1, reorthogonaliseTwoPass)
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(fused) != math.Float64bits(twoPass) {
			t.Errorf("%d×%d, %v: fused ‖A‖ = %.17g, two-pass %.17g", c.h, c.w, c.bnd, fused, twoPass)
		}
	}
}

// TestReorthogonaliseMatchesTwoPass compares the two reorthogonalisations
// step by step: z and the returned z·z bitwise equal for bases of 1 to 9
// orthonormal vectors, lengths with and without a tail.
func TestReorthogonaliseMatchesTwoPass(t *testing.T) {
	r := rand.New(rand.NewPCG(48, 51))
	for _, n := range []int{5, 64, 9216} {
		for m := 1; m <= 9; m++ {
			basis := make([][]float64, m)
			for j := range basis {
				b := randVec(r, n, 1)
				for _, p := range basis[:j] {
					c := kernels.Dot(p, b)
					for i := range b {
						b[i] -= c * p[i]
					}
				}
				s := 1 / math.Sqrt(kernels.Dot(b, b))
				for i := range b {
					b[i] *= s
				}
				basis[j] = b
			}
			z := randVec(r, n, 1)
			z2 := append([]float64(nil), z...)
			got, want := reorthogonalise(z, basis), reorthogonaliseTwoPass(z2, basis)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("n = %d, m = %d: z·z = %v, two-pass %v", n, m, got, want)
			}
			for i := range z {
				if math.Float64bits(z[i]) != math.Float64bits(z2[i]) {
					t.Fatalf("n = %d, m = %d: z[%d] = %v, two-pass %v", n, m, i, z[i], z2[i])
				}
			}
		}
	}
}

// BenchmarkOperatorNorm96 is the norm Problem 1 computes when it is built:
// the 5×5 Gaussian blur of σ = 1.5 with zero boundary on 96×96 images, by
// Normalize's Lanczos run (500 steps at most, tolerance 1e-15), with the
// fused reorthogonalisation (fused) and the two-pass loop (twopass).
// cpu-ms/op is the process's CPU time per norm, all threads.
func BenchmarkOperatorNorm96(b *testing.B) {
	blur, err := NewBlur("g", GaussianKernel(5, 1.5), 5, kernels.Zero)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		reorth func(z []float64, basis [][]float64) float64
	}{{"fused", reorthogonalise}, {"twopass", reorthogonaliseTwoPass}} {
		b.Run(c.name, func(b *testing.B) {
			cpu := testsupport.CPUSeconds()
			for b.Loop() {
				if _, err := operatorNorm(blur, 96, 96, 500, 1e-15, 1, c.reorth); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((testsupport.CPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}
