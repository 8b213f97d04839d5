package ordered

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Turn hands out, in the order k = 0, 1, 2, …, the right to add item k's
// contribution. The zero value waits for item 0. A Turn is shared by the
// goroutines of one run; Reset it between runs.
type Turn struct{ next atomic.Int64 }

// Reset makes item 0 the next to add.
func (t *Turn) Reset() { t.next.Store(0) }

// Wait blocks until every item before k has called Done.
func (t *Turn) Wait(k int) {
	for i := 0; t.next.Load() != int64(k); i++ {
		if i >= 32 {
			runtime.Gosched()
		}
	}
}

// Done passes the turn from item k to item k+1. Only item k's goroutine,
// after its Wait(k), may call it.
func (t *Turn) Done(k int) { t.next.Store(int64(k + 1)) }

// Stride returns the items worker w of workers takes in an interleaved
// split of [0, n): w, w+workers, w+2·workers, … Interleaving keeps the
// workers near the same item, so that a Turn rarely makes one wait long.
func Stride(w, workers, n int) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		for k := w; k < n; k += workers {
			if !yield(k) {
				return
			}
		}
	}
}

// For runs work(w, k) for every item k of [0, n) on up to workers
// goroutines (worker w taking the items of Stride(w, workers, n)) and,
// after each work(w, k), add(w, k) in item order: add(·, k) starts after
// add(·, k−1) has returned. work of different items runs concurrently; add
// never does. workers < 1 is 1.
func For(n, workers int, work, add func(worker, item int)) {
	workers = max(1, min(workers, n))
	var turn Turn
	body := func(w int) {
		for k := range Stride(w, workers, n) {
			work(w, k)
			turn.Wait(k)
			add(w, k)
			turn.Done(k)
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(w)
		}()
	}
	if n > 0 {
		body(0)
	}
	wg.Wait()
}
