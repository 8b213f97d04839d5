package launch

import "math"

// Target is the hardware limits of one GPU architecture that a launch must
// fit (CUDA C++ Programming Guide, "Technical Specifications per Compute
// Capability", and the CUDA Occupancy Calculator's allocation rules).
type Target struct {
	Arch string // ptxas's -arch: sm_52, …
	GPUs string // examples, for messages and docs

	MaxGridX             int64 // blocks in x of a grid (y and z: MaxGridYZ)
	MaxGridYZ            int64
	MaxThreadsPerBlock   int
	MaxThreadsPerSM      int
	MaxBlocksPerSM       int
	WarpSize             int
	MaxRegsPerThread     int
	RegsPerBlock         int // 32-bit registers one block may use
	RegsPerSM            int
	RegAllocUnit         int // registers are allocated per warp in units of this many
	SharedPerBlock       int // bytes of shared memory (static + dynamic) a block may use without the opt-in attribute
	SharedPerBlockOptIn  int // … with cudaFuncAttributeMaxDynamicSharedMemorySize (the code never opts in)
	SharedPerSM          int
	SharedReservedPerBlk int // bytes the system reserves per resident block (sm_80 and later)
	LocalPerThread       int // bytes of local memory (stack frame, spills) per thread
	ParamBytes           int // bytes of kernel parameters
}

const (
	kib = 1 << 10
	// maxGridX is the largest x dimension of a grid on every architecture
	// since compute capability 3.0.
	maxGridX = math.MaxInt32
)

// Targets are the architectures CI assembles the embedded PTX for: sm_52
// (the PTX's own target, Maxwell), sm_70 (Volta), sm_80 (Ampere A100) and
// sm_90 (Hopper H100).
var Targets = []Target{
	{
		Arch: "sm_52", GPUs: "Maxwell: GTX 980, Titan X, M40",
		MaxGridX: maxGridX, MaxGridYZ: 65535,
		MaxThreadsPerBlock: 1024, MaxThreadsPerSM: 2048, MaxBlocksPerSM: 32, WarpSize: 32,
		MaxRegsPerThread: 255, RegsPerBlock: 64 * kib, RegsPerSM: 64 * kib, RegAllocUnit: 256,
		SharedPerBlock: 48 * kib, SharedPerBlockOptIn: 48 * kib, SharedPerSM: 96 * kib, SharedReservedPerBlk: 0,
		LocalPerThread: 512 * kib, ParamBytes: 4 * kib,
	},
	{
		Arch: "sm_70", GPUs: "Volta: V100, Titan V",
		MaxGridX: maxGridX, MaxGridYZ: 65535,
		MaxThreadsPerBlock: 1024, MaxThreadsPerSM: 2048, MaxBlocksPerSM: 32, WarpSize: 32,
		MaxRegsPerThread: 255, RegsPerBlock: 64 * kib, RegsPerSM: 64 * kib, RegAllocUnit: 256,
		SharedPerBlock: 48 * kib, SharedPerBlockOptIn: 96 * kib, SharedPerSM: 96 * kib, SharedReservedPerBlk: 0,
		LocalPerThread: 512 * kib, ParamBytes: 4 * kib,
	},
	{
		Arch: "sm_80", GPUs: "Ampere: A100, A30",
		MaxGridX: maxGridX, MaxGridYZ: 65535,
		MaxThreadsPerBlock: 1024, MaxThreadsPerSM: 2048, MaxBlocksPerSM: 32, WarpSize: 32,
		MaxRegsPerThread: 255, RegsPerBlock: 64 * kib, RegsPerSM: 64 * kib, RegAllocUnit: 256,
		SharedPerBlock: 48 * kib, SharedPerBlockOptIn: 163 * kib, SharedPerSM: 164 * kib, SharedReservedPerBlk: 1 * kib,
		LocalPerThread: 512 * kib, ParamBytes: 4 * kib,
	},
	{
		Arch: "sm_90", GPUs: "Hopper: H100, H200",
		MaxGridX: maxGridX, MaxGridYZ: 65535,
		MaxThreadsPerBlock: 1024, MaxThreadsPerSM: 2048, MaxBlocksPerSM: 32, WarpSize: 32,
		MaxRegsPerThread: 255, RegsPerBlock: 64 * kib, RegsPerSM: 64 * kib, RegAllocUnit: 256,
		SharedPerBlock: 48 * kib, SharedPerBlockOptIn: 227 * kib, SharedPerSM: 228 * kib, SharedReservedPerBlk: 1 * kib,
		LocalPerThread: 512 * kib, ParamBytes: 4 * kib,
	},
}

// TargetByArch returns the target named arch (sm_52, …).
func TargetByArch(arch string) (Target, bool) {
	for _, t := range Targets {
		if t.Arch == arch {
			return t, true
		}
	}
	return Target{}, false
}

// BlockRegisters is the number of registers a block of threads threads uses
// when each thread uses regs: registers are allocated per warp, rounded up
// to the allocation unit.
func (t Target) BlockRegisters(threads, regs int) int {
	warps := (threads + t.WarpSize - 1) / t.WarpSize
	perWarp := roundUp(regs*t.WarpSize, t.RegAllocUnit)
	return warps * perWarp
}

// ResidentBlocks is the number of blocks of threads threads, regs registers
// a thread and shared bytes of shared memory that one multiprocessor holds
// at once (0: the block cannot run).
func (t Target) ResidentBlocks(threads, regs, shared int) int {
	if threads < 1 || threads > t.MaxThreadsPerBlock {
		return 0
	}
	n := min(t.MaxBlocksPerSM, t.MaxThreadsPerSM/threads)
	if r := t.BlockRegisters(threads, regs); r > 0 {
		n = min(n, t.RegsPerSM/r)
	}
	if s := shared + t.SharedReservedPerBlk; s > 0 {
		n = min(n, t.SharedPerSM/s)
	}
	return max(n, 0)
}

func roundUp(v, unit int) int {
	if unit <= 1 {
		return v
	}
	return (v + unit - 1) / unit * unit
}
