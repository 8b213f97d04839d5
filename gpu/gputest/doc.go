// Package gputest holds the conformance suites of package gpu's device
// interfaces, as net/http/httptest and testing/fstest sit beside their
// packages: a device implementation calls them from its tests, and passing
// them is the contract (docs/devices.md).
//
//   - CheckOps tests gpu.Ops: the adjoint pairs, the FFT round trip, the
//     spectral convolution against the direct circular convolution, the
//     vector operations and the Huber potential against host arithmetic.
//   - CheckNetOps tests gpu.NetOps (Banert's network): the per-plane
//     reductions and combinations, the leaky ReLU mask, plane copies and the
//     refusals of bad arguments.
//   - CheckMat tests gpu.MatOps (PF's dense products) against host
//     arithmetic and by their adjoint identities.
//
// Each takes a tolerance relative to the sizes involved (1e-12 suits float64
// devices, 1e-5 float32 ones), returns every failure joined into one error
// (nil when all pass), and frees the buffers it allocates before it returns.
// The names keep their verb: gputest.CheckOps reads as what it does, and a
// function called Test… in a test-support package would collide with the
// test functions of the packages that use it.
//
// The argument checks the implementations themselves call
// (gpu.CheckMatArgs, gpu.CheckCoefficients, gpu.CheckPlaneCopy) stay in
// package gpu. The operators that problems build on a device (tomo's ray
// transform, wcrr's ridge potentials, mconv's convolutions) have their
// suites in package internal/optest, which checks with this package's
// Checker.
package gputest
