package gpu

import (
	"fmt"
	"sync"
)

// BytesPerFloat32 is the size of one value of a float32 buffer.
const BytesPerFloat32 = 4

// Host32Name is the name of the float32 host device: `--device host32`.
const Host32Name = "host32"

// Host32Device is a float32 device in host memory: buffers hold float32
// values, copies round to float32, and its Ops compute in float32 with
// float64 accumulators for the reductions, as the CUDA device does. It runs
// the device code paths of training in the CUDA device's precision on any
// machine, so that float32 effects can be measured and the CUDA device's
// tolerances checked without a GPU. The only value is the one Host32
// returns, with process-wide counters.
type Host32Device struct {
	Counter
	hostOps[float32]
}

var host32 = &Host32Device{hostOps: hostOps[float32]{name: Host32Name, get: func(b Buffer) ([]float32, bool) {
	hb, ok := b.(*Host32Buffer)
	if !ok || hb == nil {
		return nil, false
	}
	return hb.Float32s(), true
}}}

// Host32 returns the float32 host device.
func Host32() *Host32Device { return host32 }

// Host32Buffer is a buffer of the float32 host device.
type Host32Buffer struct {
	mu   sync.Mutex
	data []float32
	live bool
}

// Len implements Buffer. A freed buffer has length 0.
func (b *Host32Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.data)
}

// Float32s returns the buffer's values, to be used in place; nil after Free.
func (b *Host32Buffer) Float32s() []float32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.data
}

// Name implements Device.
func (*Host32Device) Name() string { return Host32Name }

// Alloc implements Device: n float32 values, 4·n bytes.
func (d *Host32Device) Alloc(n int) (Buffer, error) {
	if n < 0 {
		return nil, fmt.Errorf("gpu: host32 alloc: size %d is negative", n)
	}
	d.Add(int64(n) * BytesPerFloat32)
	return &Host32Buffer{data: make([]float32, n), live: true}, nil
}

// Free implements Device.
func (d *Host32Device) Free(b Buffer) {
	hb, ok := b.(*Host32Buffer)
	if !ok || hb == nil {
		return
	}
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if !hb.live {
		return
	}
	d.Sub(int64(len(hb.data)) * BytesPerFloat32)
	hb.data, hb.live = nil, false
}

// CopyIn implements Device, rounding the values to float32.
func (d *Host32Device) CopyIn(dst Buffer, src []float64) error {
	v, err := d.values(dst, -1, "copy in", "the buffer")
	if err != nil {
		return err
	}
	if len(src) > len(v) {
		return fmt.Errorf("gpu: host32 copy in: %d values do not fit a buffer of %d", len(src), len(v))
	}
	for i, x := range src {
		v[i] = float32(x)
	}
	return nil
}

// CopyOut implements Device.
func (d *Host32Device) CopyOut(dst []float64, src Buffer) error {
	v, err := d.values(src, -1, "copy out", "the buffer")
	if err != nil {
		return err
	}
	if len(dst) > len(v) {
		return fmt.Errorf("gpu: host32 copy out: want %d values from a buffer of %d", len(dst), len(v))
	}
	for i := range dst {
		dst[i] = float64(v[i])
	}
	return nil
}
