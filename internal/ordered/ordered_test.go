package ordered

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// TestForSumsInItemOrder adds values of very different magnitudes (a sum
// whose rounding depends on its order) on 1 to 7 workers, several runs on
// one Sum: the sums must be bitwise the loop's, and add must never run
// concurrently.
func TestForSumsInItemOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, 101)
	for i := range vals {
		vals[i] = math.Ldexp(r.NormFloat64(), r.IntN(80)-40)
	}
	var want float64
	for _, v := range vals {
		want += v
	}
	var rev float64
	for i := len(vals) - 1; i >= 0; i-- {
		rev += vals[i]
	}
	if rev == want {
		t.Fatal("the test values sum to the same in either order: pick others")
	}
	var sum float64
	var inAdd atomic.Int32
	s := NewSum(func() *float64 { return new(float64) }, func(c *float64) {
		if inAdd.Add(1) != 1 {
			t.Error("add ran concurrently")
		}
		sum += *c
		inAdd.Add(-1)
	})
	for workers := 1; workers <= 7; workers++ {
		for run := range 3 {
			sum = 0
			For(s, len(vals), workers, func(_ int, c *float64, k int) { *c = vals[k] })
			if math.Float64bits(sum) != math.Float64bits(want) {
				t.Errorf("%d workers, run %d: sum %v, want %v (in item order)", workers, run, sum, want)
			}
		}
	}
}

// TestClaimAddsInOrder mixes direct additions (Claim/Release) with
// published contributions on 1 to 7 workers: the sum must stay the loop's.
func TestClaimAddsInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := make([]float64, 97)
	for i := range vals {
		vals[i] = math.Ldexp(r.NormFloat64(), r.IntN(80)-40)
	}
	var want float64
	for _, v := range vals {
		want += v
	}
	var sum float64
	s := NewSum(func() *float64 { return new(float64) }, func(c *float64) { sum += *c })
	for workers := 1; workers <= 7; workers++ {
		sum = 0
		s.Start(len(vals))
		var direct atomic.Int32
		done := make(chan struct{})
		for w := range workers {
			go func() {
				for k := range Stride(w, workers, len(vals)) {
					if s.Claim(k) {
						sum += vals[k]
						direct.Add(1)
						s.Release(k)
						continue
					}
					c := s.Buffer()
					*c = vals[k]
					s.Put(k, c)
				}
				done <- struct{}{}
			}()
		}
		for range workers {
			<-done
		}
		if math.Float64bits(sum) != math.Float64bits(want) {
			t.Errorf("%d workers (%d direct): sum %v, want %v", workers, direct.Load(), sum, want)
		}
	}
}

// TestReservedBuffersBoundTheMemory runs items on 4 workers with 2
// reserved contributions: a worker with none free waits for its item's
// turn and adds it directly. The sum stays the loop's, and no more than the
// reserved contributions are ever made.
func TestReservedBuffersBoundTheMemory(t *testing.T) {
	vals := make([]float64, 200)
	var want float64
	for i := range vals {
		vals[i] = math.Ldexp(1+float64(i%7)/7, i%61-30)
		want += vals[i]
	}
	var sum float64
	s := NewSum(func() *float64 { return new(float64) }, func(c *float64) { sum += *c })
	const workers = 4
	s.Start(len(vals))
	s.Reserve(2)
	done := make(chan struct{})
	for w := range workers {
		go func() {
			for k := range Stride(w, workers, len(vals)) {
				var c *float64
				for !s.Claim(k) {
					if c = s.TryBuffer(); c != nil {
						break
					}
				}
				if c == nil {
					sum += vals[k]
					s.Release(k)
					continue
				}
				*c = vals[k]
				s.Put(k, c)
			}
			done <- struct{}{}
		}()
	}
	for range workers {
		<-done
	}
	if math.Float64bits(sum) != math.Float64bits(want) {
		t.Errorf("sum %v, want %v", sum, want)
	}
	if s.Made() != 2 {
		t.Errorf("%d contributions made, want the 2 reserved", s.Made())
	}
}
