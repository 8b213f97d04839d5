package ordered

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// TestForSumsInItemOrder adds values of very different magnitudes (a sum
// whose rounding depends on its order) on 1 to 7 workers: the sums must be
// bitwise the loop's, and add must never run concurrently.
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
	for workers := 1; workers <= 7; workers++ {
		var sum float64
		var inAdd atomic.Int32
		contrib := make([]float64, workers)
		For(len(vals), workers, func(w, k int) {
			contrib[w] = vals[k]
		}, func(w, k int) {
			if inAdd.Add(1) != 1 {
				t.Error("add ran concurrently")
			}
			sum += contrib[w]
			inAdd.Add(-1)
		})
		if math.Float64bits(sum) != math.Float64bits(want) {
			t.Errorf("%d workers: sum %v, want %v (in item order)", workers, sum, want)
		}
	}
	// The order matters for these values: a reversed sum differs.
	var rev float64
	for i := len(vals) - 1; i >= 0; i-- {
		rev += vals[i]
	}
	if rev == want {
		t.Fatal("the test values sum to the same in either order: pick others")
	}
}
