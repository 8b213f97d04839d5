//go:build l2ocuda

package cuda

import (
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// Copies to the device are staged in page-locked host memory, the upload
// ring, and queued (cuMemcpyHtoDAsync) on the legacy stream, in order with
// the kernels: the host does not wait for them. A staged value may be
// overwritten only once its copy has run, that is after a call that waits
// for all queued work (a copy to the host, a synchronisation), which frees
// the whole ring; a copy that finds no room left waits first.

// minUpload is the ring's smallest size in float32 values (4 MiB).
const minUpload = 1 << 20

// uploadSlot returns n float32 values of the upload ring that no queued
// copy reads; d.mu is held.
func (d *Device) uploadSlot(n int) ([]float32, error) {
	if d.upUsed+n > len(d.upload) && d.upUsed > 0 {
		if err := d.run(cu.Synchronize); err != nil {
			return nil, d.fail("wait for the queued copies to the device", err)
		}
		d.upUsed = 0
	}
	if n > len(d.upload) {
		if d.upload != nil {
			p := unsafe.Pointer(&d.upload[0])
			d.upload = nil
			if err := d.run(func() error { return cu.MemFreeHost(p) }); err != nil {
				return nil, d.fail("free the upload ring", err)
			}
		}
		size := max(n, minUpload)
		var p unsafe.Pointer
		err := d.run(func() (err error) {
			p, err = cu.MemAllocHost(int64(size) * BytesPerFloat32)
			return err
		})
		if err != nil {
			return nil, d.fail(fmt.Sprintf("allocate %d bytes of page-locked host memory", size*BytesPerFloat32), err)
		}
		d.upload = unsafe.Slice((*float32)(p), size)
	}
	slot := d.upload[d.upUsed : d.upUsed+n]
	d.upUsed += n
	return slot, nil
}

// uploadLocked queues the copy of bytes bytes from slot (uploadSlot's) to
// dst; d.mu is held.
func (d *Device) uploadLocked(dst cu.DevicePtr, slot []float32, bytes int64) error {
	op := fmt.Sprintf("copy %d bytes to the device", bytes)
	if err := d.run(func() error { return cu.MemcpyHtoDAsync(dst, unsafe.Pointer(&slot[0]), bytes, cu.NoStream) }); err != nil {
		return d.fail(op, err)
	}
	if err := d.waitIfSyncEach(); err != nil {
		return d.fail(op, err)
	}
	return nil
}

// copyIn queues the copy of n float32 values, written into the ring by
// fill, to dst.
func (d *Device) copyIn(dst cu.DevicePtr, n int, fill func([]float32)) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.refuseInCapture(fmt.Sprintf("copy %d bytes to the device", n*BytesPerFloat32)); err != nil {
		return err
	}
	slot, err := d.uploadSlot(n)
	if err != nil {
		return err
	}
	fill(slot)
	return d.uploadLocked(dst, slot, int64(n)*BytesPerFloat32)
}

// copyInRaw queues the copy of bytes bytes from src to dst (src may be
// reused at once: the bytes are staged in the ring).
func (d *Device) copyInRaw(dst cu.DevicePtr, src unsafe.Pointer, bytes int64) error {
	n := int((bytes + BytesPerFloat32 - 1) / BytesPerFloat32)
	return d.copyIn(dst, n, func(slot []float32) {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&slot[0])), bytes), unsafe.Slice((*byte)(src), bytes))
	})
}
