package gpu

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// Launcher is implemented by devices that run compute kernels by name: the
// CUDA device runs the kernels of package gpu/cudasrc, whose extern "C"
// names and parameters cudasrc.Kernels lists. It is how a problem supplies
// an operator of its own on such a device (tomo's ray transform, wcrr's
// ridge potentials, mconv's multi-channel convolutions) without the device
// knowing the problem: the problem's package uploads its tables and
// launches its kernels through these methods.
//
// The value buffers of a Launcher hold float32 values (ValueSize 4).
type Launcher interface {
	Ops
	// LaunchEach runs kernel name with one thread per item, n items (in
	// blocks of cudasrc.BlockSize threads); n ≤ 0 launches nothing.
	LaunchEach(name string, n int, args ...KernelArg) error
	// LaunchBlocks runs kernel name on blocks blocks of cudasrc.BlockSize
	// threads (the reductions: one block per output value).
	LaunchBlocks(name string, blocks int, args ...KernelArg) error
	// UploadInt32Table and UploadFloat64Table allocate a buffer that holds
	// v bit for bit (4 and 8 bytes a value: int and double arrays of the
	// kernels), for tables that kernels read. Free releases it.
	UploadInt32Table(v []int32) (Buffer, error)
	UploadFloat64Table(v []float64) (Buffer, error)
}

// KernelArg is one argument of a kernel launch: a buffer (a device
// pointer), a null pointer, a 32-bit int or a float32, in the order of the
// kernel's parameters.
type KernelArg struct {
	kind ArgKind
	buf  Buffer
	num  float64
	i    int
}

// ArgKind is the type of a KernelArg.
type ArgKind int

// The kinds of KernelArg.
const (
	ArgBuffer  ArgKind = iota // a buffer of the launching device
	ArgNull                   // a null pointer (an optional buffer left out)
	ArgInt32                  // an int, passed as a 32-bit int
	ArgFloat32                // a float64, passed rounded to float32
)

// BufferArg passes the device pointer of b.
func BufferArg(b Buffer) KernelArg { return KernelArg{kind: ArgBuffer, buf: b} }

// OptionalBufferArg passes b, or a null pointer when b is nil.
func OptionalBufferArg(b Buffer) KernelArg {
	if b == nil {
		return KernelArg{kind: ArgNull}
	}
	return BufferArg(b)
}

// IntArg passes v as a 32-bit int.
func IntArg(v int) KernelArg { return KernelArg{kind: ArgInt32, i: v} }

// Float32Arg passes v rounded to float32.
func Float32Arg(v float64) KernelArg { return KernelArg{kind: ArgFloat32, num: v} }

// Kind is the argument's type.
func (a KernelArg) Kind() ArgKind { return a.kind }

// Buffer is the argument's buffer (nil unless Kind is ArgBuffer).
func (a KernelArg) Buffer() Buffer { return a.buf }

// Int is the argument's int (0 unless Kind is ArgInt32).
func (a KernelArg) Int() int { return a.i }

// Float is the argument's value before rounding (0 unless Kind is
// ArgFloat32).
func (a KernelArg) Float() float64 { return a.num }

// HostValues returns the values of b, a buffer of a host device whose
// values are of type F (CPU: float64, Host32: float32), to be computed on
// in place; it checks that b holds n values (any number for n < 0). A
// problem's operator on a host device (package tomo's ray transform, for
// example) reads its buffers through it. op names the call in errors.
func HostValues[F kernels.Float](b Buffer, n int, op string) ([]F, error) {
	hb, ok := b.(*HostBufferT[F])
	if !ok || hb == nil {
		var z F
		return nil, fmt.Errorf("gpu: %s: the buffer is a %T, not a buffer of a %T host device", op, b, z)
	}
	v := hb.Values()
	if v == nil && n > 0 {
		return nil, fmt.Errorf("gpu: %s: the buffer was freed", op)
	}
	if n >= 0 && len(v) != n {
		return nil, fmt.Errorf("gpu: %s: the buffer has %d values, want %d", op, len(v), n)
	}
	return v, nil
}

// Operand is a buffer an operation reads or writes, with the name its
// errors give it and the number of values it must hold.
type Operand struct {
	Name string
	Buf  Buffer
	Len  int
}

// CheckOperands checks that every operand is given and holds its number of
// values, for the operators problems build on a Launcher (which checks
// that the buffers are its own and live when it launches). op names the
// call in errors.
func CheckOperands(op string, operands ...Operand) error {
	for _, o := range operands {
		if o.Buf == nil {
			return fmt.Errorf("%s: %s is nil", op, o.Name)
		}
		if n := o.Buf.Len(); n != o.Len {
			return fmt.Errorf("%s: %s has %d values, want %d", op, o.Name, n, o.Len)
		}
	}
	return nil
}
