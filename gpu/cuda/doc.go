// Package cuda is the CUDA device of greedyl2o's device layer (package gpu),
// built on gorgonia.org/cu v0.9.6 (contexts, device memory, copies, MemInfo,
// module loading and kernel launches) with the CUDA C kernels of package
// gpu/cudasrc, loaded as the PTX that package embeds (compiled by NVRTC at
// build time; the driver JIT-compiles it), so that a CUDA binary needs only
// the driver's libcuda at start and finds cuFFT when it first transforms
// (package gpu/cufft).
//
// The package is built only with the l2ocuda build tag; without it the package
// is empty. Importing it registers the device "cuda" with gpu.Open. The
// vendored gorgonia.org/cu (third_party/cu) records cuInit's failure instead
// of exiting the process, so a tagged binary runs its CPU commands on a
// machine without a GPU and Open reports why it cannot (exit 2 from the
// commands). (The tag is not "cuda" because that tag switches gorgonia
// itself to its cuDNN engine.)
//
// Values on the device are float32 (4 bytes each); copies convert from and to
// float64. Reductions accumulate in double. The agreement tests (go test
// -tags l2ocuda ./gpu/cuda, on a machine with a GPU) compare every kernel with
// the float64 CPU kernels and expect a max-norm relative difference below
// 1e-5 (2e-5 for the ray transform and the multi-channel convolution, 1e-4
// for the Huber Hessian-vector product).
//
// Device implements gpu.Ops, the array operations greedy and unrolled
// training run on (--device cuda): the kernels above through gpu.Buffer,
// device-to-device copies, and RFFT2/IRFFT2 with cuFFT (package gpu/cufft,
// one plan per batch shape and direction); gpu.NetOps, the per-plane
// operations of Banert's network (reductions and affine combinations, leaky
// ReLU, plane copies); gpu.MatOps; and gpu.Launcher, which runs any kernel of
// gpu/cudasrc by name with buffer, int and float32 arguments and uploads
// int32 and float64 tables. The problems' operators run through Launcher:
// tomo's ray transform, wcrr's ridge potentials and mconv's multi-channel
// convolutions are built on the device by those packages (tomo.NewDeviceRay,
// wcrr.NewDevicePotentials, mconv.NewDeviceConv), so that this package
// depends on no problem package, only on package kernels for the small
// convolutions' boundary codes.
//
// Without a GPU, scripts/cuda-emu/run.sh runs this package's tests and the
// tagged binary against a CPU emulation of the driver and cuFFT: the Go code
// is this package's, unchanged; the kernels are gpu/cudasrc's CUDA C compiled
// for the CPU.
package cuda
