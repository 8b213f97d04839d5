package kernels

import (
	"runtime"
	"sync"
)

// ParallelFor calls body(lo, hi) on disjoint ranges covering [0, n), using at
// most runtime.GOMAXPROCS(0) goroutines. It returns when all calls have returned.
func ParallelFor(n int, body func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		if n > 0 {
			body(0, n)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			body(lo, hi)
		}(lo, hi)
	}
	wg.Wait()
}

// Dot returns Σ a[i]·b[i].
func Dot(a, b []float64) float64 {
	var s0, s1, s2, s3 float64
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// ParallelChunks splits [0, n) into at most GOMAXPROCS chunks of equal size
// (the last one shorter), runs body(chunk, lo, hi) on each concurrently (body
// nil: none) and returns the number of chunks.
func ParallelChunks(n int, body func(chunk, lo, hi int)) int {
	if n <= 0 {
		return 0
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), n))
	size := (n + workers - 1) / workers
	chunks := (n + size - 1) / size
	if body == nil {
		return chunks
	}
	if chunks == 1 {
		body(0, 0, n)
		return 1
	}
	var wg sync.WaitGroup
	for c := 1; c < chunks; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			body(c, c*size, min((c+1)*size, n))
		}(c)
	}
	body(0, 0, min(size, n))
	wg.Wait()
	return chunks
}
