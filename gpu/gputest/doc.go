// Package gputest holds the conformance suites of package gpu's device
// interfaces, as net/http/httptest and testing/fstest sit beside their
// packages: a device implementation calls them from its tests, and passing
// them is the contract (docs/devices.md).
//
//   - CheckOps tests gpu.Ops: the adjoint pairs, the FFT round trip, the
//     spectral convolution against the direct circular convolution, the
//     vector operations and the Huber potential against host arithmetic.
//   - CheckNetOps tests gpu.NetOps (Banert's network): the multi-channel
//     convolution against package mconv and its adjoints, the per-plane
//     reductions and combinations, the leaky ReLU mask, plane copies and the
//     refusals of bad arguments.
//   - CheckRay tests gpu.RayOps (the CT ray transform) against package
//     tomo's projector and by its adjoint identity.
//   - CheckRidge tests gpu.RidgeOps (the WCRR potentials) against their
//     float64 formulas and central differences.
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
// (gpu.CheckMatArgs, gpu.CheckMConvAliasing, gpu.CheckCoefficients,
// gpu.CheckPlaneCopy, gpu.CheckRidgeParams) stay in package gpu.
package gputest
