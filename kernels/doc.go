// Package kernels holds the numerical kernels of greedyl2o as plain Go loops over
// float64 slices: small 2-D convolutions with zero, reflect and circular
// boundaries, image-sized circular convolutions by FFT, forward differences and
// their transposes, and the isotropic Huber potential of a gradient field.
//
// Every kernel works on a batch stored contiguously as [N,H,W] (row-major) and
// overwrites its destination. Each linear kernel comes with its exact adjoint,
// so ⟨A x, y⟩ = ⟨x, Aᵀ y⟩ holds to rounding error; the graph package wraps
// these kernels as differentiable gorgonia operations.
//
// Kernels parallelise over the images of a batch with at most
// runtime.GOMAXPROCS(0) goroutines. Results do not depend on the number of
// goroutines: each image is computed by exactly one goroutine and reductions
// over the batch are summed in a fixed order.
package kernels
