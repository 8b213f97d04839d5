// Package kernels holds the numerical kernels of greedyl2o as plain Go loops:
// small 2-D convolutions with zero, reflect and circular boundaries,
// image-sized circular convolutions by FFT, forward differences and their
// transposes, and the isotropic Huber potential of a gradient field.
//
// The kernels are written once, generic over Float (float32 or float64):
// ConvT, GradT, HuberT, DotT, FFT2T, FFTConvT. The float64 names the rest of
// the tool uses (Conv, Grad, Huber, Dot, FFT2, FFTConv) are those kernels'
// float64 instances. Reductions accumulate in float64 in either precision;
// the FFT works on Complex[F], laid out as complex64 / complex128.
//
// On amd64 with AVX2 (chosen at run time; the purego build tag leaves it
// out), the FFT butterflies of radix 3, 4 and 8 and DotT in both precisions,
// and the dense products of PF's reduced step (MatMulAddT, MatTMulAdd:
// 4 × 8 tiles of sums in registers) run the Go assembly of package vec, lane
// by lane the scalar operations in their order (a product, then a sum: no
// fused multiply-add): the results are bitwise those of the scalar loops,
// which every other build runs. The promise holds for Go's default GOAMD64=v1:
// at v3 the compiler may fuse x*y+z in the scalar loops themselves.
//
// Every kernel works on a batch stored contiguously as [N,H,W] (row-major) and
// overwrites its destination. Each linear kernel comes with its exact adjoint,
// so ⟨A x, y⟩ = ⟨x, Aᵀ y⟩ holds to rounding error; the graph package wraps
// these kernels as differentiable gorgonia operations.
//
// Kernels parallelise over the images of a batch with at most
// runtime.GOMAXPROCS(0) goroutines. Per-image results do not depend on the
// number of goroutines: each image is computed by exactly one goroutine.
// Reductions over the batch by chunks (ParallelChunks, Team, FFTPool.Run: one
// partial sum per chunk, added in chunk order) would follow GOMAXPROCS; the
// sums over functions of the step loss and the bound terms do not use them,
// but add per-image contributions in image order (internal/ordered), so that
// they are the one goroutine's loop bit for bit at any GOMAXPROCS.
package kernels
