package gpu

// BytesPerFloat32 is the size of one value of a float32 buffer.
const BytesPerFloat32 = 4

// Host32Name is the name of the float32 host device: `--device host32`.
const Host32Name = "host32"

// Host32Device is a float32 device in host memory: buffers hold float32
// values, copies round to float32, and its Ops compute in float32 with
// float64 accumulators for the reductions, as the CUDA device does. It runs
// the device code paths of training in the CUDA device's precision on any
// machine, so that float32 effects can be measured and the CUDA device's
// tolerances checked without a GPU. The multi-channel convolutions of
// NetOps (MConv and its adjoints: Banert's network) compute in float32
// throughout, their sums too (mconv.ForwardT and its adjoints), on the
// vector kernels where the CPU has them.
type Host32Device = HostDeviceT[float32]

var host32 = newHostDevice[float32](Host32Name)

// Host32 returns the float32 host device, shared by the whole process.
func Host32() *Host32Device { return host32 }
