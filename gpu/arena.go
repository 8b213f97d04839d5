package gpu

import (
	"fmt"
	"sync"
)

// Arena allocates the buffers of one run (a step loss, an unrolled loss, an
// optimizer's iterations) on a device, meters the bytes it has handed out,
// and frees all of them in one Close, with whatever else the run registered
// (OnClose: FFT plans, ray transforms, host graphs). The objects a run builds
// on the arena (package ondevice's objective and terms) own no memory of
// their own: the arena's Close is the run's one release and its Bytes the
// run's one tally, instead of a Bytes and a Close per object summed by hand.
//
// Its meter counts the arena's buffers only; the device's counters (Stats)
// still count every buffer of the process. An Arena is safe for concurrent
// use.
type Arena struct {
	ops Ops

	mu          sync.Mutex
	bufs        []Buffer
	release     []func()
	inUse, peak int64
	closed      bool
}

// NewArena returns an empty arena over the device ops.
func NewArena(ops Ops) *Arena { return &Arena{ops: ops} }

// Ops returns the device the arena allocates on.
func (a *Arena) Ops() Ops { return a.ops }

// Alloc returns a zeroed buffer of n values of the device, freed by Close.
// It fails if the device cannot allocate or the arena is closed.
func (a *Arena) Alloc(n int) (Buffer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, fmt.Errorf("gpu: allocate %d values on %s: the arena is closed", n, a.ops.Name())
	}
	b, err := a.ops.Alloc(n)
	if err != nil {
		return nil, fmt.Errorf("gpu: allocate %d values on %s: %w", n, a.ops.Name(), err)
	}
	a.bufs = append(a.bufs, b)
	a.inUse += int64(b.Len()) * int64(a.ops.ValueSize())
	a.peak = max(a.peak, a.inUse)
	return b, nil
}

// AllocReadout returns a zeroed readout of n values and k sums of the
// device (Ops.AllocReadout), freed by Close.
func (a *Arena) AllocReadout(n, k int) (Buffer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, fmt.Errorf("gpu: allocate a readout of %d values on %s: the arena is closed", n, a.ops.Name())
	}
	b, err := a.ops.AllocReadout(n, k)
	if err != nil {
		return nil, fmt.Errorf("gpu: allocate a readout of %d values on %s: %w", n, a.ops.Name(), err)
	}
	a.bufs = append(a.bufs, b)
	a.inUse += int64(b.Len())*int64(a.ops.ValueSize()) + int64(k)*BytesPerFloat64
	a.peak = max(a.peak, a.inUse)
	return b, nil
}

// OnClose registers f to be run by Close, after the functions registered
// later and before the buffers are freed: the release of a resource the run
// holds besides its buffers. On a closed arena it runs f now.
func (a *Arena) OnClose(f func()) {
	a.mu.Lock()
	if !a.closed {
		a.release = append(a.release, f)
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	f()
}

// Bytes is what the arena's buffers hold now: 0 after Close.
func (a *Arena) Bytes() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inUse
}

// Peak is the largest Bytes since NewArena; Close leaves it.
func (a *Arena) Peak() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.peak
}

// Close runs the functions registered by OnClose, last first, and frees
// every buffer the arena allocated. Later calls do nothing; Alloc fails
// after it.
func (a *Arena) Close() {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return
	}
	a.closed = true
	release, bufs := a.release, a.bufs
	a.release, a.bufs, a.inUse = nil, nil, 0
	a.mu.Unlock()
	for i := len(release) - 1; i >= 0; i-- {
		release[i]()
	}
	for _, b := range bufs {
		a.ops.Free(b)
	}
}
