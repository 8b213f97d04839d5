package launch

import (
	"errors"
	"fmt"
	"math"
)

// Config is one kernel launch as package gpu/cuda makes it: a 1-D grid of
// Grid blocks of Block threads, Shared bytes of dynamic shared memory, and
// the int values the kernel computes from its arguments.
type Config struct {
	Op     string // the device operation that launches it (gpu/cuda's method)
	Kernel string // the PTX entry name
	Grid   int64  // blocks (x); y and z are 1
	Block  int64  // threads per block (x); y and z are 1
	Shared int64  // dynamic shared memory, bytes (the kernels use static shared memory only: 0)
	// Ints are the largest values of the kernel's int (32-bit) arithmetic:
	// its thread index, the bounds of its loops plus their step, the sizes
	// it multiplies out (N·H·W). Each must be at most 2³¹−1, or the index
	// wraps and the kernel reads or writes outside its buffers.
	Ints []Int
	// Buffers are the lengths of the device buffers the operation needs;
	// gpu/cuda's Alloc refuses more than 2³¹−1 values (an error, not a
	// wrong result).
	Buffers []Int
}

// Int is a named value of a launch.
type Int struct {
	What  string
	Value int64
}

func (c Config) String() string {
	return fmt.Sprintf("%s: %s<<<%d, %d, %d>>>", c.Op, c.Kernel, c.Grid, c.Block, c.Shared)
}

// MaxInt is the largest value of a kernel's int arithmetic and the largest
// buffer (in values) gpu/cuda allocates.
const MaxInt = math.MaxInt32

// Check reports every limit of t that c exceeds, with r the kernel's
// resources on t (its registers, static shared memory, local memory): a
// launch the driver would refuse (too many threads, registers or shared
// memory for a block; a grid too large), one whose int arithmetic
// overflows. An operation with a buffer gpu/cuda cannot allocate is
// refused before its launch: only that is reported. nil: it fits.
func Check(c Config, t Target, r Resource) error {
	var errs []error
	for _, v := range c.Buffers {
		if v.Value > MaxInt {
			errs = append(errs, fmt.Errorf("%s: buffer %s of %d values exceeds gpu/cuda's limit of 2³¹−1 values (Alloc refuses it: the operation cannot run)", c, v.What, v.Value))
		}
	}
	if len(errs) > 0 {
		// The operation is refused before its kernel is launched.
		return errors.Join(errs...)
	}
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s on %s: "+format, append([]any{c, t.Arch}, args...)...))
	}
	if r.Kernel != "" && r.Kernel != c.Kernel {
		bad("resources given are those of %s", r.Kernel)
	}
	if c.Block < 1 || c.Block > int64(t.MaxThreadsPerBlock) {
		bad("%d threads per block, the limit is %d", c.Block, t.MaxThreadsPerBlock)
	}
	if c.Grid < 1 || c.Grid > t.MaxGridX {
		bad("%d blocks in x, the limit is %d", c.Grid, t.MaxGridX)
	}
	if r.Registers > t.MaxRegsPerThread {
		bad("%d registers per thread, the limit is %d", r.Registers, t.MaxRegsPerThread)
	}
	if c.Block >= 1 && c.Block <= int64(t.MaxThreadsPerBlock) {
		regs := t.BlockRegisters(int(c.Block), r.Registers)
		if regs > t.RegsPerBlock {
			bad("%d threads × %d registers need %d registers per block, the limit is %d", c.Block, r.Registers, regs, t.RegsPerBlock)
		}
		if regs > t.RegsPerSM {
			bad("%d threads × %d registers need %d registers, a multiprocessor has %d", c.Block, r.Registers, regs, t.RegsPerSM)
		}
	}
	if c.Shared < 0 {
		bad("negative dynamic shared memory %d", c.Shared)
	}
	if shared := int64(r.Shared) + c.Shared; shared > int64(t.SharedPerBlock) {
		bad("%d bytes of shared memory per block (%d static + %d dynamic), the limit without opting in is %d", shared, r.Shared, c.Shared, t.SharedPerBlock)
	} else if shared+int64(t.SharedReservedPerBlk) > int64(t.SharedPerSM) {
		bad("%d bytes of shared memory per block, a multiprocessor has %d", shared, t.SharedPerSM)
	}
	if local := r.Stack + r.SpillStores; local > t.LocalPerThread {
		bad("%d bytes of local memory per thread, the limit is %d", local, t.LocalPerThread)
	}
	if threads := c.Grid * c.Block; c.Grid > 0 && c.Block > 0 && threads-1 > MaxInt {
		bad("thread index up to %d overflows the kernels' int index (blockIdx.x·blockDim.x + threadIdx.x ≤ 2³¹−1)", threads-1)
	}
	for _, v := range c.Ints {
		if v.Value > MaxInt {
			bad("%s = %d overflows int (2³¹−1 = %d)", v.What, v.Value, int64(MaxInt))
		}
	}
	return errors.Join(errs...)
}

// CheckAll checks every configuration on every target against the table's
// resources; a kernel the table lacks for a target is an error.
func CheckAll(cfgs []Config, targets []Target, tab *Table) error {
	var errs []error
	for _, t := range targets {
		for _, c := range cfgs {
			r, ok := tab.Lookup(t.Arch, c.Kernel)
			if !ok {
				errs = append(errs, fmt.Errorf("%s on %s: kernel not in the resource table", c, t.Arch))
				continue
			}
			if err := Check(c, t, r); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
