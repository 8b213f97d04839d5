package gpu

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// MemStats are the memory counters of a device, in bytes except Allocs.
type MemStats struct {
	InUse          int64 // bytes of live buffers (and tracked bytes) now
	Peak           int64 // largest InUse since creation or the last ResetPeak
	TotalAllocated int64 // bytes allocated since creation, never decreases
	Allocs         int64 // number of allocations since creation
}

// Buffer is a block of values owned by one Device. Its values are reached
// only through the device's CopyIn and CopyOut (and, for the CPU device,
// HostBuffer.Values).
type Buffer interface {
	// Len is the number of values the buffer holds.
	Len() int
}

// Device allocates buffers, copies values between host slices and buffers,
// and keeps memory statistics. Implementations are safe for concurrent use.
type Device interface {
	// Name identifies the device, for example "cpu" or "cuda:0 (NVIDIA A100)".
	Name() string
	// Alloc returns a zeroed buffer of n values. The CPU device stores
	// float64 values (8 bytes each); the CUDA device stores float32 (4 bytes).
	Alloc(n int) (Buffer, error)
	// Free releases b. Freeing a buffer twice, or a buffer of another device,
	// does nothing.
	Free(b Buffer)
	// CopyIn writes src into the first len(src) values of dst.
	CopyIn(dst Buffer, src []float64) error
	// CopyOut reads the first len(dst) values of src into dst.
	CopyOut(dst []float64, src Buffer) error
	// Stats returns the memory counters.
	Stats() MemStats
	// ResetPeak sets Peak to the current InUse.
	ResetPeak()
}

// ErrNoCUDA is returned (wrapped) by Open("cuda") in a binary built without
// the CUDA device.
var ErrNoCUDA = errors.New("this binary was built without CUDA support; build with -tags l2ocuda (see README), for example `go build -tags l2ocuda ./cmd/l2o`")

var registry = struct {
	sync.Mutex
	open map[string]func() (Device, error)
}{open: map[string]func() (Device, error){}}

// Register makes a device available to Open under name. It is called from
// the init function of a device package (gpu/cuda registers "cuda"). It
// returns an error if name is empty, "cpu" or already registered.
func Register(name string, open func() (Device, error)) error {
	if name == "" || name == "cpu" || name == Host || name == Host32Name || open == nil {
		return fmt.Errorf("gpu: register device %q: the name must be new and not cpu, host or host32, and open must not be nil", name)
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.open[name]; dup {
		return fmt.Errorf("gpu: register device %q: already registered", name)
	}
	registry.open[name] = open
	return nil
}

// Host names the CPU device for commands that should run their device code
// paths (gpu.Ops) on it instead of their CPU fast paths: `--device host`.
const Host = "host"

// Devices returns the names Open accepts: "cpu", "host", "host32" and every
// registered device, sorted.
func Devices() []string {
	registry.Lock()
	defer registry.Unlock()
	names := []string{"cpu", Host, Host32Name}
	for name := range registry.open {
		names = append(names, name)
	}
	sort.Strings(names[3:])
	return names
}

// Open returns the device called name: "cpu" (the shared CPU device), "host"
// (the same device, named so that commands run their device code paths on
// it: the array operations of Ops in float64 on the host), "host32" (the
// float32 host device, Host32) or a registered device such as "cuda". Without the CUDA device linked in,
// Open("cuda") returns an error wrapping ErrNoCUDA. A registered device that
// cannot start (no GPU, no driver) returns its own error.
func Open(name string) (Device, error) {
	if name == "cpu" || name == Host {
		return CPU(), nil
	}
	if name == Host32Name {
		return Host32(), nil
	}
	registry.Lock()
	open := registry.open[name]
	registry.Unlock()
	if open != nil {
		d, err := open()
		if err != nil {
			return nil, fmt.Errorf("gpu: open device %q: %w", name, err)
		}
		return d, nil
	}
	if name == "cuda" {
		return nil, fmt.Errorf("gpu: open device %q: %w", name, ErrNoCUDA)
	}
	return nil, fmt.Errorf("gpu: unknown device %q: use one of %s", name, strings.Join(Devices(), ", "))
}

// Counter keeps MemStats with atomic updates. Devices embed it to account
// their allocations; the zero value is ready to use.
type Counter struct {
	inUse, peak, total, allocs atomic.Int64
}

// Add records an allocation of bytes.
func (c *Counter) Add(bytes int64) {
	c.total.Add(bytes)
	c.allocs.Add(1)
	now := c.inUse.Add(bytes)
	for {
		p := c.peak.Load()
		if now <= p || c.peak.CompareAndSwap(p, now) {
			return
		}
	}
}

// Sub records that bytes were released.
func (c *Counter) Sub(bytes int64) { c.inUse.Add(-bytes) }

// Stats returns the counters.
func (c *Counter) Stats() MemStats {
	return MemStats{InUse: c.inUse.Load(), Peak: c.peak.Load(), TotalAllocated: c.total.Load(), Allocs: c.allocs.Load()}
}

// ResetPeak sets the peak to the bytes in use now.
func (c *Counter) ResetPeak() { c.peak.Store(c.inUse.Load()) }
