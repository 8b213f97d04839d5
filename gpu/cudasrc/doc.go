// Package cudasrc holds the CUDA C source of greedyl2o's device kernels as a
// Go string, and its compilation to PTX (PTX, embedded from the file `go
// generate` writes with NVRTC), which the CUDA device (package gpu/cuda)
// loads; package gpu/nvrtc compiles the source in CI and checks that the
// embedded PTX is current. Resources (resources.tsv, embedded) is what
// ptxas makes of that PTX for each target GPU architecture: every kernel's
// registers, shared memory, stack and spills, which package gpu/launch
// checks the CUDA device's launches against. This package depends on
// neither and has no build tags and no cgo.
//
// All kernels work on float32 values with int sizes, are declared extern "C"
// (their PTX entry names are the names in Kernels) and use one thread per
// output value unless noted. Reductions accumulate in double and sum in a
// fixed order, so they are deterministic: one block of BlockSize threads per
// output value, or, over a whole vector, a fixed grid whose last block to
// finish (counted in a ticket) adds the blocks' partial sums in block order,
// one kernel in all; the adjoint ray transform scatters with atomicAdd, so
// its rounding depends on scheduling. Signs, scales and the subtraction of
// data ride in the kernels next to them (their parameters) rather than in
// passes of their own: at the step loss's sizes a kernel's cost on a GPU is
// its launch.
//
// Layouts follow the CPU kernels: image batches [N,H,W], gradient fields
// [N,2,H,W] (packages kernels and graph), multi-channel activations [N,C,H,W]
// with weights [Cout,Cin,K,K] (package mconv), sinograms [N,Angles,Det]
// (package tomo, whose per-angle and per-ray tables the ray kernels read).
package cudasrc
