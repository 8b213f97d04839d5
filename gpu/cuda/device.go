//go:build l2ocuda

package cuda

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/gpu/cudasrc"
	"github.com/greedyl2o/greedyl2o/gpu/cufft"
	"github.com/greedyl2o/greedyl2o/kernels"
	"gorgonia.org/cu"
)

// BytesPerFloat32 is the size of one value of a device buffer.
const BytesPerFloat32 = 4

func init() {
	// The name is new, so Register cannot fail.
	_ = gpu.Register("cuda", func() (gpu.Device, error) { return OpenLocal() })
}

// OpenLocal opens the GPU of this process's local rank (gpu.LocalRank)
// modulo the machine's GPUs: device 0 outside a parallel job, and under
// mpirun each rank on a machine its own GPU while there are enough.
func OpenLocal() (*Device, error) {
	r := gpu.LocalRank()
	if r == 0 {
		return Open(0)
	}
	if err := cu.InitError(); err != nil {
		return nil, fmt.Errorf("cuda: no usable CUDA driver or GPU on this machine: %w; use --device cpu", err)
	}
	n, err := cu.NumDevices()
	if err != nil || n == 0 {
		return Open(0) // Open says why
	}
	return Open(r % n)
}

// Device is one CUDA GPU with its context and compiled kernels. It implements
// gpu.Device with float32 buffers and is safe for concurrent use (driver calls
// are serialised by mu and made on the caller's thread, see run).
type Device struct {
	gpu.Counter

	mu      sync.Mutex // guards run (every driver and cuFFT call)
	ctx     cu.CUContext
	ordinal int
	name    string
	arch    string
	module  cu.Module
	funcs   map[string]cu.Function
	plans   map[planKey]*cufft.Plan // cuFFT plans by batch shape and direction (guarded by mu)

	// scratchMu guards the small buffers that the per-plane operations
	// reuse (double results, float32 coefficients), grown on demand and
	// kept for the life of the device like the cuFFT plans.
	scratchMu        sync.Mutex
	dotsBuf, coefBuf *Buffer
	// partialBuf holds the reductions' partial sums (Dot, Sum, the
	// readouts' sums) and ticketBuf the count of their blocks done (0
	// between reductions); Dot's and Sum's results, like HuberValue's, go
	// to dotsBuf.
	partialBuf, ticketBuf *Buffer

	// stageMu guards stage, the host's float32 copy of the values that
	// CopyOut and ReadOut move (grown on demand and kept, so that a copy
	// allocates nothing: PF's parameters are 1,600² values at 40×40).
	stageMu sync.Mutex
	stage   []float32

	// syncEach waits for every kernel and transform to finish and checks
	// its error (L2O_CUDA_SYNC=1, as CUDA_LAUNCH_BLOCKING=1 does for
	// CUDA's runtime): a failing kernel is then named in the error.
	// Otherwise work queues in order on the context's stream and the host
	// waits only where it reads a result back (a copy to the host).
	syncEach bool

	// stream is the stream a Capture records on and a Graph runs on,
	// created by the first Capture; every other operation queues on the
	// legacy stream, which orders with it. capturing is set during a
	// Capture (guarded by mu): launches, transforms, copies and memsets on
	// the device then go to stream (captured counts them), and calls that
	// wait for the device are refused (captureErr keeps a refused Free).
	stream     cu.Stream
	capturing  bool
	captured   int
	captureErr error
	// upload is the upload ring (upload.go): page-locked host memory
	// that copies to the device are staged in, upUsed values of it taken
	// by copies that may not have run yet (guarded by mu).
	upload []float32
	upUsed int
	// graphs counts the live graphs (guarded by mu); while there are any,
	// a scratch buffer that grows keeps its old memory in retired (a graph
	// may read it), freed once none is left (guarded by scratchMu).
	graphs  int
	retired []*Buffer
	// planOnStream says which cuFFT plans queue on stream.
	planOnStream map[*cufft.Plan]bool
}

var (
	openMu  sync.Mutex
	devices = map[int]*Device{}
)

// Open returns the device with the given ordinal, creating its context and
// compiling the kernels on first use; later calls return the same Device.
func Open(ordinal int) (*Device, error) {
	openMu.Lock()
	defer openMu.Unlock()
	if d := devices[ordinal]; d != nil {
		return d, nil
	}
	if err := cu.InitError(); err != nil {
		return nil, fmt.Errorf("cuda: no usable CUDA driver or GPU on this machine: %w; use --device cpu", err)
	}
	n, err := cu.NumDevices()
	if err != nil {
		return nil, fmt.Errorf("cuda: count devices: %w", err)
	}
	if n == 0 {
		return nil, fmt.Errorf("cuda: no CUDA GPU found")
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("cuda: device %d does not exist: %d GPU(s), numbered from 0", ordinal, n)
	}
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return nil, fmt.Errorf("cuda: get device %d: %w", ordinal, err)
	}
	name, err := dev.Name()
	if err != nil {
		return nil, fmt.Errorf("cuda: name of device %d: %w", ordinal, err)
	}
	major, minor, err := dev.ComputeCapability()
	if err != nil {
		return nil, fmt.Errorf("cuda: compute capability of %s: %w", name, err)
	}
	ctx, err := newContext(dev)
	if err != nil {
		return nil, fmt.Errorf("cuda: context on %s: %w", name, err)
	}
	d := &Device{ctx: ctx, ordinal: ordinal, name: name, funcs: map[string]cu.Function{},
		syncEach: os.Getenv("L2O_CUDA_SYNC") == "1"}
	if err := d.loadKernels(major, minor); err != nil {
		_ = ctx.Destroy()
		return nil, err
	}
	devices[ordinal] = d
	return d, nil
}

// newContext creates the device's context (cuCtxCreate), which the driver
// also makes current on the calling thread; it is taken off that thread
// again, so that only run makes it current, on whichever thread calls.
func newContext(dev cu.Device) (cu.CUContext, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx, err := dev.MakeContext(cu.SchedAuto)
	if err != nil {
		return ctx, err
	}
	popped, err := cu.PopCurrentCtx()
	if err == nil && popped != ctx {
		err = fmt.Errorf("the thread's current context was %v, not the new %v", popped, ctx)
	}
	if err != nil {
		_ = ctx.Destroy()
		return ctx, fmt.Errorf("take the new context off the thread: %w", err)
	}
	return ctx, nil
}

// loadKernels loads the kernels' PTX (cudasrc.PTX, compiled from
// cudasrc.Source by NVRTC at build time for cudasrc.PTXArch), which the
// driver JIT-compiles for the device, and looks up every kernel. No NVRTC
// library is needed at run time.
func (d *Device) loadKernels(major, minor int) error {
	d.arch = fmt.Sprintf("%s PTX, JIT-compiled for sm_%d%d", cudasrc.PTXArch, major, minor)
	err := d.run(func() error {
		m, err := cu.LoadData(cudasrc.PTX)
		d.module = m
		return err
	})
	if err != nil {
		return fmt.Errorf("cuda: load kernels (%s PTX) on %s: %w", cudasrc.PTXArch, d.name, err)
	}
	for _, k := range cudasrc.Kernels {
		var fn cu.Function
		err := d.run(func() (err error) {
			fn, err = d.module.Function(k.Name)
			return err
		})
		if err != nil {
			return fmt.Errorf("cuda: kernel %s: %w", k.Name, err)
		}
		d.funcs[k.Name] = fn
	}
	return nil
}

// Name implements gpu.Device: "cuda:0 (<GPU name>)".
func (d *Device) Name() string { return fmt.Sprintf("cuda:%d (%s)", d.ordinal, d.name) }

// Arch describes the kernels' code: the PTX architecture and the GPU it was
// JIT-compiled for.
func (d *Device) Arch() string { return d.arch }

// MemInfo returns the free and total device memory in bytes as the driver
// reports them (cuMemGetInfo): it includes memory used by other processes and
// by the context itself, unlike Stats.
func (d *Device) MemInfo() (free, total int64, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	err = d.run(func() (err error) {
		free, total, err = cu.MemInfo()
		return err
	})
	if err != nil {
		return 0, 0, d.fail("memory info", err)
	}
	return free, total, nil
}

// Buffer is a block of float32 values in device memory.
type Buffer struct {
	dev   *Device
	ptr   cu.DevicePtr
	n     int
	bytes int64 // the values' bytes
	live  bool
	// sums and sumsOff: a readout's float64 sums, at sumsOff bytes from
	// ptr (0 sums: a plain buffer).
	sums    int
	sumsOff int64
}

// Len implements gpu.Buffer.
func (b *Buffer) Len() int { return b.n }

// alloc allocates bytes of zeroed device memory and counts them.
func (d *Device) alloc(n int, bytes int64) (*Buffer, error) {
	b := &Buffer{dev: d, n: n, bytes: bytes, live: true}
	if bytes == 0 {
		return b, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	ptr, err := d.allocLocked(bytes)
	if err != nil {
		return nil, err
	}
	if err := d.run(func() error { return cu.MemsetD8(ptr, 0, bytes) }); err != nil {
		// Only a broken context fails here; the counters keep the failed
		// allocation in their total and peak (in use goes back down).
		d.freeLocked(ptr, bytes)
		return nil, d.fail(fmt.Sprintf("zero %d new bytes", bytes), err)
	}
	b.ptr = ptr
	return b, nil
}

// allocLocked allocates bytes of device memory, counted, for a buffer that
// lives as long as the device (cuFFT work areas); d.mu is held.
func (d *Device) allocLocked(bytes int64) (cu.DevicePtr, error) {
	if err := d.refuseInCapture(fmt.Sprintf("allocate %d bytes", bytes)); err != nil {
		return 0, err
	}
	var ptr cu.DevicePtr
	err := d.run(func() (err error) {
		ptr, err = cu.MemAlloc(bytes)
		return err
	})
	if err != nil {
		return 0, d.fail(fmt.Sprintf("allocate %d bytes", bytes), err)
	}
	d.Add(bytes)
	return ptr, nil
}

// freeLocked frees what allocLocked allocated and uncounts it; d.mu is held.
// A failing cuMemFree is not returned (Free has no error): it means the
// context is already broken, and the next launch or copy reports that.
func (d *Device) freeLocked(ptr cu.DevicePtr, bytes int64) {
	if err := d.refuseInCapture("free"); err != nil && d.captureErr == nil {
		d.captureErr = err
	}
	_ = d.run(func() error { return cu.MemFree(ptr) })
	d.Sub(bytes)
}

// Alloc implements gpu.Device: n float32 values, 4·n bytes, zeroed.
func (d *Device) Alloc(n int) (gpu.Buffer, error) {
	if n < 0 || int64(n) > math.MaxInt32 {
		return nil, fmt.Errorf("cuda: alloc: size %d must be in [0, 2³¹)", n)
	}
	return d.alloc(n, int64(n)*BytesPerFloat32)
}

// Free implements gpu.Device.
func (d *Device) Free(b gpu.Buffer) {
	db, ok := b.(*Buffer)
	if !ok || db == nil || db.dev != d {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !db.live {
		return
	}
	db.live = false
	if db.allocated() > 0 {
		d.freeLocked(db.ptr, db.allocated())
	}
}

func (d *Device) buffer(b gpu.Buffer, what string) (*Buffer, error) {
	db, ok := b.(*Buffer)
	if !ok || db == nil || db.dev != d {
		return nil, fmt.Errorf("cuda: %s: buffer %T does not belong to %s", what, b, d.Name())
	}
	if !db.live {
		return nil, fmt.Errorf("cuda: %s: buffer was freed", what)
	}
	return db, nil
}

// CopyIn implements gpu.Device, rounding the values to float32.
func (d *Device) CopyIn(dst gpu.Buffer, src []float64) error {
	db, err := d.buffer(dst, "copy in")
	if err != nil {
		return err
	}
	if len(src) > db.n {
		return fmt.Errorf("cuda: copy in: %d values do not fit a buffer of %d", len(src), db.n)
	}
	if len(src) == 0 {
		return nil
	}
	return d.copyIn(db.ptr, len(src), func(slot []float32) { kernels.ConvertLarge(slot, src) })
}

// CopyOut implements gpu.Device.
func (d *Device) CopyOut(dst []float64, src gpu.Buffer) error {
	db, err := d.buffer(src, "copy out")
	if err != nil {
		return err
	}
	if len(dst) > db.n {
		return fmt.Errorf("cuda: copy out: want %d values from a buffer of %d", len(dst), db.n)
	}
	if len(dst) == 0 {
		return nil
	}
	d.stageMu.Lock()
	defer d.stageMu.Unlock()
	host := d.staged(len(dst))
	if err := d.copyOutRaw(unsafe.Pointer(&host[0]), db.ptr, int64(len(host))*BytesPerFloat32); err != nil {
		return err
	}
	kernels.ConvertLarge(dst, host)
	return nil
}

// staged returns the first n values of the staging buffer, grown to hold
// them; the caller holds stageMu.
func (d *Device) staged(n int) []float32 {
	if cap(d.stage) < n {
		d.stage = make([]float32, n)
	}
	return d.stage[:n]
}

func (d *Device) copyOutRaw(dst unsafe.Pointer, src cu.DevicePtr, bytes int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	op := fmt.Sprintf("copy %d bytes to the host", bytes)
	if err := d.refuseInCapture(op); err != nil {
		return err
	}
	if err := d.run(func() error { return cu.MemcpyDtoH(dst, src, bytes) }); err != nil {
		return d.fail(op+" (the error may come from a kernel queued before it: L2O_CUDA_SYNC=1 names it)", err)
	}
	d.upUsed = 0 // the queued work, the copies to the device too, has run
	return nil
}

// Upload allocates a buffer holding src (as float32).
func (d *Device) Upload(src []float64) (*Buffer, error) {
	b, err := d.Alloc(len(src))
	if err != nil {
		return nil, err
	}
	if err := d.CopyIn(b, src); err != nil {
		d.Free(b)
		return nil, err
	}
	return b.(*Buffer), nil
}

// NewBuffer allocates a zeroed buffer of n float32 values.
func (d *Device) NewBuffer(n int) (*Buffer, error) {
	b, err := d.Alloc(n)
	if err != nil {
		return nil, err
	}
	return b.(*Buffer), nil
}

// kernel arguments are passed as 8-byte slots, as cu.Ctx.LaunchKernel reads
// 8 bytes per parameter; the driver reads the parameter's own size from the
// start of the slot (little-endian).
type arg = uint64

func ptrArg(b *Buffer) arg      { return arg(b.ptr) }
func intArg(v int) arg          { return arg(uint32(int32(v))) }
func f32Arg(v float64) arg      { return arg(math.Float32bits(float32(v))) }
func nullArg() arg              { return 0 }
func rawArg(p cu.DevicePtr) arg { return arg(p) }

// launch queues kernel name on a 1-D grid (and waits for it to finish
// when d.syncEach).
func (d *Device) launch(name string, grid, block int, args ...arg) error {
	fn, ok := d.funcs[name]
	if !ok {
		return fmt.Errorf("cuda: no kernel %s", name)
	}
	if grid <= 0 {
		return nil
	}
	params := make([]unsafe.Pointer, len(args))
	for i := range args {
		params[i] = unsafe.Pointer(&args[i])
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	stream := d.queue()
	if err := d.run(func() error { return fn.Launch(grid, 1, 1, block, 1, 1, 0, stream, params) }); err != nil {
		return d.fail(fmt.Sprintf("launch %s (%d×%d threads)", name, grid, block), err)
	}
	if err := d.waitIfSyncEach(); err != nil {
		return d.fail("run "+name, err)
	}
	return nil
}

// queue returns the stream that queued work goes to: the capture's stream
// during a Capture (counting the work), else the legacy stream. d.mu is
// held.
func (d *Device) queue() cu.Stream {
	if d.capturing {
		d.captured++
		return d.stream
	}
	return cu.NoStream
}

// memsetLocked queues the zeroing of bytes at ptr; d.mu is held.
func (d *Device) memsetLocked(ptr cu.DevicePtr, bytes int64) error {
	if d.capturing {
		stream := d.queue()
		return d.run(func() error { return cu.MemsetD8Async(ptr, 0, bytes, stream) })
	}
	return d.run(func() error { return cu.MemsetD8(ptr, 0, bytes) })
}

// copyLocked queues a copy of bytes on the device; d.mu is held.
func (d *Device) copyLocked(dst, src cu.DevicePtr, bytes int64) error {
	if d.capturing {
		stream := d.queue()
		return d.run(func() error { return cu.MemcpyDtoDAsync(dst, src, bytes, stream) })
	}
	return d.run(func() error { return cu.MemcpyDtoD(dst, src, bytes) })
}

// fail names the device and the operation in a driver's error, with what
// to do when the error leaves the device unusable or out of memory.
func (d *Device) fail(op string, err error) error {
	var advice string
	switch {
	case errors.Is(err, cu.OutOfMemory):
		advice = " (out of device memory: free the GPU, or train fewer or smaller functions; a greedy run continues from its last step with --resume)"
	case errors.Is(err, cu.LaunchFailed), errors.Is(err, cu.IllegalAddress), errors.Is(err, cu.ContextIsDestroyed), errors.Is(err, cu.Unknown):
		advice = " (the GPU's context is lost: nothing more runs on it in this process; a greedy run continues from its last step with --resume)"
	}
	return fmt.Errorf("cuda: %s on %s: %w%s", op, d.Name(), err, advice)
}

// waitIfSyncEach waits for the queued work and returns its error when
// d.syncEach (L2O_CUDA_SYNC=1); otherwise it returns at once. d.mu is held.
func (d *Device) waitIfSyncEach() error {
	if !d.syncEach || d.capturing {
		return nil
	}
	if err := d.run(cu.Synchronize); err != nil {
		return err
	}
	d.upUsed = 0
	return nil
}

// run calls fn, one or a few driver calls, on the calling goroutine's OS
// thread with the device's context made current there; d.mu is held (or, in
// Open, the device is not yet shared). The
// device's calls all go through it: cu.Ctx, which hands every call to the
// context's own thread and waits for the answer, cost a channel round trip
// of 10–30 µs a call on this project's machine, most of a small step loss's
// host time (docs/benchmarks.md).
func (d *Device) run(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cu.SetCurrentContext(d.ctx); err != nil {
		return fmt.Errorf("make the context current: %w", err)
	}
	return fn()
}

// launchEach runs kernel name with one thread per value, n values.
func (d *Device) launchEach(name string, n int, args ...arg) error {
	const block = cudasrc.BlockSize
	return d.launch(name, (n+block-1)/block, block, args...)
}

// launchBlocks runs kernel name with blocks blocks of cudasrc.BlockSize.
func (d *Device) launchBlocks(name string, blocks int, args ...arg) error {
	return d.launch(name, blocks, cudasrc.BlockSize, args...)
}
