package gpu

import "fmt"

// A readout of a host device is a HostBufferT whose sums are set: its
// values are the buffer's, its sums float64 values beside them.

// AllocReadout implements Ops.
func (d *HostDeviceT[F]) AllocReadout(n, k int) (Buffer, error) {
	if k < 1 {
		return nil, fmt.Errorf("gpu: %s readout: %d sums, want at least 1", d.name, k)
	}
	b, err := d.Alloc(n)
	if err != nil {
		return nil, err
	}
	hb := b.(*HostBufferT[F])
	hb.sums = make([]float64, k)
	d.Add(int64(k) * BytesPerFloat64)
	return hb, nil
}

// sumsOf returns the sums of the readout r, or an error naming op.
func (d *HostDeviceT[F]) sumsOf(r Buffer, op string) ([]float64, error) {
	hb, ok := r.(*HostBufferT[F])
	if !ok || hb == nil {
		return nil, fmt.Errorf("gpu: %s %s: the readout is a %T, not a buffer of the %s device", d.name, op, r, d.name)
	}
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if !hb.live {
		return nil, fmt.Errorf("gpu: %s %s: the readout was freed", d.name, op)
	}
	if hb.sums == nil {
		return nil, fmt.Errorf("gpu: %s %s: the buffer is not a readout (AllocReadout)", d.name, op)
	}
	return hb.sums, nil
}

// sum returns sum i of the readout r.
func (d *HostDeviceT[F]) sum(r Buffer, i int, op string) (*float64, error) {
	sums, err := d.sumsOf(r, op)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= len(sums) {
		return nil, fmt.Errorf("gpu: %s %s: sum %d of a readout of %d", d.name, op, i, len(sums))
	}
	return &sums[i], nil
}

// ZeroSums implements Ops.
func (d *HostDeviceT[F]) ZeroSums(r Buffer) error {
	sums, err := d.sumsOf(r, "zero sums")
	if err != nil {
		return err
	}
	clear(sums)
	return nil
}

// AddDot implements Ops.
func (d *HostDeviceT[F]) AddDot(r Buffer, i int, c float64, x, y Buffer) error {
	dst, err := d.sum(r, i, "add dot")
	if err != nil {
		return err
	}
	v, err := d.Dot(x, y)
	if err != nil {
		return err
	}
	*dst += c * v
	return nil
}

// AddSum implements Ops.
func (d *HostDeviceT[F]) AddSum(r Buffer, i int, c float64, x Buffer) error {
	dst, err := d.sum(r, i, "add sum")
	if err != nil {
		return err
	}
	xv, err := d.values(x, -1, "add sum", "the buffer")
	if err != nil {
		return err
	}
	var v float64
	for _, a := range xv {
		v += float64(a)
	}
	*dst += c * v
	return nil
}

// AddHuberValue implements Ops: the images' values summed in image order.
func (d *HostDeviceT[F]) AddHuberValue(r Buffer, i int, c float64, f Buffer, s Batch, eps float64) error {
	dst, err := d.sum(r, i, "add huber value")
	if err != nil {
		return err
	}
	if err := s.check("add huber value"); err != nil {
		return err
	}
	vals := make([]float64, s.N)
	if err := d.HuberValue(vals, f, s, eps); err != nil {
		return err
	}
	var v float64
	for _, a := range vals {
		v += a
	}
	*dst += c * v
	return nil
}

// ReadOut implements Ops.
func (d *HostDeviceT[F]) ReadOut(vals, sums []float64, r Buffer) error {
	src, err := d.sumsOf(r, "read out")
	if err != nil {
		return err
	}
	if len(sums) != len(src) {
		return fmt.Errorf("gpu: %s read out: %d sums into %d values", d.name, len(src), len(sums))
	}
	if err := d.CopyOut(vals, r); err != nil {
		return err
	}
	copy(sums, src)
	return nil
}
