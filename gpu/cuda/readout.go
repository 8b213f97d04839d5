//go:build l2ocuda

package cuda

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
	"gorgonia.org/cu"
)

// A readout (gpu.Ops.AllocReadout) is a Buffer of n float32 values whose
// allocation holds, from sumsOff (the values' bytes rounded up to 8), its
// float64 sums: ReadOut brings both back in one copy.

// AllocReadout implements gpu.Ops.
func (d *Device) AllocReadout(n, k int) (gpu.Buffer, error) {
	if n < 0 || int64(n) > math.MaxInt32 || k < 1 || k > 1<<20 {
		return nil, fmt.Errorf("cuda: readout of %d values and %d sums: want [0, 2³¹) values and [1, 2²⁰] sums", n, k)
	}
	off := (int64(n)*BytesPerFloat32 + 7) &^ 7
	b, err := d.alloc(n, off+int64(k)*8)
	if err != nil {
		return nil, err
	}
	b.bytes, b.sums, b.sumsOff = int64(n)*BytesPerFloat32, k, off
	return b, nil
}

// allocated is the bytes of b's allocation: its values', and a readout's
// sums.
func (b *Buffer) allocated() int64 {
	if b.sums == 0 {
		return b.bytes
	}
	return b.sumsOff + int64(b.sums)*8
}

// readout returns r as a readout of d, or an error naming op.
func (d *Device) readout(r gpu.Buffer, op string) (*Buffer, error) {
	b, err := d.buffer(r, op)
	if err != nil {
		return nil, err
	}
	if b.sums == 0 {
		return nil, fmt.Errorf("cuda: %s: the buffer is not a readout (AllocReadout)", op)
	}
	return b, nil
}

// sumArg is the address of sum i of the readout r.
func (d *Device) sumArg(r gpu.Buffer, i int, op string) (arg, error) {
	b, err := d.readout(r, op)
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= b.sums {
		return 0, fmt.Errorf("cuda: %s: sum %d of a readout of %d", op, i, b.sums)
	}
	return rawArg(b.ptr) + arg(b.sumsOff) + arg(8*i), nil
}

func f64Arg(v float64) arg { return arg(math.Float64bits(v)) }

// ZeroSums implements gpu.Ops.
func (d *Device) ZeroSums(r gpu.Buffer) error {
	b, err := d.readout(r, "zero sums")
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.memsetLocked(b.ptr+cu.DevicePtr(b.sumsOff), int64(b.sums)*8); err != nil {
		return d.fail(fmt.Sprintf("zero %d sums", b.sums), err)
	}
	return nil
}

// AddDot implements gpu.Ops: one l2o_dot_reduce into the sum.
func (d *Device) AddDot(r gpu.Buffer, i int, c float64, x, y gpu.Buffer) error {
	dst, err := d.sumArg(r, i, "add dot")
	if err != nil {
		return err
	}
	bs, err := d.buffers("add dot", x, -1, y, -1)
	if err != nil {
		return err
	}
	if bs[0].n != bs[1].n {
		return fmt.Errorf("cuda: add dot: buffers of %d and %d values", bs[0].n, bs[1].n)
	}
	return d.reduceInto(dst, c, false, "l2o_dot_reduce", bs[0].n, ptrArg(bs[0]), ptrArg(bs[1]))
}

// AddSum implements gpu.Ops.
func (d *Device) AddSum(r gpu.Buffer, i int, c float64, x gpu.Buffer) error {
	dst, err := d.sumArg(r, i, "add sum")
	if err != nil {
		return err
	}
	bs, err := d.buffers("add sum", x, -1)
	if err != nil {
		return err
	}
	return d.reduceInto(dst, c, false, "l2o_sum_reduce", bs[0].n, ptrArg(bs[0]))
}

// reduceInto queues the one-kernel reduction name over n values (its
// inputs args), which adds c times the sum to the double at dst (set: sets
// the double to it); its reduceBlocks partial sums and its ticket are the
// device's scratch.
func (d *Device) reduceInto(dst arg, c float64, set bool, name string, n int, args ...arg) error {
	d.scratchMu.Lock()
	defer d.scratchMu.Unlock()
	return d.launchReduce(dst, c, set, name, n, args...)
}

// launchReduce is reduceInto with d.scratchMu held.
func (d *Device) launchReduce(dst arg, c float64, set bool, name string, n int, args ...arg) error {
	partial, err := d.scratch(&d.partialBuf, reduceBlocks, 8)
	if err != nil {
		return err
	}
	ticket, err := d.scratch(&d.ticketBuf, 1, 4)
	if err != nil {
		return err
	}
	setArg := intArg(0)
	if set {
		setArg = intArg(1)
	}
	all := append([]arg{dst, ptrArg(partial), ptrArg(ticket)}, args...)
	return d.launchBlocks(name, reduceBlocks, append(all, intArg(n), f64Arg(c), setArg)...)
}

// AddHuberValue implements gpu.Ops: the field's Huber potential summed into
// the sum on the device, over all N·HW points at once (one l2o_huber_reduce,
// as AddDot's reduction).
func (d *Device) AddHuberValue(r gpu.Buffer, i int, c float64, f gpu.Buffer, s gpu.Batch, eps float64) error {
	dst, err := d.sumArg(r, i, "add huber value")
	if err != nil {
		return err
	}
	n, hw := s.N, s.H*s.W
	if err := huberCheck("add huber value", n, hw, eps); err != nil {
		return err
	}
	bs, err := d.buffers("add huber value", f, 2*n*hw)
	if err != nil {
		return err
	}
	return d.reduceInto(dst, c, false, "l2o_huber_reduce", n*hw, ptrArg(bs[0]), intArg(hw), f32Arg(eps))
}

// ReadOut implements gpu.Ops: the whole allocation, values and sums, in one
// copy to the host.
func (d *Device) ReadOut(vals, sums []float64, r gpu.Buffer) error {
	b, err := d.readout(r, "read out")
	if err != nil {
		return err
	}
	if len(vals) > b.n || len(sums) != b.sums {
		return fmt.Errorf("cuda: read out: %d values and %d sums from a readout of %d and %d", len(vals), len(sums), b.n, b.sums)
	}
	d.stageMu.Lock()
	defer d.stageMu.Unlock()
	host := d.staged(int(b.allocated() / BytesPerFloat32))
	if err := d.copyOutRaw(unsafe.Pointer(&host[0]), b.ptr, b.allocated()); err != nil {
		return err
	}
	kernels.ConvertLarge(vals, host[:len(vals)])
	copy(sums, unsafe.Slice((*float64)(unsafe.Pointer(&host[b.sumsOff/BytesPerFloat32])), b.sums))
	return nil
}
