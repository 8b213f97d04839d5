//go:build !purego

package vec

import "golang.org/x/sys/cpu"

// AVX2 is whether the CPU (and the operating system) supports the kernels.
var AVX2 = cpu.X86.HasAVX2

// FMA is whether the CPU has fused multiply-add (the float32 kernels that
// fuse need it too).
var FMA = cpu.X86.HasFMA
