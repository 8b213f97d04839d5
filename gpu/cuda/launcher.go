//go:build l2ocuda

package cuda

import (
	"fmt"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/gpu"
)

// The CUDA device runs the kernels of package gpu/cudasrc by name for the
// operators that problems build on it (tomo's ray transform, wcrr's ridge
// potentials, mconv's multi-channel convolutions).
var _ gpu.Launcher = (*Device)(nil)

// kernelArgs converts launch arguments to the kernels' 8-byte slots,
// checking that every buffer is a live buffer of d.
func (d *Device) kernelArgs(name string, args []gpu.KernelArg) ([]arg, error) {
	out := make([]arg, len(args))
	for i, a := range args {
		switch a.Kind() {
		case gpu.ArgBuffer:
			b, err := d.buffer(a.Buffer(), fmt.Sprintf("%s argument %d", name, i+1))
			if err != nil {
				return nil, err
			}
			out[i] = ptrArg(b)
		case gpu.ArgNull:
			out[i] = nullArg()
		case gpu.ArgInt32:
			out[i] = intArg(a.Int())
		case gpu.ArgFloat32:
			out[i] = f32Arg(a.Float())
		default:
			return nil, fmt.Errorf("cuda: %s argument %d: unknown kind %d", name, i+1, a.Kind())
		}
	}
	return out, nil
}

// LaunchEach implements gpu.Launcher.
func (d *Device) LaunchEach(name string, n int, args ...gpu.KernelArg) error {
	a, err := d.kernelArgs(name, args)
	if err != nil {
		return err
	}
	return d.launchEach(name, n, a...)
}

// LaunchBlocks implements gpu.Launcher.
func (d *Device) LaunchBlocks(name string, blocks int, args ...gpu.KernelArg) error {
	a, err := d.kernelArgs(name, args)
	if err != nil {
		return err
	}
	return d.launchBlocks(name, blocks, a...)
}

// UploadInt32Table implements gpu.Launcher.
func (d *Device) UploadInt32Table(v []int32) (gpu.Buffer, error) {
	if len(v) == 0 {
		return d.alloc(0, 0)
	}
	return d.uploadRaw(len(v), 4, unsafe.Pointer(&v[0]))
}

// UploadFloat64Table implements gpu.Launcher.
func (d *Device) UploadFloat64Table(v []float64) (gpu.Buffer, error) {
	if len(v) == 0 {
		return d.alloc(0, 0)
	}
	return d.uploadRaw(len(v), 8, unsafe.Pointer(&v[0]))
}

// uploadRaw allocates n values of size bytes and copies them from src.
func (d *Device) uploadRaw(n int, size int64, src unsafe.Pointer) (*Buffer, error) {
	b, err := d.alloc(n, int64(n)*size)
	if err != nil {
		return nil, fmt.Errorf("cuda: upload a table: %w", err)
	}
	if err := d.copyInRaw(b.ptr, src, int64(n)*size); err != nil {
		d.Free(b)
		return nil, fmt.Errorf("cuda: upload a table: %w", err)
	}
	return b, nil
}
