// Package cufft binds the batched 2-D real-to-complex and complex-to-real
// transforms of NVIDIA's cuFFT library (libcufft, from Debian's
// nvidia-cuda-dev) through cgo, for the CUDA device's gpu.Ops (RFFT2,
// IRFFT2) in package gpu/cuda.
//
// The package is built only with the l2ocuda build tag; without it the
// package is empty. A Plan transforms N images of H×W float32 values stored
// row-major into N spectra of H×(W/2+1) complex values (cuFFT's default
// layout, interleaved real and imaginary parts), and back, unnormalised,
// with exp(−2πi·…) forward as kernels.FFT2T. Device addresses are passed as
// integers (the CUdeviceptr values of gorgonia.org/cu); calls must run on a
// thread where the buffers' CUDA context is current, and run on the default
// stream, so they are ordered with the device's kernel launches.
package cufft
