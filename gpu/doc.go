// Package gpu is greedyl2o's device layer: where the values of tensors live,
// how they are copied between the host and a device, and how many bytes are in
// use.
//
// A Device allocates Buffers, copies float64 slices in and out of them, and
// counts the bytes of every buffer it has allocated (MemStats). CPU returns the
// default device, which keeps buffers in host memory; the memory benchmark
// reads its counters, and code that allocates host tensors outside a Device can
// report them with Track and Untrack. An Arena allocates the buffers of one
// run on a device's Ops, meters them (now and at peak) and frees them, with
// the run's other device resources (OnClose), in one Close: the device
// code paths of packages ondevice, steploss, learned, unroll and banert
// allocate through one arena per run.
//
// Ops are the array operations numerics run on a device (vectors, small
// convolutions, finite differences, Huber, pointwise products, batched real
// FFTs and spectral products), so that a computation written against Ops
// keeps its arrays on the device between calls: package ondevice builds the
// objective and the learned update's terms from them, and greedy and
// unrolled training run on any device that has them
// (greedy.Config.Target, unroll.Config.Target: execution.OnDevice). The
// CPU device implements them in float64 with the CPU kernels; commands
// resolve --device host to the CPU engine (package execution), so the CPU
// device serves tests and the conformance suites. Some Ops are fused: one
// call for a sequence of others (SpectralMulSum, AddIRFFT2, ConjSumIRFFT2,
// Conv2DResidual, GradAdjointAxpby, SetDot, AddHuberTV), which a device
// that launches kernels runs as fewer of them (at the step loss's sizes a
// kernel's cost is its launch) and the host devices run as that sequence,
// value for value.
// Package gpu/gputest holds the conformance suites every implementation
// passes (gputest.CheckOps for Ops: adjoint pairs, the FFT round trip and
// the spectral convolution against direct arithmetic, each fused operation
// against its sequence; CheckNetOps and
// CheckMat for the interfaces below).
//
// NetOps add the per-plane operations of Banert's network (reductions and
// affine combinations with host coefficients, the leaky ReLU mask, plane
// copies): ondevice.BanertLoss trains it on any device that has them, and
// ondevice.BatchEvaluator uses their per-plane reductions for the
// functions' values. MatOps (dense products) serve PF. SliceOps add a
// result into part of a buffer: ondevice.Unrolled gathers every step's
// parameter gradients in one readout. Both host devices and the CUDA
// device implement them.
//
// The backend knows arrays, not problems: this package and those under it
// import no problem package (TestBackendImportsNoProblemPackage). The
// problems build their operators on a device instead: tomo.NewDeviceRay
// (the CT ray transform), wcrr.NewDevicePotentials (the WCRR potentials)
// and mconv.NewDeviceConv (multi-channel convolutions). On the host devices
// (OnHost, which devices that embed one inherit) they compute on the
// buffers' values (HostValues); on a device that runs
// kernels by name (Launcher: the CUDA device, with the kernels of package
// gpu/cudasrc) they upload their tables and launch their kernels
// (UploadInt32Table, UploadFloat64Table, LaunchEach, LaunchBlocks with
// KernelArgs). Their suites are in package internal/optest.
//
// Other devices register themselves by name (Register) from packages that are
// linked in only when wanted: the CUDA device lives in package gpu/cuda behind
// the l2ocuda build tag, because importing gorgonia.org/cu ends the process at
// start on a machine without a GPU. Open("cuda") in a binary built without that
// tag returns an error that says how to build one with CUDA support.
//
// This package has no build tags and no cgo.
package gpu
