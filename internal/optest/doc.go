// Package optest holds the conformance suites of the operators that the
// problems build on a device (package gpu's backends): every device
// implementation of them passes these, on the host devices in this
// package's tests and on the CUDA device in package gpu/cuda's.
//
//   - CheckRay tests tomo.NewDeviceRay (the CT ray transform) against tomo's
//     float64 projector and by its adjoint identity.
//   - CheckRidge tests wcrr.NewDevicePotentials (the WCRR potentials)
//     against their float64 formulas and central differences.
//   - CheckConv tests an mconv.DeviceConv (the multi-channel convolutions
//     of Banert's network and of WCRR) against mconv.Forward and by its
//     adjoint identities.
//
// They check with gputest.Checker, take a tolerance relative to the sizes
// involved (1e-12 suits float64 devices, 1e-5 float32 ones), return every
// failure joined into one error (nil when all pass), and free the buffers
// they allocate before they return. The problems' packages do not import
// this one, so that it can test them from outside.
package optest
