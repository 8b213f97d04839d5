package mconv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"
)

// planShapes exercise the FFT path: odd and even sizes, non-square images,
// images smaller than the kernel, K = 1, 3, 5, 7 and batches that split
// into several groups.
var planShapes = []Shape{
	{N: 1, Cin: 1, Cout: 1, H: 7, W: 9, K: 3},
	{N: 3, Cin: 2, Cout: 4, H: 8, W: 7, K: 5},
	{N: 2, Cin: 3, Cout: 5, H: 13, W: 10, K: 5},
	{N: 1, Cin: 2, Cout: 3, H: 3, W: 4, K: 5}, // image smaller than the kernel
	{N: 2, Cin: 1, Cout: 2, H: 1, W: 1, K: 7},
	{N: 2, Cin: 2, Cout: 3, H: 9, W: 12, K: 7},
	{N: 2, Cin: 3, Cout: 2, H: 4, W: 5, K: 1},
	{N: 4, Cin: 8, Cout: 6, H: 21, W: 17, K: 5},
	{N: 3, Cin: 5, Cout: 4, H: 31, W: 29, K: 3},
}

func maxAbsDiff(a, b []float64) float64 {
	var m float64
	for i := range a {
		m = max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

func TestPlanFFTMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, s := range planShapes {
		w := randSlice(rng, s.WeightLen())
		x := randSlice(rng, s.InputLen())
		y := randSlice(rng, s.OutputLen())
		for _, method := range []Method{FFT, Direct} {
			p, err := NewPlan(w, s, method)
			if err != nil {
				t.Fatal(err)
			}
			if p.Method() != method {
				t.Fatalf("shape %+v: Method() = %v, want %v", s, p.Method(), method)
			}
			got := randSlice(rng, s.OutputLen()) // garbage: must be overwritten
			if err := p.Forward(got, x, s.N); err != nil {
				t.Fatal(err)
			}
			want := naiveForward(x, w, nil, s)
			if e, tol := maxAbsDiff(got, want), 1e-13*(1+norm(want)); e > tol {
				t.Errorf("shape %+v %v: max |Plan.Forward − naive| = %g > %g", s, method, e, tol)
			}
			// The adjoint against the direct adjoint, which is tested against
			// the adjoint identity in TestAdjointIdentities.
			gotAdj := randSlice(rng, s.InputLen())
			if err := p.AdjointInput(gotAdj, y, s.N); err != nil {
				t.Fatal(err)
			}
			wantAdj := make([]float64, s.InputLen())
			if err := AdjointInput(wantAdj, y, w, s); err != nil {
				t.Fatal(err)
			}
			if e, tol := maxAbsDiff(gotAdj, wantAdj), 1e-13*(1+norm(wantAdj)); e > tol {
				t.Errorf("shape %+v %v: max |Plan.AdjointInput − AdjointInput| = %g > %g", s, method, e, tol)
			}
		}
	}
}

func TestPlanFFTAdjointIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, s := range append(planShapes, Shape{N: 2, Cin: 4, Cout: 7, H: 40, W: 33, K: 5}) {
		p, err := NewPlan(randSlice(rng, s.WeightLen()), s, FFT)
		if err != nil {
			t.Fatal(err)
		}
		x := randSlice(rng, s.InputLen())
		y := randSlice(rng, s.OutputLen())
		fx := make([]float64, s.OutputLen())
		aty := make([]float64, s.InputLen())
		if err := p.Forward(fx, x, s.N); err != nil {
			t.Fatal(err)
		}
		if err := p.AdjointInput(aty, y, s.N); err != nil {
			t.Fatal(err)
		}
		lhs, rhs := dot(fx, y), dot(x, aty)
		if rel := math.Abs(lhs-rhs) / (norm(fx) * norm(y)); rel > 1e-12 {
			t.Errorf("shape %+v: ⟨Fx, y⟩ = %v, ⟨x, Fᵀy⟩ = %v, rel %g", s, lhs, rhs, rel)
		}
	}
}

// TestPlanGroups checks a batch large enough to be split into several
// groups of images against per-image calls.
func TestPlanGroups(t *testing.T) {
	defer func(old int) { chunkBytes = old }(chunkBytes)
	rng := rand.New(rand.NewPCG(11, 12))
	s := Shape{N: 7, Cin: 3, Cout: 5, H: 30, W: 26, K: 5}
	p0, err := NewPlan(make([]float64, s.WeightLen()), s, FFT)
	if err != nil {
		t.Fatal(err)
	}
	chunkBytes = 3 * 16 * (s.Cin + s.Cout) * p0.specLen // groups of 3, 2 and 2 images
	p, err := NewPlan(randSlice(rng, s.WeightLen()), s, FFT)
	if err != nil {
		t.Fatal(err)
	}
	x := randSlice(rng, s.InputLen())
	y := make([]float64, s.OutputLen())
	if err := p.Forward(y, x, s.N); err != nil {
		t.Fatal(err)
	}
	in, out := s.Cin*s.H*s.W, s.Cout*s.H*s.W
	for _, n := range []int{0, 3, 6} {
		one := make([]float64, out)
		if err := p.Forward(one, x[n*in:(n+1)*in], 1); err != nil {
			t.Fatal(err)
		}
		if e := maxAbsDiff(one, y[n*out:(n+1)*out]); e > 1e-12*norm(one) {
			t.Errorf("image %d: batched and single forward differ by %g", n, e)
		}
	}
}

func TestPlanAutoChoosesByCost(t *testing.T) {
	cases := []struct {
		s    Shape
		want Method
	}{
		{Shape{N: 1, Cin: 8, Cout: 60, H: 96, W: 96, K: 5}, FFT},
		{Shape{N: 1, Cin: 1, Cout: 1, H: 16, W: 16, K: 3}, Direct},
		{Shape{N: 1, Cin: 1, Cout: 4, H: 96, W: 96, K: 1}, Direct},
	}
	for _, c := range cases {
		p, err := NewPlan(make([]float64, c.s.WeightLen()), c.s, Auto)
		if err != nil {
			t.Fatal(err)
		}
		if p.Method() != c.want {
			t.Errorf("shape %+v: Auto chose %v, want %v", c.s, p.Method(), c.want)
		}
	}
}

func TestPlanErrors(t *testing.T) {
	s := Shape{N: 1, Cin: 2, Cout: 3, H: 4, W: 5, K: 3}
	if _, err := NewPlan(make([]float64, 5), s, Auto); err == nil || !strings.Contains(err.Error(), "len(w)") {
		t.Errorf("short w: error %v", err)
	}
	if _, err := NewPlan(make([]float64, s.WeightLen()), s, Method(7)); err == nil || !strings.Contains(err.Error(), "method") {
		t.Errorf("bad method: error %v", err)
	}
	p, err := NewPlan(make([]float64, s.WeightLen()), s, FFT)
	if err != nil {
		t.Fatal(err)
	}
	x, y := make([]float64, 2*40), make([]float64, 2*60)
	if err := p.Forward(y, x[1:], 2); err == nil || !strings.Contains(err.Error(), "len(x)") {
		t.Errorf("short x: error %v", err)
	}
	if err := p.AdjointInput(x, y, 0); err == nil || !strings.Contains(err.Error(), "n = 0") {
		t.Errorf("n = 0: error %v", err)
	}
}

func TestSmoothSize(t *testing.T) {
	for _, c := range []struct {
		n    int
		even bool
		want int
	}{{98, false, 100}, {98, true, 100}, {7, false, 8}, {7, true, 8}, {1, true, 2}, {11, false, 12}, {26, false, 27}, {26, true, 30}} {
		if got := smoothSize(c.n, c.even); got != c.want {
			t.Errorf("smoothSize(%d, %v) = %d, want %d", c.n, c.even, got, c.want)
		}
	}
}

func ExamplePlan() {
	// A 2→3 channel 5×5 layer on 64×64 images, computed by FFT; the result
	// agrees with the direct Forward to rounding.
	s := Shape{N: 2, Cin: 2, Cout: 3, H: 64, W: 64, K: 5}
	rng := rand.New(rand.NewPCG(1, 1))
	w := randSlice(rng, s.WeightLen())
	x := randSlice(rng, s.InputLen())
	p, err := NewPlan(w, s, FFT)
	if err != nil {
		fmt.Println(err)
		return
	}
	y := make([]float64, s.OutputLen())
	if err := p.Forward(y, x, s.N); err != nil {
		fmt.Println(err)
		return
	}
	want := make([]float64, s.OutputLen())
	if err := Forward(want, x, w, nil, s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Method(), maxAbsDiff(y, want) < 1e-12)
	// Output: fft true
}

func benchmarkPlan(b *testing.B, s Shape, method Method, adjoint bool) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := randSlice(rng, s.InputLen())
	y := randSlice(rng, s.OutputLen())
	p, err := NewPlan(randSlice(rng, s.WeightLen()), s, method)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for b.Loop() {
		if adjoint {
			err = p.AdjointInput(x, y, s.N)
		} else {
			err = p.Forward(y, x, s.N)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/op")
	b.ReportMetric((cpuSeconds()-cpu0)*1e3/float64(b.N), "cpu-ms/op")
}

// cpuSeconds returns the user+system CPU time of the process, a steadier
// figure than wall time on a shared machine.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func BenchmarkPlan(b *testing.B) {
	for _, c := range benchShapes() {
		for _, method := range []Method{Direct, FFT} {
			for _, adjoint := range []bool{false, true} {
				dir := "forward"
				if adjoint {
					dir = "adjoint"
				}
				b.Run(fmt.Sprintf("%s/%v/%s", c.name, method, dir), func(b *testing.B) {
					benchmarkPlan(b, c.s, method, adjoint)
				})
			}
		}
	}
}
