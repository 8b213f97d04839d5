// Package mconv provides fast multi-channel 2-D cross-correlation kernels in
// plain Go, with the semantics of PyTorch's conv2d as used by convolutional
// neural networks: stride 1, zero "same" padding p = K/2 for an odd kernel
// size K, and an output with the same height and width as the input.
//
// Arrays are flat row-major float64 slices:
//
//	x    [N][Cin][H][W]   input images
//	w    [Cout][Cin][K][K] filters
//	bias [Cout]            optional
//	y    [N][Cout][H][W]  output images
//
// Forward computes
//
//	y[n,o,i,j] = bias[o] + Σ_c Σ_{u,v} w[o,c,u,v] · x[n,c,i+u−p,j+v−p]
//
// with x = 0 outside the image. AdjointInput and AdjointWeights are the exact
// transposes of Forward with respect to x and to w (the maps used by
// back-propagation and by gradient-based image reconstruction).
//
// The kernels split every row into an interior part, where all K taps are
// inside the image and the loop has no bounds tests, and a border part of p
// pixels on each side. Rows are streamed (one output row stays in cache while
// the K·Cin contributing input rows are swept), K = 3 and K = 5 have unrolled
// sliding-window inner loops, and work is spread over up to
// runtime.GOMAXPROCS(0) goroutines, one (image, output channel) plane or one
// (output, input) filter pair at a time.
//
// ForwardT, AdjointInputT and AdjointWeightsT are the same maps in float32
// (arithmetic in float32) or float64; Forward, AdjointInput and
// AdjointWeights are their float64 instances. On amd64 CPUs with AVX2
// (without the purego tag) the interior columns of the K = 3 and K = 5 rows
// run the Go assembly of package kernels/vec: Forward's and AdjointInput's
// row correlations a vector of columns at a time, AdjointWeights' row sums
// a vector of input channels at a time, each lane the scalar operations in
// their order, so the results are bitwise those of the plain loops.
//
// For K = 3 on amd64 CPUs with AVX2 and FMA (without the purego tag), the
// layers with many channels run vector kernels instead (tile.go, kernels
// vec.ConvAcc3x64, vec.ConvTile3x32 and vec.ConvWeightsRow3x), reading the
// input from a copy with a zero column on each side of every row. Forward
// and AdjointInput in float64, for three outputs or more: one output row of
// all outputs at a time, its sums in a buffer that stays in the L1 cache,
// each input row of the filter rows swept once, a vector of columns at a
// time, with the nine taps of three outputs held in registers (the sums go
// through memory, so no chain of additions limits the kernel); in float32,
// for eight outputs or more: eight outputs × twelve columns with the
// outputs in the lanes, their sums over all input channels and filter rows
// kept in registers, the taps of a filter row in registers and the inputs
// broadcast. AdjointWeights sums four outputs × a vector of input channels ×
// the three taps of a filter row along a row. In float64 every output is the
// scalar loops' operations in their order (a product per tap, the taps
// summed in the order of v, then added; the zero columns give the border
// columns the scalar products of borderTap), so the results are bitwise
// those of the plain loops and of the purego build; in float32 the kernels
// fuse multiply-adds and agree with the plain loops to rounding. The other
// outputs (Banert's last layer in float64; in float32 also the adjoint of
// its first and the outputs short of a tile) run the row kernels.
//
// For layers applied many times with the same filters, NewPlan prepares a
// Plan whose Forward and AdjointInput compute the same maps either directly
// or by FFT (zero-padded images, filter spectra computed once, products
// summed per frequency), whichever a simple cost model finds cheaper. For
// many channel pairs (wcrr's 8→60 5×5 layer on 96×96 images) the FFT path
// is several times faster than the direct kernels. On amd64 CPUs with AVX2
// and FMA the per-frequency products of the FFT path run in a small
// assembly kernel (cmac_amd64.s, four outputs at a time, sums over the
// inputs kept in registers); elsewhere, or built with the purego tag, in
// plain Go. Both agree to rounding. Plan.ForwardEach hands every output
// plane to a callback while it is still in cache, so that a pointwise map
// (wcrr's ψ') costs no extra pass over memory.
package mconv
