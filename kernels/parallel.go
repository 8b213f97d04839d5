package kernels

import (
	"runtime"
	"sync"
	"unsafe"
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

// Dot returns Σ a[i]·b[i]: DotT for float64.
func Dot(a, b []float64) float64 { return DotT(a, b) }

// ParallelChunks splits [0, n) into at most GOMAXPROCS chunks of equal size
// (the last one shorter), runs body(chunk, lo, hi) on each concurrently (body
// nil: none) and returns the number of chunks.
func ParallelChunks(n int, body func(chunk, lo, hi int)) int {
	size, chunks := chunking(n)
	if body == nil || chunks == 0 {
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

// chunking returns the chunk size and count of ParallelChunks(n, ·).
func chunking(n int) (size, chunks int) {
	if n <= 0 {
		return 0, 0
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), n))
	size = (n + workers - 1) / workers
	return size, (n + size - 1) / size
}

// Team runs body on the chunks of ParallelChunks with goroutines kept
// between runs, so that a run allocates nothing (ParallelChunks starts
// goroutines and allocates their closures on every call). body is fixed when
// the Team is made: pass per-run data through what it captures. A Team is
// not safe for concurrent use; Close stops its goroutines.
type Team struct {
	body  func(chunk, lo, hi int)
	start []chan [2]int // start[c−1] hands chunk c to its goroutine
	done  chan struct{}
	// exited counts the running goroutines, so that Close returns once they
	// are gone (and with them what body refers to); allocated apart from
	// the Team, which the goroutines must not keep alive.
	exited *sync.WaitGroup
}

// NewTeam returns a team running body. Goroutines start with the first run
// that needs them.
func NewTeam(body func(chunk, lo, hi int)) *Team {
	return &Team{body: body, done: make(chan struct{}), exited: new(sync.WaitGroup)}
}

// Run calls body(chunk, lo, hi) on the chunks of [0, n) that ParallelChunks
// would make (chunk 0 on the calling goroutine), waits for them and returns
// their number.
func (t *Team) Run(n int) int {
	size, chunks := chunking(n)
	if chunks == 0 {
		return 0
	}
	for len(t.start) < chunks-1 {
		ch := make(chan [2]int)
		t.start = append(t.start, ch)
		// The goroutine holds the channels, body and the wait group, not t.
		t.exited.Add(1)
		go teamWorker(len(t.start), ch, t.body, t.done, t.exited)
	}
	for c := 1; c < chunks; c++ {
		t.start[c-1] <- [2]int{c * size, min((c+1)*size, n)}
	}
	t.body(0, 0, min(size, n))
	for c := 1; c < chunks; c++ {
		<-t.done
	}
	return chunks
}

func teamWorker(chunk int, start <-chan [2]int, body func(chunk, lo, hi int), done chan<- struct{}, exited *sync.WaitGroup) {
	defer exited.Done()
	for r := range start {
		body(chunk, r[0], r[1])
		done <- struct{}{}
	}
}

// Close stops the team's goroutines and returns when they have exited, so
// that what body refers to is no longer reachable through them. A later
// Run starts new ones.
func (t *Team) Close() {
	for _, ch := range t.start {
		close(ch)
	}
	t.start = nil
	t.exited.Wait()
}

// LargeLen is the length from which CopyLarge, ClearLarge, ConvertLarge
// (VectorConvertLen with the vector kernels), AxpyLarge and ScaleLarge (and NAG's updates in package greedy) split their
// work across goroutines by ParallelFor; below it they run on the calling
// goroutine and make no closure, since they run at every evaluation of a
// step loss. The long vectors are PF's parameters (1,600² at 40×40). The
// work is elementwise (no sum across elements), so the result does not
// depend on the split: it is bitwise the same on any number of cores.
const LargeLen = 1 << 16

// CopyLarge copies src into dst (their lengths must agree), split at
// LargeLen.
func CopyLarge[T any](dst, src []T) {
	if len(dst) != len(src) {
		panic("kernels: CopyLarge of slices of different lengths")
	}
	if len(dst) < LargeLen {
		copy(dst, src)
		return
	}
	ParallelFor(len(dst), func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// ClearLarge sets every element of v to zero, split at LargeLen.
func ClearLarge[T Float](v []T) {
	if len(v) < LargeLen {
		clear(v)
		return
	}
	ParallelFor(len(v), func(lo, hi int) { clear(v[lo:hi]) })
}

// ConvertLarge is Convert split at convertSplitLen.
func ConvertLarge[D, S Float](dst []D, src []S) {
	src = src[:len(dst)]
	if len(dst) < convertSplitLen[D, S]() {
		Convert(dst, src)
		return
	}
	ParallelFor(len(dst), func(lo, hi int) { Convert(dst[lo:hi], src[lo:hi]) })
}

// VectorConvertLen is the length from which ConvertLarge splits a
// conversion between float64 and float32 that the AVX2 kernels do: they
// convert a stack of 25 images of 96² (230,400 values) in about 70 µs, less
// than the split's goroutines cost in CPU time, and at 2²⁰ values the split
// measured slower in wall time too (docs/measurements/kernels).
const VectorConvertLen = 1 << 21

// convertSplitLen is the length from which ConvertLarge splits: LargeLen,
// or VectorConvertLen where Convert runs the vector kernels.
func convertSplitLen[D, S Float]() int {
	var d D
	var s S
	if unsafe.Sizeof(d) != unsafe.Sizeof(s) && narrow != nil && widen != nil {
		return VectorConvertLen
	}
	return LargeLen
}

// AxpyLarge is Axpy (dst += alpha·x) split at LargeLen.
func AxpyLarge(dst []float64, alpha float64, x []float64) {
	if len(dst) < LargeLen {
		Axpy(dst, alpha, x)
		return
	}
	ParallelFor(len(dst), func(lo, hi int) { Axpy(dst[lo:hi], alpha, x[lo:hi]) })
}

// ScaleLarge writes dst = alpha·x (the lengths must agree), split at
// LargeLen.
func ScaleLarge(dst []float64, alpha float64, x []float64) {
	if len(dst) < LargeLen {
		scale(dst, alpha, x)
		return
	}
	ParallelFor(len(dst), func(lo, hi int) { scale(dst[lo:hi], alpha, x[lo:hi]) })
}

func scale(dst []float64, alpha float64, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = alpha * v
	}
}
