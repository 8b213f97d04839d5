// Package nvrtc compiles CUDA C source to PTX with NVIDIA's run-time compiler
// NVRTC. NVRTC runs on the CPU, so this works on machines without a GPU: CI
// uses it to check that every kernel of package gpu/cudasrc compiles.
//
// The package is built only with the nvrtc or l2ocuda build tag (it links
// libnvrtc through gorgonia.org/cu/nvrtc, which, unlike gorgonia.org/cu, has
// no init function that needs a GPU). Without either tag it is empty.
package nvrtc
