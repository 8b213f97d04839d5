package ordered

import (
	"sync"
	"sync/atomic"
)

// Sum adds per-item contributions to a sum in item order k = 0, 1, 2, …
// while the items are computed on several goroutines, and no goroutine
// waits for another: Put publishes item k's contribution and returns; the
// contributions are added, in order, by whichever goroutine finds the next
// one ready. A contribution is a *C taken from Buffer, given back to the
// free list once added. The sum is bitwise that of a loop over the items
// adding their contributions.
type Sum[C any] struct {
	alloc func() *C
	add   func(*C) // adds one contribution to the sum
	ready []atomic.Pointer[C]
	next  atomic.Int64
	mu    sync.Mutex // held while adding
	fmu   sync.Mutex // guards free, made and limit
	free  []*C
	made  int // contributions allocated
	limit int // TryBuffer allocates no more than this (Reserve)
}

// NewSum returns a Sum whose contributions are made by alloc and added by
// add (never concurrently, always in item order).
func NewSum[C any](alloc func() *C, add func(*C)) *Sum[C] {
	return &Sum[C]{alloc: alloc, add: add}
}

// Start prepares a run over n items, the next to add being item 0. The
// previous run must be complete (every item Put).
func (s *Sum[C]) Start(n int) {
	if cap(s.ready) < n {
		s.ready = make([]atomic.Pointer[C], n)
	}
	s.ready = s.ready[:n]
	s.next.Store(0)
}

// Buffer returns a contribution to fill: one given back by an earlier
// addition, or a new one.
func (s *Sum[C]) Buffer() *C {
	if c := s.take(); c != nil {
		return c
	}
	s.fmu.Lock()
	s.made++
	s.fmu.Unlock()
	return s.alloc()
}

// Reserve allocates contributions up to n in all and makes n the most
// TryBuffer hands out at once: the memory a run holds is then n
// contributions, whatever the scheduling.
func (s *Sum[C]) Reserve(n int) {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	for ; s.made < n; s.made++ {
		s.free = append(s.free, s.alloc())
	}
	s.limit = n
}

// TryBuffer returns a free contribution, or nil when every reserved one is
// in use (the caller then waits for its item's turn: Claim).
func (s *Sum[C]) TryBuffer() *C { return s.take() }

// Made is the number of contributions allocated.
func (s *Sum[C]) Made() int {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	return s.made
}

func (s *Sum[C]) take() *C {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	if n := len(s.free); n > 0 {
		c := s.free[n-1]
		s.free = s.free[:n-1]
		return c
	}
	return nil
}

// Put publishes item k's contribution c and adds every contribution that
// is ready in order, unless another goroutine is adding (it then adds c).
// When every item of the run has been Put and every Put has returned, all
// are added.
func (s *Sum[C]) Put(k int, c *C) {
	s.ready[k].Store(c)
	s.settle()
}

// settle adds the ready contributions unless another goroutine is adding.
func (s *Sum[C]) settle() {
	for s.mu.TryLock() {
		s.drain()
		s.mu.Unlock()
		// A contribution published while this goroutine held the lock was
		// left to it: look again after unlocking.
		if n := s.next.Load(); n >= int64(len(s.ready)) || s.ready[n].Load() == nil {
			return
		}
	}
}

// Claim reports whether item k is the next to add and no goroutine is
// adding; it then holds the sum for the caller, who adds k's contribution
// to the sum directly (no buffer) and calls Release(k). A contribution
// added so is bitwise one added through Put.
func (s *Sum[C]) Claim(k int) bool {
	if s.next.Load() != int64(k) || !s.mu.TryLock() {
		return false
	}
	if s.next.Load() != int64(k) {
		s.mu.Unlock()
		return false
	}
	return true
}

// Release ends a successful Claim(k): item k counts as added, and the
// contributions ready after it are added.
func (s *Sum[C]) Release(k int) {
	s.next.Store(int64(k + 1))
	s.drain()
	s.mu.Unlock()
	if n := s.next.Load(); n < int64(len(s.ready)) && s.ready[n].Load() != nil {
		s.settle()
	}
}

// drain adds the ready contributions from next on, in order.
func (s *Sum[C]) drain() {
	for n := s.next.Load(); n < int64(len(s.ready)); n++ {
		c := s.ready[n].Swap(nil)
		if c == nil {
			return
		}
		s.add(c)
		s.fmu.Lock()
		s.free = append(s.free, c)
		s.fmu.Unlock()
		s.next.Store(n + 1)
	}
}

// Stride returns the items worker w of workers takes in an interleaved
// split of [0, n): w, w+workers, w+2·workers, … Interleaving keeps the
// workers near the same item, so that few contributions wait to be added.
func Stride(w, workers, n int) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		for k := w; k < n; k += workers {
			if !yield(k) {
				return
			}
		}
	}
}

// For runs fill(w, c, k) for every item k of [0, n) on up to workers
// goroutines (worker w taking the items of Stride(w, workers, n)), each
// filling a contribution c of s, and adds the contributions with s in item
// order. workers < 1 is 1.
func For[C any](s *Sum[C], n, workers int, fill func(w int, c *C, k int)) {
	workers = max(1, min(workers, n))
	s.Start(n)
	body := func(w int) {
		for k := range Stride(w, workers, n) {
			c := s.Buffer()
			fill(w, c, k)
			s.Put(k, c)
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
