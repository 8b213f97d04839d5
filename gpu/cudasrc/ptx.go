package cudasrc

import _ "embed"

//go:generate go run -tags nvrtc ./genptx

// PTXArch is the virtual architecture of PTX: compute_52, which the driver
// JIT-compiles on load for any GPU that CUDA 11 and later drivers support.
const PTXArch = "compute_52"

// PTX is Source compiled by NVRTC for PTXArch (kernels_compute_52.ptx,
// written by `go generate`; the nvrtc-tagged test of package gpu/nvrtc
// checks it against a fresh compilation). The CUDA device loads it, so a
// CUDA binary needs no NVRTC library at run time.
//
//go:embed kernels_compute_52.ptx
var PTX string
