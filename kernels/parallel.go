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

// OrderedFor runs compute(worker, k) and then commit(worker, k) for every k
// in [0, n), on at most GOMAXPROCS goroutines (worker ∈ [0, workers), the
// number it returns; worker w takes k = w, w + workers, …), with the commits
// in the order of k: commit(·, k) starts after commit(·, k−1) has returned.
// A reduction whose commit adds item k's contribution to a running total
// therefore sums in the order of the items whatever the number of
// goroutines: bitwise the plain loop's (the one goroutine's) result, while
// the computes run in parallel. commit must use only what compute(worker, k)
// left in worker's scratch.
func OrderedFor(n int, compute, commit func(worker, k int)) int {
	return orderedFor(max(1, min(runtime.GOMAXPROCS(0), n)), n, compute, commit)
}

// orderedFor is OrderedFor on the given number of goroutines.
func orderedFor(workers, n int, compute, commit func(worker, k int)) int {
	if n <= 0 {
		return 0
	}
	if workers <= 1 {
		for k := 0; k < n; k++ {
			compute(0, k)
			commit(0, k)
		}
		return 1
	}
	tu := newTurns()
	tu.workers = workers
	run := func(w int) { tu.run(w, n, compute, commit) }
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			run(w)
		}(w)
	}
	run(0)
	wg.Wait()
	return workers
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
	// turns is an ordered team's (NewOrderedTeam; nil otherwise).
	turns *orderedTurns
}

// NewTeam returns a team running body. Goroutines start with the first run
// that needs them.
func NewTeam(body func(chunk, lo, hi int)) *Team {
	return &Team{body: body, done: make(chan struct{}), exited: new(sync.WaitGroup)}
}

// Run calls body(chunk, lo, hi) on the chunks of [0, n) that ParallelChunks
// would make (chunk 0 on the calling goroutine), waits for them and returns
// their number. For an ordered team (NewOrderedTeam) it runs compute and
// commit on the items of [0, n) as OrderedFor does and returns the number of
// goroutines.
func (t *Team) Run(n int) int {
	size, chunks := chunking(n)
	if chunks == 0 {
		return 0
	}
	span := func(c int) [2]int { return [2]int{c * size, min((c+1)*size, n)} }
	if t.turns != nil {
		// Every goroutine sees all n items and takes its own.
		chunks = max(1, min(runtime.GOMAXPROCS(0), n))
		t.turns.next, t.turns.workers = 0, chunks
		span = func(int) [2]int { return [2]int{0, n} }
	}
	for len(t.start) < chunks-1 {
		ch := make(chan [2]int)
		t.start = append(t.start, ch)
		// The goroutine holds the channels, body and the wait group, not t.
		t.exited.Add(1)
		go teamWorker(len(t.start), ch, t.body, t.done, t.exited)
	}
	for c := 1; c < chunks; c++ {
		t.start[c-1] <- span(c)
	}
	r := span(0)
	t.body(0, r[0], r[1])
	for c := 1; c < chunks; c++ {
		<-t.done
	}
	return chunks
}

// NewOrderedTeam returns a team whose Run(n) calls compute(worker, k) and
// then commit(worker, k) for every k in [0, n), the commits in the order of
// k, as OrderedFor: a total that commit adds to is summed in the order of
// the items at any GOMAXPROCS, bitwise the one goroutine's result.
func NewOrderedTeam(compute, commit func(worker, k int)) *Team {
	tu := newTurns()
	// Each goroutine is handed [0, n) and takes the items worker,
	// worker + workers, ….
	body := func(worker, _, n int) { tu.run(worker, n, compute, commit) }
	return &Team{body: body, done: make(chan struct{}), exited: new(sync.WaitGroup), turns: tu}
}

// orderedTurns is the turn-taking of OrderedFor's and an ordered team's
// commits: next is the item whose commit runs next.
type orderedTurns struct {
	mu            sync.Mutex
	turn          sync.Cond
	next, workers int
}

func newTurns() *orderedTurns {
	tu := &orderedTurns{}
	tu.turn.L = &tu.mu
	return tu
}

// run is goroutine w's part: the items w, w + workers, … below n.
func (tu *orderedTurns) run(w, n int, compute, commit func(worker, k int)) {
	for k := w; k < n; k += tu.workers {
		compute(w, k)
		tu.mu.Lock()
		for tu.next != k {
			tu.turn.Wait()
		}
		tu.mu.Unlock()
		commit(w, k)
		tu.mu.Lock()
		tu.next++
		tu.mu.Unlock()
		tu.turn.Broadcast()
	}
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

// LargeLen is the length from which CopyLarge, ClearLarge, ConvertLarge,
// AxpyLarge and ScaleLarge (and NAG's updates in package greedy) split their
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

// ConvertLarge is Convert split at LargeLen.
func ConvertLarge[D, S Float](dst []D, src []S) {
	src = src[:len(dst)]
	if len(dst) < LargeLen {
		Convert(dst, src)
		return
	}
	ParallelFor(len(dst), func(lo, hi int) { Convert(dst[lo:hi], src[lo:hi]) })
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
