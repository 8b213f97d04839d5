package mconv

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// serialCutoff is the number of multiply-adds below which a call runs on the
// calling goroutine: starting goroutines costs a few microseconds.
const serialCutoff = 1 << 16

// parallelFor calls fn(t) for t = 0..tasks−1, spread over up to
// runtime.GOMAXPROCS(0) goroutines. cost is the approximate number of
// multiply-adds per task. Tasks must write disjoint memory.
func parallelFor(tasks, cost int, fn func(t int)) {
	workers := min(runtime.GOMAXPROCS(0), tasks)
	if workers <= 1 || tasks*cost < serialCutoff {
		for t := 0; t < tasks; t++ {
			fn(t)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				t := int(next.Add(1) - 1)
				if t >= tasks {
					return
				}
				fn(t)
			}
		})
	}
	wg.Wait()
}
