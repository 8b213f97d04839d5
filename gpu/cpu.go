package gpu

import (
	"fmt"
	"sync"
)

// BytesPerFloat64 is the size of one value of a CPU buffer.
const BytesPerFloat64 = 8

// HostDevice is the CPU device: buffers are float64 slices in host memory.
// The only value is the one CPU returns, so its counters are process-wide.
type HostDevice struct {
	Counter
	hostOps[float64]
}

var cpu = &HostDevice{hostOps: hostOps[float64]{name: "cpu", get: func(b Buffer) ([]float64, bool) {
	hb, ok := b.(*HostBuffer)
	if !ok || hb == nil {
		return nil, false
	}
	return hb.Float64s(), true
}}}

// CPU returns the CPU device, shared by the whole process.
func CPU() *HostDevice { return cpu }

// HostBuffer is a buffer of the CPU device.
type HostBuffer struct {
	mu   sync.Mutex
	data []float64
	live bool
}

// Len implements Buffer. A freed buffer has length 0.
func (b *HostBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.data)
}

// Float64s returns the buffer's values, to be used in place by CPU kernels.
// It returns nil after Free.
func (b *HostBuffer) Float64s() []float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.data
}

// Name implements Device.
func (*HostDevice) Name() string { return "cpu" }

// Alloc implements Device: n float64 values, 8·n bytes.
func (d *HostDevice) Alloc(n int) (Buffer, error) {
	if n < 0 {
		return nil, fmt.Errorf("gpu: cpu alloc: size %d is negative", n)
	}
	b := &HostBuffer{data: make([]float64, n), live: true}
	d.Add(int64(n) * BytesPerFloat64)
	return b, nil
}

// Free implements Device.
func (d *HostDevice) Free(b Buffer) {
	hb, ok := b.(*HostBuffer)
	if !ok || hb == nil {
		return
	}
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if !hb.live {
		return
	}
	d.Sub(int64(len(hb.data)) * BytesPerFloat64)
	hb.data, hb.live = nil, false
}

func (d *HostDevice) host(b Buffer, op string) (*HostBuffer, error) {
	hb, ok := b.(*HostBuffer)
	if !ok || hb == nil {
		return nil, fmt.Errorf("gpu: cpu %s: buffer %T does not belong to the cpu device", op, b)
	}
	return hb, nil
}

// CopyIn implements Device.
func (d *HostDevice) CopyIn(dst Buffer, src []float64) error {
	hb, err := d.host(dst, "copy in")
	if err != nil {
		return err
	}
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if len(src) > len(hb.data) {
		return fmt.Errorf("gpu: cpu copy in: %d values do not fit a buffer of %d", len(src), len(hb.data))
	}
	copy(hb.data, src)
	return nil
}

// CopyOut implements Device.
func (d *HostDevice) CopyOut(dst []float64, src Buffer) error {
	hb, err := d.host(src, "copy out")
	if err != nil {
		return err
	}
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if len(dst) > len(hb.data) {
		return fmt.Errorf("gpu: cpu copy out: want %d values from a buffer of %d", len(dst), len(hb.data))
	}
	copy(dst, hb.data)
	return nil
}

// Track adds bytes of host memory allocated outside a Device (a gorgonia
// tensor, a scratch slice) to the CPU device's counters. Pair every Track
// with an Untrack of the same size when the memory is dropped.
func Track(bytes int64) {
	if bytes > 0 {
		cpu.Add(bytes)
	}
}

// Untrack removes bytes recorded by Track from the CPU device's bytes in use.
func Untrack(bytes int64) {
	if bytes > 0 {
		cpu.Sub(bytes)
	}
}

// TrackFloat64s is Track for a slice of n float64 values.
func TrackFloat64s(n int) { Track(int64(n) * BytesPerFloat64) }

// UntrackFloat64s is Untrack for a slice of n float64 values.
func UntrackFloat64s(n int) { Untrack(int64(n) * BytesPerFloat64) }
