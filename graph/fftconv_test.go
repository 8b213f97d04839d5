package graph

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
	"gorgonia.org/tensor"
)

// fftResults applies the three maps of c to (k, x, y).
func fftResults(t *testing.T, c *FFTConv, k, x, y []float64, sa, sb tensor.Shape) (apply, adjA, adjB []float64) {
	t.Helper()
	apply, adjA, adjB = make([]float64, len(x)), make([]float64, len(k)), make([]float64, len(x))
	if err := c.Apply(apply, k, x, sa, sb); err != nil {
		t.Fatal(err)
	}
	if err := c.AdjointA(adjA, y, x, sa, sb); err != nil {
		t.Fatal(err)
	}
	if err := c.AdjointB(adjB, k, y, sa, sb); err != nil {
		t.Fatal(err)
	}
	return apply, adjA, adjB
}

func sameFloats(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

// TestFFTConvMatchesKernels checks FFTConv bit for bit against
// kernels.FFTConv, through its shared spectrum cache: on repeated operands,
// after an operand changes in place (one value), and from a second map that
// shares the cache.
func TestFFTConvMatchesKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	n, h, w := 3, 10, 7
	sa, sb := tensor.Shape{h, w}, tensor.Shape{n, h, w}
	ref, err := kernels.NewFFTConv(n, h, w)
	if err != nil {
		t.Fatal(err)
	}
	k, x, y := randVec(r, h*w), randVec(r, n*h*w), randVec(r, n*h*w)
	c1, c2 := NewFFTConv(), NewFFTConv()
	for round := 0; round < 4; round++ {
		want := [3][]float64{make([]float64, len(x)), make([]float64, len(k)), make([]float64, len(x))}
		if err := ref.Apply(want[0], k, x); err != nil {
			t.Fatal(err)
		}
		if err := ref.AdjointKernel(want[1], x, y); err != nil {
			t.Fatal(err)
		}
		if err := ref.AdjointImage(want[2], k, y); err != nil {
			t.Fatal(err)
		}
		for ci, c := range []*FFTConv{c1, c2, c1} {
			a, da, db := fftResults(t, c, k, x, y, sa, sb)
			for j, got := range [][]float64{a, da, db} {
				if !sameFloats(got, want[j]) {
					t.Fatalf("round %d, map %d: result %d differs from kernels.FFTConv", round, ci, j)
				}
			}
		}
		// Change one value of each operand in place, as a graph input changes.
		x[r.IntN(len(x))] += 0.5
		y[(round*37)%len(y)] -= 0.25
		k[round%len(k)] *= 1.5
	}
	if c1.caches[[3]int{n, h, w}] != c2.caches[[3]int{n, h, w}] {
		t.Error("two maps of the same batch size do not share their spectra")
	}
}

// TestFFTConvConcurrent runs maps of one shared cache from several
// goroutines (with -race, a check of the locking) and checks the results.
func TestFFTConvConcurrent(t *testing.T) {
	n, h, w := 2, 8, 8
	sa, sb := tensor.Shape{h, w}, tensor.Shape{n, h, w}
	var wg sync.WaitGroup
	for gi := 0; gi < 4; gi++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(gi), 9))
			ref, _ := kernels.NewFFTConv(n, h, w)
			c := NewFFTConv()
			for it := 0; it < 20; it++ {
				k, x := randVec(r, h*w), randVec(r, n*h*w)
				want, got := make([]float64, len(x)), make([]float64, len(x))
				_ = ref.Apply(want, k, x)
				if err := c.Apply(got, k, x, sa, sb); err != nil {
					t.Error(err)
					return
				}
				if !sameFloats(got, want) {
					t.Errorf("goroutine %d, iteration %d: wrong convolution", gi, it)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestOuter checks the outer product's adjoints and its gradients through a
// graph against finite differences (gorgonia's own OuterProd fails this).
func TestOuter(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	sa, sb := tensor.Shape{4}, tensor.Shape{6}
	a, b, c := randVec(r, 4), randVec(r, 6), randVec(r, 24)
	out, da, db := make([]float64, 24), make([]float64, 4), make([]float64, 6)
	m := Outer{}
	if err := m.Apply(out, a, b, sa, sb); err != nil {
		t.Fatal(err)
	}
	if err := m.AdjointA(da, c, b, sa, sb); err != nil {
		t.Fatal(err)
	}
	if err := m.AdjointB(db, a, c, sa, sb); err != nil {
		t.Fatal(err)
	}
	lhs := kernels.Dot(out, c)
	if d := relDiff(lhs, kernels.Dot(a, da)); d > 1e-12 {
		t.Errorf("adjoint in a off by %g", d)
	}
	if d := relDiff(lhs, kernels.Dot(b, db)); d > 1e-12 {
		t.Errorf("adjoint in b off by %g", d)
	}
	if _, err := m.OutShape(tensor.Shape{2, 2}, sb); err == nil {
		t.Error("a matrix operand was accepted")
	}
}
