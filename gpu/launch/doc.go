// Package launch checks, without a GPU, that the CUDA device's kernel
// launches fit the GPUs the project targets: sm_52 (the embedded PTX's
// target), sm_70, sm_80 and sm_90 (Targets).
//
// Three pieces:
//
//   - the resource table (Table, from gpu/cudasrc/resources.tsv, embedded
//     as cudasrc.Resources): each kernel's registers, static shared memory,
//     stack and spills on each target, as ptxas reports them (Assemble,
//     Build; `go generate ./gpu/cudasrc` rewrites it, command genres);
//   - the launch model (Launches and one function per gpu/cuda operation):
//     the grid, block and dynamic shared memory of every launch gpu/cuda
//     makes, and the int values its kernel computes, for given sizes
//     (Workload; PaperWorkloads at the paper's largest sizes);
//   - the checker (Check, CheckAll): threads per block, registers per
//     block and multiprocessor (per-warp allocation), shared memory per
//     block (static plus dynamic, without the opt-in), local memory, grid
//     dimensions, and the kernels' 32-bit int arithmetic (thread index,
//     loop bounds, products of sizes), and gpu/cuda's 2³¹−1-value buffers.
//
// The tests fail when the table is out of date (the PTX's SHA-256 without
// ptxas; the assembly itself with ptxas, which CI installs: an error or a
// warning on any target fails), when a paper workload does not fit a
// target, and show that an oversized launch is refused. The l2ocuda-tagged
// test TestLaunchesMatchModel of gpu/cuda checks the model against the
// launches gpu/cuda really makes (recorded by the CPU emulation,
// scripts/cuda-emu).
package launch
