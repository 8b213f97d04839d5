// Package ondevice computes the pieces of a learned update with a device's
// array operations (package gpu's Ops), so that training code can keep its
// arrays on the device between operations: the objective of a batch of
// deblurring functions (value, gradient and Hessian-vector product) and the
// terms G_θ v of the built-in parametrizations (PS, PP, PC-k, PC, PF) with
// their transposes and parameter gradients, and, from them, the learned
// update x⁺ = x − G_θ g + H_φ p with its vector–Jacobian product (Update),
// written once for its three users: the greedy step loss's device pass
// (package steploss), the iterations of a learned optimizer (Iteration:
// Algorithm 2) and the unrolled loss with its reverse pass (Unrolled).
// Banert et al.'s learned method (package baselines/banert, its network's
// layout in package baselines/banert/arch) runs here too: its unrolled
// loss with a hand-written reverse pass through the network (BanertLoss)
// and its iterations (BanertIteration), on the device's network operations
// (gpu.NetOps).
//
// Everything here is written against gpu.Ops only: on gpu.CPU() it runs in
// float64 on the host (and is tested against the CPU kernels and the
// gorgonia graphs), on the CUDA device of package gpu/cuda in float32 with
// float64 reductions. Parameters and the gradients with respect to them live
// on the host (they are small); images, spectra and residuals live on the
// device.
//
// The objective must have a device form (problem.DeviceForm): a blur or the
// CT ray transform (tomo.NewDeviceRay), with Huber-TV, the weakly
// convex ridge regularizer (mconv.NewDeviceConv, wcrr.NewDevicePotentials) or no
// regularizer. BatchEvaluator gives any method f and ∇f of a batch from the
// device.
//
// Objectives and terms are built on a gpu.Arena (NewObjective, NewTerm,
// NewDeviceTerm): they allocate from it and own no memory of their own, so
// a run (a step loss, an unrolled loss, an optimizer's iterations) builds
// them on its one arena, reads what it holds from the arena's meter and
// frees everything with the arena's Close.
package ondevice
