package launch

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu/cudasrc"
)

// The launch configurations of package gpu/cuda, operation by operation:
// one thread per value in blocks of cudasrc.BlockSize (gpu/cuda's
// launchEach), or a given number of blocks of cudasrc.BlockSize
// (launchBlocks). The functions below mirror gpu/cuda's wrappers; the
// l2ocuda-tagged test TestLaunchesMatchModel (gpu/cuda, on the CPU
// emulation, which records every launch) checks that they agree.

// Block is the threads per block of every launch.
const Block = cudasrc.BlockSize

// ReduceBlocks is the number of partial sums of gpu/cuda's Dot and Sum.
const ReduceBlocks = 128

func each(op, kernel string, n int64, ints ...Int) Config {
	return Config{Op: op, Kernel: kernel, Grid: (n + Block - 1) / Block, Block: Block, Ints: ints}
}

func blocks(op, kernel string, b int64, ints ...Int) Config {
	return Config{Op: op, Kernel: kernel, Grid: b, Block: Block, Ints: ints}
}

// loop is the largest value of a loop index i < n stepped by step.
func loop(what string, n, step int64) Int { return Int{what + " + step", n - 1 + step} }

func (c Config) buffers(b ...Int) Config { c.Buffers = append(c.Buffers, b...); return c }

// Conv2D is gpu/cuda's Conv2D on N images of H×W with a K×K kernel: a
// block a tile of cudasrc.ConvTile² outputs where K ≤ cudasrc.ConvMaxK,
// else one thread per output.
func Conv2D(n, h, w, k int64) []Config {
	if k <= cudasrc.ConvMaxK {
		return []Config{convTiles("Conv2D", "l2o_conv2d_tiled", n, h, w)}
	}
	return []Config{each("Conv2D", "l2o_conv2d", n*h*w, Int{"N·H·W", n * h * w}).buffers(Int{"images", n * h * w})}
}

// Conv2DAdjointImage is gpu/cuda's Conv2DAdjointImage: tiles as Conv2D's
// for the zero boundary (0) where K ≤ cudasrc.ConvMaxK, else one thread per
// output.
func Conv2DAdjointImage(n, h, w, k, boundary int64) []Config {
	if boundary == cudasrc.BoundaryZero && k <= cudasrc.ConvMaxK {
		return []Config{convTiles("Conv2DAdjointImage", "l2o_conv2d_adjoint_image_tiled", n, h, w)}
	}
	return []Config{each("Conv2DAdjointImage", "l2o_conv2d_adjoint_image", n*h*w, Int{"N·H·W", n * h * w}).buffers(Int{"images", n * h * w})}
}

// ConvTiles is the number of blocks of the tiled convolutions: one a
// cudasrc.ConvTile² tile of one image.
func ConvTiles(n, h, w int64) int64 {
	const t = cudasrc.ConvTile
	return n * ((h + t - 1) / t) * ((w + t - 1) / t)
}

func convTiles(op, kernel string, n, h, w int64) Config {
	return blocks(op, kernel, ConvTiles(n, h, w), Int{"N·H·W", n * h * w}).buffers(Int{"images", n * h * w})
}

// Conv2DAdjointKernel is gpu/cuda's Conv2DAdjointKernel: K·K blocks, each
// summing over the batch.
func Conv2DAdjointKernel(n, h, w, k int64) []Config {
	return []Config{blocks("Conv2DAdjointKernel", "l2o_conv2d_adjoint_kernel", k*k, Int{"N·H·W", n * h * w}, loop("N·H·W", n*h*w, Block)).buffers(Int{"images", n * h * w})}
}

// Grad is gpu/cuda's Grad: forward differences of N images into [N,2,H,W].
func Grad(n, h, w int64) []Config {
	return []Config{each("Grad", "l2o_grad", n*h*w, Int{"N·H·W", n * h * w}).buffers(Int{"field [N,2,H,W]", 2 * n * h * w})}
}

// GradAdjoint is gpu/cuda's GradAdjoint.
func GradAdjoint(n, h, w int64) []Config {
	return []Config{each("GradAdjoint", "l2o_grad_adjoint", n*h*w, Int{"N·H·W", n * h * w}).buffers(Int{"field [N,2,H,W]", 2 * n * h * w})}
}

// HuberValue is gpu/cuda's HuberValue: one block per image.
func HuberValue(n, hw int64) []Config {
	return []Config{blocks("HuberValue", "l2o_huber_value", n, loop("HW", hw, Block)).buffers(Int{"field [N,2,HW]", 2 * n * hw})}
}

// HuberDerivative is gpu/cuda's HuberDerivative.
func HuberDerivative(n, hw int64) []Config {
	return []Config{each("HuberDerivative", "l2o_huber_derivative", n*hw, Int{"N·HW", n * hw}).buffers(Int{"field [N,2,HW]", 2 * n * hw})}
}

// HuberHessVec is gpu/cuda's HuberHessVec.
func HuberHessVec(n, hw int64) []Config {
	return []Config{each("HuberHessVec", "l2o_huber_hessvec", n*hw, Int{"N·HW", n * hw}).buffers(Int{"field [N,2,HW]", 2 * n * hw})}
}

// Ridge is gpu/cuda's RidgePsi, RidgePsiPrime and RidgeHessVec on total
// values ([N,C,HW]).
func Ridge(total int64) []Config {
	var out []Config
	for _, k := range []struct{ op, kernel string }{{"RidgePsi", "l2o_ridge_psi"}, {"RidgePsiPrime", "l2o_ridge_psi_prime"}, {"RidgeHessVec", "l2o_ridge_hessvec"}} {
		out = append(out, each(k.op, k.kernel, total, Int{"N·C·HW", total}).buffers(Int{"activations [N,C,HW]", total}))
	}
	return out
}

// Axpy is gpu/cuda's Axpy on n values.
func Axpy(n int64) []Config {
	return []Config{each("Axpy", "l2o_axpy", n, Int{"n", n}).buffers(Int{"vector", n})}
}

// Axpby is gpu/cuda's Axpby on n values.
func Axpby(n int64) []Config {
	return []Config{each("Axpby", "l2o_axpby", n, Int{"n", n}).buffers(Int{"vector", n})}
}

// AxpyAt is gpu/cuda's AxpyAt of n values into a buffer of total values
// (the value indices reach total).
func AxpyAt(n, total int64) []Config {
	return []Config{each("AxpyAt", "l2o_axpy_at", n, Int{"n", n}, Int{"off + n", total}).buffers(Int{"x", n}, Int{"y", total})}
}

// NAGUpdate is gpu/cuda's NAGUpdate on n values: one kernel, the count
// advanced by its last block.
func NAGUpdate(n int64) []Config {
	return []Config{each("NAGUpdate", "l2o_nag_update", n, Int{"n", n}).buffers(Int{"vector", n})}
}

// reduce is a one-kernel reduction over n values: ReduceBlocks blocks,
// the last to finish adding the partial sums.
func reduce(op, kernel string, n int64) []Config {
	return []Config{blocks(op, kernel, ReduceBlocks, Int{"n", n}, loop("n", n, ReduceBlocks*Block)).buffers(Int{"vector", n})}
}

// Dot is gpu/cuda's Dot on n values: one l2o_dot_reduce.
func Dot(n int64) []Config { return reduce("Dot", "l2o_dot_reduce", n) }

// Sum is gpu/cuda's Sum on n values.
func Sum(n int64) []Config { return reduce("Sum", "l2o_sum_reduce", n) }

// AddDot is gpu/cuda's AddDot on n values: Dot's kernel, into a readout's
// sum.
func AddDot(n int64) []Config { return reduce("AddDot", "l2o_dot_reduce", n) }

// AddSum is gpu/cuda's AddSum on n values.
func AddSum(n int64) []Config { return reduce("AddSum", "l2o_sum_reduce", n) }

// AddHuberValue is gpu/cuda's AddHuberValue: a one-kernel reduction over
// the N·HW points into a readout's sum.
func AddHuberValue(n, hw int64) []Config {
	return []Config{blocks("AddHuberValue", "l2o_huber_reduce", ReduceBlocks, Int{"N·HW", n * hw}, loop("N·HW", n*hw, ReduceBlocks*Block)).buffers(Int{"field [N,2,HW]", 2 * n * hw})}
}

// AddHuberTV is gpu/cuda's AddHuberTV: as AddHuberValue, its kernel
// computing the differences and writing the derivative too.
func AddHuberTV(n, hw int64) []Config {
	return []Config{blocks("AddHuberTV", "l2o_huber_tv_reduce", ReduceBlocks, Int{"N·HW", n * hw}, loop("N·HW", n*hw, ReduceBlocks*Block)).buffers(Int{"field [N,2,HW]", 2 * n * hw})}
}

// SpectralMulSum is gpu/cuda's SpectralMulSum: one thread per complex
// value of the batch's spectra.
func SpectralMulSum(n, h, w int64) []Config {
	sl := spectrumLen(h, w)
	return []Config{each("SpectralMulSum", "l2o_spectral_mul_sum", n*sl/2, Int{"N·SL/2", n * sl / 2}, Int{"2·q+1 (SL)", sl}).buffers(Int{"spectra", n * sl})}
}

// AddIRFFT2 is the kernel gpu/cuda's AddIRFFT2 launches after cuFFT's
// transform: x + the transform scaled by 1/(H·W).
func AddIRFFT2(n, h, w int64) []Config {
	return []Config{each("AddIRFFT2", "l2o_add_scaled", n*h*w, Int{"N·H·W", n * h * w}).buffers(Int{"images", n * h * w}, Int{"spectra", n * spectrumLen(h, w)})}
}

// spectrumLen is gpu.Batch.SpectrumLen: values (two per complex value) of
// one image's half spectrum.
func spectrumLen(h, w int64) int64 { return 2 * h * (w/2 + 1) }

// IRFFT2 is the kernel gpu/cuda's IRFFT2 launches after cuFFT's transform:
// the scaling by 1/(H·W) (cuFFT's own launches are not modelled).
func IRFFT2(n, h, w int64) []Config {
	return []Config{each("IRFFT2", "l2o_scale", n*h*w, Int{"N·H·W", n * h * w}).buffers(Int{"images", n * h * w}, Int{"spectra", n * spectrumLen(h, w)})}
}

// MulAdd is gpu/cuda's MulAdd on N images of hw pixels.
func MulAdd(n, hw int64) []Config {
	return []Config{each("MulAdd", "l2o_mul_add", n*hw, Int{"N·HW", n * hw}).buffers(Int{"images", n * hw})}
}

// ProductSum is gpu/cuda's ProductSum: one thread per pixel of one image.
func ProductSum(n, hw int64) []Config {
	return []Config{each("ProductSum", "l2o_product_sum", hw, Int{"HW", hw}).buffers(Int{"images", n * hw})}
}

// SpectralMulAdd is gpu/cuda's SpectralMulAdd: one thread per complex value
// of the batch's spectra.
func SpectralMulAdd(n, h, w int64) []Config {
	sl := spectrumLen(h, w)
	return []Config{each("SpectralMulAdd", "l2o_spectral_mul_add", n*sl/2, Int{"N·SL/2", n * sl / 2}, Int{"2·q+1 (SL)", sl}).buffers(Int{"spectra", n * sl})}
}

// SpectralConjSum is gpu/cuda's SpectralConjSum: cudasrc.ConjSumValues
// complex values of one spectrum a block, the images summed in the block's
// lanes.
func SpectralConjSum(n, h, w int64) []Config {
	sl := spectrumLen(h, w)
	const v = cudasrc.ConjSumValues
	return []Config{blocks("SpectralConjSum", "l2o_spectral_conj_sum", (sl/2+v-1)/v, Int{"2·q+1 (SL)", sl}).buffers(Int{"spectra", n * sl})}
}

// MConvShape is mconv.Shape: N images of Cin channels to Cout channels of
// H×W, K×K kernels.
type MConvShape struct{ N, Cin, Cout, H, W, K int64 }

func (s MConvShape) bufs() []Int {
	hw := s.H * s.W
	return []Int{{"input [N,Cin,H,W]", s.N * s.Cin * hw}, {"output [N,Cout,H,W]", s.N * s.Cout * hw}, {"weights", s.Cout * s.Cin * s.K * s.K}}
}

// MConv is gpu/cuda's MConv (MconvForward).
func MConv(s MConvShape) []Config {
	out := s.N * s.Cout * s.H * s.W
	return []Config{each("MConv", "l2o_mconv_forward", out, Int{"N·Cout·H·W", out}).buffers(s.bufs()...)}
}

// MConvAdjointInput is gpu/cuda's MConvAdjointInput.
func MConvAdjointInput(s MConvShape) []Config {
	in := s.N * s.Cin * s.H * s.W
	return []Config{each("MConvAdjointInput", "l2o_mconv_adjoint_input", in, Int{"N·Cin·H·W", in}).buffers(s.bufs()...)}
}

// MConvAdjointWeights is gpu/cuda's MConvAdjointWeights: one block per
// weight (one per pair of channels for 3×3 kernels), then (bias) one block
// per output channel.
func MConvAdjointWeights(s MConvShape, bias bool) []Config {
	nhw := s.N * s.H * s.W
	out := []Config{blocks("MConvAdjointWeights", "l2o_mconv_adjoint_weights", s.Cout*s.Cin*s.K*s.K, Int{"N·H·W", nhw}, loop("N·H·W", nhw, Block)).buffers(s.bufs()...)}
	if s.K == 3 {
		out = []Config{blocks("MConvAdjointWeights", "l2o_mconv_adjoint_weights3", s.Cout*s.Cin, Int{"N·H·W", nhw}, loop("N·H·W", nhw, Block)).buffers(s.bufs()...)}
	}
	if bias {
		out = append(out, blocks("MConvAdjointWeights", "l2o_mconv_adjoint_bias", s.Cout, Int{"N·H·W", nhw}, loop("N·H·W", nhw, Block)))
	}
	return out
}

// PlaneDots is gpu/cuda's PlaneDots: one block per plane of hw values.
func PlaneDots(planes, hw int64) []Config {
	return []Config{blocks("PlaneDots", "l2o_plane_dots", planes, loop("HW", hw, Block)).buffers(Int{"planes", planes * hw})}
}

// PlaneCombine is gpu/cuda's PlaneCombine.
func PlaneCombine(planes, hw int64) []Config {
	return []Config{each("PlaneCombine", "l2o_plane_combine", planes*hw, Int{"planes·HW", planes * hw}, Int{"3·plane+2", 3 * planes}).buffers(Int{"planes", planes * hw})}
}

// PlaneDotsAdd is gpu/cuda's PlaneDotsAdd: one block per plane.
func PlaneDotsAdd(planes, hw int64) []Config {
	return []Config{blocks("PlaneDotsAdd", "l2o_plane_dots_add", planes, loop("HW", hw, Block)).buffers(Int{"planes", planes * hw})}
}

// PlaneSafeguard is gpu/cuda's PlaneSafeguard: one block per plane.
func PlaneSafeguard(planes, hw int64) []Config {
	return []Config{blocks("PlaneSafeguard", "l2o_plane_safeguard", planes, loop("HW", hw, Block)).buffers(Int{"planes", planes * hw})}
}

// PlaneSafeguardBackward is gpu/cuda's PlaneSafeguardBackward.
func PlaneSafeguardBackward(planes, hw int64) []Config {
	return []Config{blocks("PlaneSafeguardBackward", "l2o_plane_safeguard_backward", planes, loop("HW", hw, Block)).buffers(Int{"planes", planes * hw})}
}

// PlaneNormalize is gpu/cuda's PlaneNormalize: one block per plane.
func PlaneNormalize(planes, hw int64) []Config {
	return []Config{blocks("PlaneNormalize", "l2o_plane_normalize", planes, loop("HW", hw, Block)).buffers(Int{"planes", planes * hw})}
}

// PlaneNormalizeBackward is gpu/cuda's PlaneNormalizeBackward.
func PlaneNormalizeBackward(planes, hw int64) []Config {
	return []Config{blocks("PlaneNormalizeBackward", "l2o_plane_normalize_backward", planes, loop("HW", hw, Block)).buffers(Int{"planes", planes * hw})}
}

// LeakyMask is gpu/cuda's LeakyMask on n values.
func LeakyMask(n int64) []Config {
	return []Config{each("LeakyMask", "l2o_leaky_mask", n, Int{"n", n}).buffers(Int{"vector", n})}
}

// CopyPlanes is gpu/cuda's CopyPlanes: count planes of hw values into a
// buffer of dstPlanes planes.
func CopyPlanes(count, hw, dstPlanes int64) []Config {
	return []Config{each("CopyPlanes", "l2o_copy_planes", count*hw, Int{"count·HW", count * hw}, Int{"plane index", dstPlanes}).buffers(Int{"planes", dstPlanes * hw})}
}

// tiles is the number of cudasrc.TileSize tiles that cover n values.
func tiles(n int64) int64 { return (n + cudasrc.TileSize - 1) / cudasrc.TileSize }

// MatMulAdd is gpu/cuda's MatMulAdd: N vectors of M = H·W values, an M×M
// matrix; one block a tile of TileSize × TileSize outputs.
func MatMulAdd(n, m int64) []Config {
	return []Config{blocks("MatMulAdd", "l2o_mat_mul_add", tiles(m)*tiles(n), Int{"block index", tiles(m) * tiles(n)}, loop("M", m, cudasrc.TileSize),
		Int{"tile rows", tiles(n) * cudasrc.TileSize}).buffers(Int{"matrix M×M", m * m}, Int{"vectors", n * m})}
}

// OuterSum is gpu/cuda's OuterSum: one block a tile of TileSize × TileSize
// matrix values, summing over the N vectors.
func OuterSum(n, m int64) []Config {
	return []Config{blocks("OuterSum", "l2o_outer_sum", tiles(m)*tiles(m), Int{"block index", tiles(m) * tiles(m)}, loop("N", n, cudasrc.TileSize),
		Int{"tile rows", tiles(m) * cudasrc.TileSize}).buffers(Int{"matrix M×M", m * m}, Int{"vectors", n * m})}
}

// Ray is gpu/cuda's RayTransform Forward and Adjoint on batch images of
// size×size, angles angles of det bins.
func Ray(batch, size, angles, det int64) []Config {
	sino, img := batch*angles*det, batch*size*size
	var out []Config
	for _, k := range []struct{ op, kernel string }{{"RayForward", "l2o_ray_forward"}, {"RayAdjoint", "l2o_ray_adjoint"}} {
		out = append(out, each(k.op, k.kernel, sino, Int{"B·A·Det", sino}, Int{"N·N", size * size}).buffers(Int{"sinograms", sino}, Int{"images", img}))
	}
	return out
}

// Workload is a training or evaluation run at one size: what it puts on the
// device (every device code path batches all N functions at once).
type Workload struct {
	Name    string
	N, H, W int64 // functions and image size
	K       int64 // largest small convolution kernel: the blur (5×5), PC-k
	FFT     bool  // spectral parametrizations (PC, M-PC: cuFFT and spectral products)
	Banert  bool  // Banert's network: 4 inputs, banert.Width channels, 3×3
	WCRR    bool  // the weakly convex ridge regularizer: 1 → 4 → 8 → 60 channels, 5×5
	Angles  int64 // CT: angles and detector bins (0: no ray transform)
	Det     int64
	PF      bool // PF's dense M×M products, M = H·W
}

// Banert's network and WCRR's convolutions (packages banert and wcrr).
const (
	BanertInputs = 4
	BanertWidth  = 32
	BanertK      = 3
)

// WCRRChannels are the channels of the WCRR convolutions, input first;
// WCRRK their kernel size.
var WCRRChannels = []int64{1, 4, 8, 60}

// WCRRK is the WCRR convolutions' kernel size.
const WCRRK = 5

// Launches is every kernel launch w makes, at the largest size each
// operation takes in it.
func Launches(w Workload) []Config {
	n, h, wd := w.N, w.H, w.W
	hw := h * wd
	var out []Config
	add := func(c ...Config) { out = append(out, c...) }
	// the objective: blur (or CT), Huber-TV; the updates' vectors
	k := max(w.K, 1)
	add(Conv2D(n, h, wd, k)...)
	add(Conv2D(n, h, wd, cudasrc.ConvMaxK+2)...) // a kernel larger than the tiles take
	add(Conv2DAdjointImage(n, h, wd, k, cudasrc.BoundaryZero)...)
	add(Conv2DAdjointImage(n, h, wd, k, cudasrc.BoundaryReflect)...)
	add(Conv2DAdjointKernel(n, h, wd, k)...)
	add(Grad(n, h, wd)...)
	add(GradAdjoint(n, h, wd)...)
	add(HuberValue(n, hw)...)
	add(AddHuberValue(n, hw)...)
	add(HuberDerivative(n, hw)...)
	add(AddHuberTV(n, hw)...)
	add(HuberHessVec(n, hw)...)
	vec := 2 * n * hw // the largest vector: a gradient field
	if w.FFT {
		vec = max(vec, n*spectrumLen(h, wd))
		add(IRFFT2(n, h, wd)...)
		add(SpectralMulAdd(n, h, wd)...)
		add(SpectralMulSum(n, h, wd)...)
		add(AddIRFFT2(n, h, wd)...)
		add(SpectralConjSum(n, h, wd)...)
		add(NAGUpdate(hw)...) // NAG's iterates of a PC block
	}
	add(MulAdd(n, hw)...)
	add(ProductSum(n, hw)...)
	add(Axpy(vec)...)
	add(Axpby(vec)...)
	add(AxpyAt(hw, vec)...) // a parameter image (an unrolled step's gradient) gathered into a readout
	add(Dot(vec)...)
	add(Sum(vec)...)
	add(AddDot(vec)...)
	add(AddSum(vec)...)
	var layers []MConvShape
	if w.Banert {
		layers = append(layers,
			MConvShape{n, BanertInputs, BanertWidth, h, wd, BanertK},
			MConvShape{n, BanertWidth, BanertWidth, h, wd, BanertK},
			MConvShape{n, BanertWidth, 1, h, wd, BanertK})
		planes := n * BanertWidth
		add(PlaneDots(planes, hw)...)
		add(PlaneCombine(planes, hw)...)
		add(PlaneDotsAdd(planes, hw)...)
		add(PlaneSafeguard(planes, hw)...)
		add(PlaneSafeguardBackward(planes, hw)...)
		add(PlaneNormalize(planes, hw)...)
		add(PlaneNormalizeBackward(planes, hw)...)
		add(LeakyMask(planes * hw)...)
		add(CopyPlanes(n, hw, n*BanertInputs)...)
	}
	if w.WCRR {
		for i := 0; i+1 < len(WCRRChannels); i++ {
			layers = append(layers, MConvShape{n, WCRRChannels[i], WCRRChannels[i+1], h, wd, WCRRK})
		}
		add(Ridge(n * WCRRChannels[len(WCRRChannels)-1] * hw)...)
	}
	for _, s := range layers {
		add(MConv(s)...)
		add(MConvAdjointInput(s)...)
		add(MConvAdjointWeights(s, true)...)
	}
	if w.Angles > 0 {
		add(Ray(n, h, w.Angles, w.Det)...)
	}
	if w.PF {
		add(MatMulAdd(n, hw)...)
		add(OuterSum(n, hw)...)
	}
	return out
}

// Paper's sizes: Problem 1 (deblurring, 96×96, N = 25, every method), the
// greedy step at scale (256×256, N = 1,000), Problem 2 (CT, 256×256;
// ct-small 40×40 with PF).
var (
	// PaperWorkloads fit every target.
	PaperWorkloads = []Workload{
		{Name: "deblur 96²×25, every method (PC-k, M-PC, PF, Banert, WCRR)", N: 25, H: 96, W: 96, K: 5, FFT: true, Banert: true, WCRR: true, PF: true},
		{Name: "deblur 256²×1000, greedy and unrolled (M-PC, PC-k)", N: 1000, H: 256, W: 256, K: 5, FFT: true},
		{Name: "deblur 256²×1000, Banert", N: 1000, H: 256, W: 256, K: 5, Banert: true},
		{Name: "ct 256²×1000 (180 angles, 363 bins)", N: 1000, H: 256, W: 256, K: 5, FFT: true, Angles: 180, Det: 363},
		{Name: "ct-small 40²×1000, PF (90 angles, 57 bins)", N: 1000, H: 40, W: 40, K: 5, FFT: true, Angles: 90, Det: 57, PF: true},
	}
	// RefusedWorkloads do not fit one device buffer (gpu/cuda's Alloc
	// refuses them with an error before any launch): WCRR's 60 channels of
	// 1,000 256×256 images are 3.9·10⁹ values, PF's matrix at 256×256 is
	// 4.3·10⁹.
	RefusedWorkloads = []Workload{
		{Name: "deblur-wcrr 256²×1000", N: 1000, H: 256, W: 256, K: 5, WCRR: true},
		{Name: "PF 256²×25", N: 25, H: 256, W: 256, K: 5, PF: true},
	}
)

func (w Workload) String() string {
	return fmt.Sprintf("%s (N=%d, %d×%d)", w.Name, w.N, w.H, w.W)
}
