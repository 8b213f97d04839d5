// Package gpu is greedyl2o's device layer: where the values of tensors live,
// how they are copied between the host and a device, and how many bytes are in
// use.
//
// A Device allocates Buffers, copies float64 slices in and out of them, and
// counts the bytes of every buffer it has allocated (MemStats). CPU returns the
// default device, which keeps buffers in host memory; the memory benchmark
// reads its counters, and code that allocates host tensors outside a Device can
// report them with Track and Untrack.
//
// Other devices register themselves by name (Register) from packages that are
// linked in only when wanted: the CUDA device lives in package gpu/cuda behind
// the l2ocuda build tag, because importing gorgonia.org/cu ends the process at
// start on a machine without a GPU. Open("cuda") in a binary built without that
// tag returns an error that says how to build one with CUDA support.
//
// This package has no build tags and no cgo.
package gpu
