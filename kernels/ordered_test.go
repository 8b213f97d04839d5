package kernels

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// orderedCase is a reduction whose float64 sum changes in the last bits when
// its terms are reordered: n items of l values spread over 2^±30.
type orderedCase struct {
	items [][]float64
}

func newOrderedCase(n, l int) orderedCase {
	r := rand.New(rand.NewPCG(21, 22))
	c := orderedCase{items: make([][]float64, n)}
	for k := range c.items {
		c.items[k] = spread(r, l)
	}
	return c
}

// plain is the one goroutine's loop: the items added in order.
func (c orderedCase) plain() []float64 {
	t := make([]float64, len(c.items[0]))
	for _, it := range c.items {
		for j, v := range it {
			t[j] += 1.5 * v
		}
	}
	return t
}

// chunked is the reduction by chunks: a partial sum per chunk of
// ParallelChunks, the partials added in chunk order.
func (c orderedCase) chunked() []float64 {
	l := len(c.items[0])
	parts := make([][]float64, ParallelChunks(len(c.items), nil))
	ParallelChunks(len(c.items), func(chunk, lo, hi int) {
		p := make([]float64, l)
		for _, it := range c.items[lo:hi] {
			for j, v := range it {
				p[j] += 1.5 * v
			}
		}
		parts[chunk] = p
	})
	t := parts[0]
	for _, p := range parts[1:] {
		for j, v := range p {
			t[j] += v
		}
	}
	return t
}

// ordered is the reduction by OrderedFor on the given number of goroutines
// (0: GOMAXPROCS's): compute scales item k into the worker's scratch, commit
// adds it to the total.
func (c orderedCase) ordered(workers int) []float64 {
	n, l := len(c.items), len(c.items[0])
	t := make([]float64, l)
	scratch := make([][]float64, max(workers, runtime.GOMAXPROCS(0)))
	for w := range scratch {
		scratch[w] = make([]float64, l)
	}
	compute := func(w, k int) {
		for j, v := range c.items[k] {
			scratch[w][j] = 1.5 * v
		}
	}
	commit := func(w, k int) {
		for j, v := range scratch[w] {
			t[j] += v
		}
	}
	if workers == 0 {
		OrderedFor(n, compute, commit)
	} else {
		orderedFor(workers, n, compute, commit)
	}
	return t
}

func sameFloat64s(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestOrderedForIsThePlainLoop checks that an OrderedFor reduction on 1, 2,
// 3 and 5 goroutines (and at GOMAXPROCS 1, 2, 3 and 5) is bitwise the plain
// loop, on data where the chunked reduction at GOMAXPROCS 2 is not.
func TestOrderedForIsThePlainLoop(t *testing.T) {
	c := newOrderedCase(25, 300)
	want := c.plain()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(2)
	if sameFloat64s(c.chunked(), want) {
		t.Fatal("the chunked sum at GOMAXPROCS 2 equals the plain loop: the data do not tell orders apart")
	}
	for _, w := range []int{1, 2, 3, 5} {
		if !sameFloat64s(c.ordered(w), want) {
			t.Errorf("OrderedFor on %d goroutines differs from the plain loop", w)
		}
		runtime.GOMAXPROCS(w)
		if !sameFloat64s(c.ordered(0), want) {
			t.Errorf("OrderedFor at GOMAXPROCS %d differs from the plain loop", w)
		}
	}
}

// TestOrderedTeamIsThePlainLoop checks an ordered Team, run twice at each of
// GOMAXPROCS 1, 2, 3 and 5, bitwise against the plain loop.
func TestOrderedTeamIsThePlainLoop(t *testing.T) {
	c := newOrderedCase(25, 300)
	want := c.plain()
	l := len(want)
	var total []float64
	scratch := make([][]float64, 5)
	for w := range scratch {
		scratch[w] = make([]float64, l)
	}
	team := NewOrderedTeam(func(w, k int) {
		for j, v := range c.items[k] {
			scratch[w][j] = 1.5 * v
		}
	}, func(w, k int) {
		for j, v := range scratch[w] {
			total[j] += v
		}
	})
	defer team.Close()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, w := range []int{1, 2, 3, 5, 2} {
		runtime.GOMAXPROCS(w)
		for range 2 {
			total = make([]float64, l)
			if got := team.Run(len(c.items)); got != w {
				t.Errorf("GOMAXPROCS %d: Run used %d goroutines", w, got)
			}
			if !sameFloat64s(total, want) {
				t.Errorf("ordered Team at GOMAXPROCS %d differs from the plain loop", w)
			}
		}
	}
}

// TestFFTPoolOrderedIsThePlainLoop checks an adjoint-like reduction over
// images (Σ_k conj(F x_k)·F v_k, the spectra summed in image order) by
// FFTPool.Ordered on 1, 2, 3 and 5 workers, bitwise against the loop over
// the images on one worker.
func TestFFTPoolOrderedIsThePlainLoop(t *testing.T) {
	const n, h, w = 11, 12, 10
	r := rand.New(rand.NewPCG(23, 24))
	x := spread(r, n*h*w)
	p := NewFFTPool(h, w)
	sl := p.SpectrumLen()
	ref := make([]complex128, sl)
	for k := range ref {
		ref[k] = complex(r.NormFloat64(), r.NormFloat64())
	}
	want := make([]complex128, sl)
	f := NewFFT2(h, w)
	s := make([]complex128, sl)
	for k := 0; k < n; k++ {
		f.Forward(s, x[k*h*w:(k+1)*h*w])
		for j, v := range s {
			want[j] += v * ref[j]
		}
	}
	for _, workers := range []int{1, 2, 3, 5} {
		got := make([]complex128, sl)
		p.ordered(workers, n, func(wk *FFTWorker, k int) {
			wk.Forward(wk.Spectrum, x[k*h*w:(k+1)*h*w])
		}, func(wk *FFTWorker, k int) {
			for j, v := range wk.Spectrum {
				got[j] += v * ref[j]
			}
		})
		for j := range want {
			if math.Float64bits(real(got[j])) != math.Float64bits(real(want[j])) ||
				math.Float64bits(imag(got[j])) != math.Float64bits(imag(want[j])) {
				t.Fatalf("%d workers: element %d is %v, the plain loop gives %v", workers, j, got[j], want[j])
			}
		}
	}
}
