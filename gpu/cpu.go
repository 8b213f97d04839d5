package gpu

import (
	"fmt"
	"sync"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// BytesPerFloat64 is the size of one value of a CPU buffer.
const BytesPerFloat64 = 8

// HostDeviceT is a device in host memory whose buffers hold values of type
// F: the CPU device (HostDevice, float64) and the float32 host device
// (Host32Device). Each has one value, returned by CPU and Host32, so its
// counters are process-wide.
type HostDeviceT[F kernels.Float] struct {
	Counter
	hostOps[F]
}

// HostDevice is the CPU device: buffers are float64 slices in host memory.
type HostDevice = HostDeviceT[float64]

// HostBufferT is a buffer of a host device.
type HostBufferT[F kernels.Float] struct {
	mu   sync.Mutex
	data []F
	sums []float64 // a readout's sums (AllocReadout), or nil
	live bool
}

// HostBuffer is a buffer of the CPU device.
type HostBuffer = HostBufferT[float64]

func newHostDevice[F kernels.Float](name string) *HostDeviceT[F] {
	return &HostDeviceT[F]{hostOps: hostOps[F]{name: name, get: func(b Buffer) ([]F, bool) {
		hb, ok := b.(*HostBufferT[F])
		if !ok || hb == nil {
			return nil, false
		}
		return hb.Values(), true
	}}}
}

var cpu = newHostDevice[float64]("cpu")

// CPU returns the CPU device, shared by the whole process.
func CPU() *HostDevice { return cpu }

// Len implements Buffer. A freed buffer has length 0.
func (b *HostBufferT[F]) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.data)
}

// Values returns the buffer's values, to be used in place by CPU kernels.
// It returns nil after Free.
func (b *HostBufferT[F]) Values() []F {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.data
}

// Name implements Device: "cpu" or "host32".
func (d *HostDeviceT[F]) Name() string { return d.name }

// Alloc implements Device: n values of ValueSize bytes each.
func (d *HostDeviceT[F]) Alloc(n int) (Buffer, error) {
	if n < 0 {
		return nil, fmt.Errorf("gpu: %s alloc: size %d is negative", d.name, n)
	}
	b := &HostBufferT[F]{data: make([]F, n), live: true}
	d.Add(int64(n) * int64(d.ValueSize()))
	return b, nil
}

// Free implements Device.
func (d *HostDeviceT[F]) Free(b Buffer) {
	hb, ok := b.(*HostBufferT[F])
	if !ok || hb == nil {
		return
	}
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if !hb.live {
		return
	}
	d.Sub(int64(len(hb.data))*int64(d.ValueSize()) + int64(len(hb.sums))*BytesPerFloat64)
	hb.data, hb.sums, hb.live = nil, nil, false
}

// CopyIn implements Device, rounding the values to F.
func (d *HostDeviceT[F]) CopyIn(dst Buffer, src []float64) error {
	v, err := d.values(dst, -1, "copy in", "the buffer")
	if err != nil {
		return err
	}
	if len(src) > len(v) {
		return fmt.Errorf("gpu: %s copy in: %d values do not fit a buffer of %d", d.name, len(src), len(v))
	}
	kernels.ConvertLarge(v[:len(src)], src)
	return nil
}

// CopyOut implements Device.
func (d *HostDeviceT[F]) CopyOut(dst []float64, src Buffer) error {
	v, err := d.values(src, -1, "copy out", "the buffer")
	if err != nil {
		return err
	}
	if len(dst) > len(v) {
		return fmt.Errorf("gpu: %s copy out: want %d values from a buffer of %d", d.name, len(dst), len(v))
	}
	kernels.ConvertLarge(dst, v[:len(dst)])
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

// OnHost is implemented by the host devices and by devices that embed one
// (a wrapper that counts or checks calls, say): Host returns the host device
// whose buffers, host slices of F values, they allocate. The operators that
// problems build on a device compute on such a device's buffers in place
// (HostValues).
type OnHost[F kernels.Float] interface {
	Device
	Host() *HostDeviceT[F]
}

// Host implements OnHost: the device itself.
func (d *HostDeviceT[F]) Host() *HostDeviceT[F] { return d }
