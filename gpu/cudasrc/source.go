package cudasrc

// BlockSize is the number of threads per block that the reduction kernels
// assume (a power of two). Elementwise kernels accept any block size.
const BlockSize = 256

// ConjSumValues is the number of complex values of one spectrum that a block
// of l2o_spectral_conj_sum sums over the images (L2O_CONJ_VALUES).
const ConjSumValues = 32

// ConvTile is the side of the output tiles of the tiled small convolutions
// (l2o_conv2d_tiled, l2o_conv2d_adjoint_image_tiled): ConvTile² = BlockSize
// threads a tile; ConvMaxK is the largest kernel they take (their shared
// memory holds a tile extended by K−1 and the kernel).
const (
	ConvTile = 16
	ConvMaxK = 17
)

// TileSize is the side of the output tiles of the dense products
// (l2o_mat_mul_add, l2o_outer_sum): one block of BlockSize = TileSize²
// threads a tile.
const TileSize = 16

// The tiles fill a block exactly.
var _ [BlockSize - TileSize*TileSize]struct{}
var _ [TileSize*TileSize - BlockSize]struct{}

// Boundary codes of the small convolution kernels, equal to the values of
// kernels.Boundary.
const (
	BoundaryZero     = 0
	BoundaryReflect  = 1
	BoundaryCircular = 2
)

// Kernels lists the entry points of Source with their launch shape.
var Kernels = []Kernel{
	{"l2o_conv2d", "y, x, k, sub, N, H, W, K, boundary", "one thread per y value; sub (subtracted from y) may be 0"},
	{"l2o_conv2d_tiled", "y, x, k, sub, N, H, W, K, boundary", "N·⌈H/ConvTile⌉·⌈W/ConvTile⌉ blocks of BlockSize = ConvTile²: a tile of y a block; K ≤ ConvMaxK; sub (subtracted from y) may be 0"},
	{"l2o_conv2d_adjoint_image", "x, y, k, N, H, W, K, boundary", "one thread per x value"},
	{"l2o_conv2d_adjoint_image_tiled", "x, y, k, N, H, W, K", "as l2o_conv2d_tiled, zero boundary only"},
	{"l2o_conv2d_adjoint_kernel", "g, x, y, N, H, W, K, boundary", "K·K blocks of BlockSize"},
	{"l2o_grad", "d, x, N, H, W", "one thread per pixel"},
	{"l2o_grad_adjoint", "x, d, N, H, W, a, b", "one thread per pixel; x = a·Dᵀd + b·x (b = 0: x not read)"},
	{"l2o_huber_value", "vals, d, N, HW, eps", "N blocks of BlockSize; vals is double[N]"},
	{"l2o_huber_reduce", "out, partial, ticket, d, HW, eps, n, c, set", "any grid of BlockSize over the n = N·HW points; as l2o_dot_reduce"},
	{"l2o_huber_derivative", "g, d, N, HW, eps", "one thread per pixel"},
	{"l2o_huber_tv_reduce", "out, partial, ticket, g, x, H, W, eps, n, c, set", "as l2o_huber_reduce over the differences of x ([N,H,W]; n = N·H·W), writing l2o_huber_derivative's g ([N,2,H,W]) of them"},
	{"l2o_huber_hessvec", "out, d, u, N, HW, eps", "one thread per pixel"},
	{"l2o_ridge_psi", "out, z, h, t, mu, C, HW, total", "one thread per value"},
	{"l2o_ridge_psi_prime", "out, z, h, t, mu, C, HW, total", "one thread per value"},
	{"l2o_ridge_hessvec", "out, z, u, h, t, mu, C, HW, total", "one thread per value"},
	{"l2o_axpy", "y, a, x, n", "one thread per value"},
	{"l2o_axpby", "y, a, x, b, n", "one thread per value"},
	{"l2o_axpy_at", "y, off, a, x, n", "one thread per value of x"},
	{"l2o_dot_reduce", "out, partial, ticket, x, y, n, c, set", "any grid of at most BlockSize blocks of BlockSize; partial is double[gridDim], ticket one unsigned int, 0 before and after; out is double[1], to which c times the sum is added (set: which it becomes)"},
	{"l2o_sum_reduce", "out, partial, ticket, x, n, c, set", "as l2o_dot_reduce"},
	{"l2o_scale", "x, s, n", "one thread per value"},
	{"l2o_add_scaled", "dst, x, s, y, n", "one thread per value; dst = x + s·y, dst may be x"},
	{"l2o_nag_update", "u, y, g, ref, betas, count, ticket, nb, c, lambda, step, n", "one thread per value, in blocks of BlockSize; ticket as l2o_dot_reduce's"},
	{"l2o_mul_add", "dst, t, v, c, HW, total", "one thread per batch value"},
	{"l2o_product_sum", "dst, r, v, N, HW", "one thread per pixel of one image"},
	{"l2o_spectral_mul_add", "dst, t, v, SL, total", "one thread per complex value of the batch's spectra"},
	{"l2o_spectral_mul_sum", "dst, t0, v0, c0, t1, v1, c1, SL, total", "one thread per complex value of the batch's spectra; t1, v1 may be 0"},
	{"l2o_spectral_conj_sum", "dst, v, z, N, SL, scale", "⌈SL/ConjSumValues⌉ blocks of BlockSize: ConjSumValues complex values of one spectrum a block, BlockSize/ConjSumValues lanes each"},
	{"l2o_mconv_forward", "y, x, w, bias, N, Cin, Cout, H, W, K", "one thread per y value; bias may be 0"},
	{"l2o_mconv_adjoint_input", "x, y, w, N, Cin, Cout, H, W, K", "one thread per x value"},
	{"l2o_mconv_adjoint_weights", "gw, x, y, N, Cin, Cout, H, W, K", "Cout·Cin·K·K blocks of BlockSize"},
	{"l2o_mconv_adjoint_weights3", "gw, x, y, N, Cin, Cout, H, W", "Cout·Cin blocks of BlockSize; 3×3 kernels only"},
	{"l2o_mconv_adjoint_bias", "gb, y, N, Cout, HW", "Cout blocks of BlockSize"},
	{"l2o_plane_dots", "vals, x, y, HW", "one block of BlockSize per plane; vals is double[planes]; y may be 0 (plane sums)"},
	{"l2o_plane_combine", "y, coef, x, z, HW, total", "one thread per value; coef is (a, b, c) per plane; z may be 0"},
	{"l2o_plane_dots_add", "acc, x, y, HW", "one block of BlockSize per plane; acc[plane] += the plane's sum; y may be 0 (plane sums)"},
	{"l2o_plane_normalize", "z, scale, x, HW, eps", "one block of BlockSize per plane; z may be x"},
	{"l2o_plane_normalize_backward", "u, z, scale, HW", "one block of BlockSize per plane"},
	{"l2o_plane_safeguard", "delta, h, g, HW, alpha", "one block of BlockSize per plane"},
	{"l2o_plane_safeguard_backward", "bh, bg, u, h, g, HW, alpha", "one block of BlockSize per plane; bh, bg distinct from u, h, g"},
	{"l2o_leaky_mask", "dst, x, u, slope, n", "one thread per value"},
	{"l2o_copy_planes", "dst, src, dstStart, dstStep, srcStart, srcStep, HW, total", "one thread per copied value"},
	{"l2o_mat_mul_add", "dst, a, v, c, transpose, N, M", "⌈M/TileSize⌉·⌈N/TileSize⌉ blocks of BlockSize (one thread per batch value, in tiles); a is M×M"},
	{"l2o_outer_sum", "dst, r, v, N, M", "⌈M/TileSize⌉² blocks of BlockSize (one thread per matrix value, in tiles); dst is M×M"},
	{"l2o_ray_forward", "y, x, trans, step, weight, start, first, end, B, N, A, Det, scale, sub", "one thread per ray and image; y = scale·Ax − sub, sub may be 0"},
	{"l2o_ray_adjoint", "x, y, trans, step, weight, start, first, end, B, N, A, Det, scale", "one thread per ray and image; x zeroed first; x += scale·Aᵀy"},
}

// Kernel describes one entry point of Source.
type Kernel struct {
	Name   string // extern "C" name, the PTX .entry name
	Params string // parameter names, in order
	Launch string // grid and block the kernel expects
}

// Source is the CUDA C source of every kernel, one compilation unit.
const Source = `
#define L2O_BLOCK 256
#define L2O_TILE 16

extern "C" {

/* ---- helpers ---- */

__device__ __forceinline__ int l2o_index(void) {
	return blockIdx.x * blockDim.x + threadIdx.x;
}

/* Extend index i of a line of n values: boundary 0 zero (-1 = outside),
   1 reflect (half-sample symmetric), 2 circular. Same as kernels.Boundary. */
__device__ int l2o_extend(int i, int n, int boundary) {
	if (i >= 0 && i < n) return i;
	if (boundary == 1) {
		int period = 2 * n;
		i %= period;
		if (i < 0) i += period;
		if (i >= n) i = period - 1 - i;
		return i;
	}
	if (boundary == 2) {
		i %= n;
		if (i < 0) i += n;
		return i;
	}
	return -1;
}

/* The extended indices t in [-n, 2n) with l2o_extend(t) == p. */
__device__ int l2o_preimages(int p, int n, int boundary, int t[3]) {
	t[0] = p;
	if (boundary == 1) { t[1] = -1 - p; t[2] = 2 * n - 1 - p; return 3; }
	if (boundary == 2) { t[1] = p - n; t[2] = p + n; return 3; }
	return 1;
}

/* Sum of v over the block (blockDim.x == L2O_BLOCK); every thread gets it. */
__device__ double l2o_block_sum(double v) {
	__shared__ double buf[L2O_BLOCK];
	buf[threadIdx.x] = v;
	__syncthreads();
	for (int s = L2O_BLOCK / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
		__syncthreads();
	}
	double r = buf[0];
	__syncthreads();
	return r;
}

/* The end of a one-kernel reduction over gridDim.x <= L2O_BLOCK blocks:
   each block's sum v goes to partial[blockIdx.x]; the block that arrives
   last (ticket counts arrivals and is reset to 0 by it) sums the partials
   in a fixed order, thread i partial i then the block's tree, whichever
   block it is, and sets out[0] = c * sum (set) or adds that to it. */
__device__ void l2o_reduce_finish(double *out, double *partial, unsigned int *ticket, double v, double c, int set) {
	__shared__ int last;
	v = l2o_block_sum(v);
	if (threadIdx.x == 0) {
		partial[blockIdx.x] = v;
		__threadfence();
		last = atomicAdd(ticket, 1u) == gridDim.x - 1;
	}
	__syncthreads();
	if (!last) return;
	__threadfence();
	double s = threadIdx.x < gridDim.x ? ((volatile double *)partial)[threadIdx.x] : 0.0;
	s = l2o_block_sum(s);
	if (threadIdx.x == 0) {
		out[0] = set ? c * s : out[0] + c * s;
		*ticket = 0;
	}
}

/* ---- small 2-D convolution (kernels.Conv) ----
   y[n,i,j] = sum_{u,v} k[u,v] * xbar[n, i+u-c, j+v-c], c = K/2. */

__global__ void l2o_conv2d(float *y, const float *x, const float *k, const float *sub,
		int N, int H, int W, int K, int boundary) {
	int idx = l2o_index();
	if (idx >= N * H * W) return;
	int j = idx % W, i = (idx / W) % H, n = idx / (H * W);
	int c = K / 2;
	const float *xn = x + (size_t)n * H * W;
	float s = 0.f;
	for (int u = 0; u < K; u++) {
		int r = l2o_extend(i + u - c, H, boundary);
		if (r < 0) continue;
		for (int v = 0; v < K; v++) {
			int q = l2o_extend(j + v - c, W, boundary);
			if (q < 0) continue;
			s += k[u * K + v] * xn[r * W + q];
		}
	}
	y[idx] = sub ? s - sub[idx] : s;
}

/* l2o_conv2d on tiles: a block computes an L2O_CONV_TILE² tile of one image
   of y from the tile's input extended by K - 1 (by the boundary) and the
   kernel, both loaded once into shared memory. The taps are added in
   l2o_conv2d's order; a tap outside a zero boundary adds k * 0. */
#define L2O_CONV_TILE 16
#define L2O_CONV_MAXK 17
#define L2O_CONV_SPAN (L2O_CONV_TILE + L2O_CONV_MAXK - 1)
__device__ void l2o_conv_tile(int *n, int *ti, int *tj, int H, int W) {
	int tilesW = (W + L2O_CONV_TILE - 1) / L2O_CONV_TILE, tilesH = (H + L2O_CONV_TILE - 1) / L2O_CONV_TILE;
	*tj = blockIdx.x % tilesW;
	*ti = (blockIdx.x / tilesW) % tilesH;
	*n = blockIdx.x / (tilesW * tilesH);
}

__global__ void l2o_conv2d_tiled(float *y, const float *x, const float *k, const float *sub,
		int N, int H, int W, int K, int boundary) {
	__shared__ float xs[L2O_CONV_SPAN * L2O_CONV_SPAN];
	__shared__ float ks[L2O_CONV_MAXK * L2O_CONV_MAXK];
	int n, ti, tj;
	l2o_conv_tile(&n, &ti, &tj, H, W);
	int c = K / 2, S = L2O_CONV_TILE + K - 1;
	int i0 = ti * L2O_CONV_TILE - c, j0 = tj * L2O_CONV_TILE - c;
	const float *xn = x + (size_t)n * H * W;
	for (int t = threadIdx.x; t < K * K; t += blockDim.x) ks[t] = k[t];
	for (int t = threadIdx.x; t < S * S; t += blockDim.x) {
		int r = l2o_extend(i0 + t / S, H, boundary), q = l2o_extend(j0 + t % S, W, boundary);
		xs[t] = (r < 0 || q < 0) ? 0.f : xn[r * W + q];
	}
	__syncthreads();
	int li = threadIdx.x / L2O_CONV_TILE, lj = threadIdx.x % L2O_CONV_TILE;
	int i = ti * L2O_CONV_TILE + li, j = tj * L2O_CONV_TILE + lj;
	if (i >= H || j >= W) return;
	float s = 0.f;
	for (int u = 0; u < K; u++)
		for (int v = 0; v < K; v++)
			s += ks[u * K + v] * xs[(li + u) * S + lj + v];
	size_t o = ((size_t)n * H + i) * W + j;
	y[o] = sub ? s - sub[o] : s;
}

/* l2o_conv2d_adjoint_image for the zero boundary, on tiles as
   l2o_conv2d_tiled: x[p,q] = sum_{u,v} k[u,v] y[p-u+c, q-v+c], in
   l2o_conv2d_adjoint_image's order, y zero outside the image. */
__global__ void l2o_conv2d_adjoint_image_tiled(float *x, const float *y, const float *k,
		int N, int H, int W, int K) {
	__shared__ float ys[L2O_CONV_SPAN * L2O_CONV_SPAN];
	__shared__ float ks[L2O_CONV_MAXK * L2O_CONV_MAXK];
	int n, ti, tj;
	l2o_conv_tile(&n, &ti, &tj, H, W);
	int c = K / 2, S = L2O_CONV_TILE + K - 1;
	int i0 = ti * L2O_CONV_TILE - (K - 1 - c), j0 = tj * L2O_CONV_TILE - (K - 1 - c);
	const float *yn = y + (size_t)n * H * W;
	for (int t = threadIdx.x; t < K * K; t += blockDim.x) ks[t] = k[t];
	for (int t = threadIdx.x; t < S * S; t += blockDim.x) {
		int r = i0 + t / S, q = j0 + t % S;
		ys[t] = (r < 0 || r >= H || q < 0 || q >= W) ? 0.f : yn[r * W + q];
	}
	__syncthreads();
	int li = threadIdx.x / L2O_CONV_TILE, lj = threadIdx.x % L2O_CONV_TILE;
	int p = ti * L2O_CONV_TILE + li, q = tj * L2O_CONV_TILE + lj;
	if (p >= H || q >= W) return;
	float s = 0.f;
	for (int u = 0; u < K; u++)
		for (int v = 0; v < K; v++)
			s += ks[u * K + v] * ys[(li + K - 1 - u) * S + lj + K - 1 - v];
	x[((size_t)n * H + p) * W + q] = s;
}

/* x = K^T y: gathers, for every pixel (p,q), all (i,j,u,v) whose extended
   position maps to it. Needs K/2 <= H, W for reflect and circular. */
__global__ void l2o_conv2d_adjoint_image(float *x, const float *y, const float *k,
		int N, int H, int W, int K, int boundary) {
	int idx = l2o_index();
	if (idx >= N * H * W) return;
	int q = idx % W, p = (idx / W) % H, n = idx / (H * W);
	int c = K / 2;
	const float *yn = y + (size_t)n * H * W;
	int tr[3], tc[3];
	int nr = l2o_preimages(p, H, boundary, tr);
	int nc = l2o_preimages(q, W, boundary, tc);
	float s = 0.f;
	for (int a = 0; a < nr; a++) {
		for (int u = 0; u < K; u++) {
			int i = tr[a] - u + c;
			if (i < 0 || i >= H) continue;
			for (int b = 0; b < nc; b++) {
				for (int v = 0; v < K; v++) {
					int j = tc[b] - v + c;
					if (j < 0 || j >= W) continue;
					s += k[u * K + v] * yn[i * W + j];
				}
			}
		}
	}
	x[idx] = s;
}

/* g[u,v] = sum_{n,i,j} y[n,i,j] * xbar[n, i+u-c, j+v-c]; block (u,v). */
__global__ void l2o_conv2d_adjoint_kernel(float *g, const float *x, const float *y,
		int N, int H, int W, int K, int boundary) {
	int u = blockIdx.x / K, v = blockIdx.x % K, c = K / 2;
	int total = N * H * W;
	double s = 0.0;
	for (int idx = threadIdx.x; idx < total; idx += blockDim.x) {
		int j = idx % W, i = (idx / W) % H, n = idx / (H * W);
		int r = l2o_extend(i + u - c, H, boundary);
		int q = l2o_extend(j + v - c, W, boundary);
		if (r < 0 || q < 0) continue;
		s += (double)y[idx] * (double)x[((size_t)n * H + r) * W + q];
	}
	s = l2o_block_sum(s);
	if (threadIdx.x == 0) g[blockIdx.x] = (float)s;
}

/* ---- forward differences (kernels.Grad, kernels.GradAdjoint) ---- */

__global__ void l2o_grad(float *d, const float *x, int N, int H, int W) {
	int idx = l2o_index();
	int hw = H * W;
	if (idx >= N * hw) return;
	int p = idx % hw, n = idx / hw;
	int j = p % W, i = p / W;
	const float *xn = x + (size_t)n * hw;
	float *d1 = d + (size_t)2 * n * hw, *d2 = d1 + hw;
	d1[p] = (i + 1 < H) ? xn[p + W] - xn[p] : 0.f;
	d2[p] = (j + 1 < W) ? xn[p + 1] - xn[p] : 0.f;
}

__global__ void l2o_grad_adjoint(float *x, const float *d, int N, int H, int W, float a, float b) {
	int idx = l2o_index();
	int hw = H * W;
	if (idx >= N * hw) return;
	int p = idx % hw, n = idx / hw;
	int j = p % W, i = p / W;
	const float *d1 = d + (size_t)2 * n * hw, *d2 = d1 + hw;
	float s = 0.f;
	if (i + 1 < H) s -= d1[p];
	if (i > 0) s += d1[p - W];
	if (j + 1 < W) s -= d2[p];
	if (j > 0) s += d2[p - 1];
	x[idx] = b == 0.f ? a * s : a * s + b * x[idx];
}

/* ---- isotropic Huber potential of a field [N,2,HW] (kernels.Huber) ---- */

__global__ void l2o_huber_value(double *vals, const float *d, int N, int HW, float eps) {
	int n = blockIdx.x;
	const float *d1 = d + (size_t)2 * n * HW, *d2 = d1 + HW;
	double e = eps, s = 0.0;
	for (int p = threadIdx.x; p < HW; p += blockDim.x) {
		double a = d1[p], b = d2[p];
		double r2 = a * a + b * b;
		s += (r2 <= e * e) ? r2 / (2.0 * e) : sqrt(r2) - e / 2.0;
	}
	s = l2o_block_sum(s);
	if (threadIdx.x == 0) vals[n] = s;
}

/* The same potential summed over all N·HW points at once into out, for a
   grid as wide as the reductions' (l2o_dot_reduce), not one block an image. */
__global__ void l2o_huber_reduce(double *out, double *partial, unsigned int *ticket, const float *d, int HW, float eps,
		int n, double c, int set) {
	double e = eps, s = 0.0;
	for (int i = l2o_index(); i < n; i += gridDim.x * blockDim.x) {
		int p = i % HW, k = i / HW;
		size_t o = (size_t)2 * k * HW + p;
		double a = d[o], b = d[o + HW];
		double r2 = a * a + b * b;
		s += (r2 <= e * e) ? r2 / (2.0 * e) : sqrt(r2) - e / 2.0;
	}
	l2o_reduce_finish(out, partial, ticket, s, c, set);
}

/* l2o_grad, l2o_huber_reduce and l2o_huber_derivative in one pass over x:
   the differences d = Dx (as l2o_grad), their potential summed into out,
   and g = d / max(|d|, eps). */
__global__ void l2o_huber_tv_reduce(double *out, double *partial, unsigned int *ticket, float *g, const float *x,
		int H, int W, float eps, int n, double c, int set) {
	double e = eps, s = 0.0;
	int HW = H * W;
	for (int i = l2o_index(); i < n; i += gridDim.x * blockDim.x) {
		int p = i % HW, k = i / HW;
		int row = p / W, col = p % W;
		const float *xk = x + (size_t)k * HW;
		size_t o = (size_t)2 * k * HW + p;
		float a = (row + 1 < H) ? xk[p + W] - xk[p] : 0.f;
		float b = (col + 1 < W) ? xk[p + 1] - xk[p] : 0.f;
		double da = a, db = b;
		double r2 = da * da + db * db;
		s += (r2 <= e * e) ? r2 / (2.0 * e) : sqrt(r2) - e / 2.0;
		float q = 1.f / fmaxf(sqrtf(a * a + b * b), eps);
		g[o] = a * q;
		g[o + HW] = b * q;
	}
	l2o_reduce_finish(out, partial, ticket, s, c, set);
}

__global__ void l2o_huber_derivative(float *g, const float *d, int N, int HW, float eps) {
	int idx = l2o_index();
	if (idx >= N * HW) return;
	int p = idx % HW, n = idx / HW;
	size_t o1 = (size_t)2 * n * HW + p, o2 = o1 + HW;
	float a = d[o1], b = d[o2];
	float s = 1.f / fmaxf(sqrtf(a * a + b * b), eps);
	g[o1] = a * s;
	g[o2] = b * s;
}

__global__ void l2o_huber_hessvec(float *out, const float *d, const float *u,
		int N, int HW, float eps) {
	int idx = l2o_index();
	if (idx >= N * HW) return;
	int p = idx % HW, n = idx / HW;
	size_t o1 = (size_t)2 * n * HW + p, o2 = o1 + HW;
	float a = d[o1], b = d[o2], u1 = u[o1], u2 = u[o2];
	float r = sqrtf(a * a + b * b);
	if (r < eps) {
		out[o1] = u1 / eps;
		out[o2] = u2 / eps;
		return;
	}
	float n1 = a / r, n2 = b / r;
	float dot = n1 * u1 + n2 * u2;
	out[o1] = (u1 - n1 * dot) / r;
	out[o2] = (u2 - n2 * dot) / r;
}

/* ---- clip potentials of the weakly convex ridge regularizer (wcrr) ----
   z is [N,C,HW]; channel c has thresholds h[c] < t[c]:
   psi   = (mu+1) huber(z; h) - huber(z; t)
   psi'  = (mu+1) clip(z, +-h) - clip(z, +-t)
   psi'' = (mu+1)[|z| < h] - [|z| < t]  in {mu, -1, 0}. */

__device__ __forceinline__ float l2o_clip(float z, float a) { return fmaxf(-a, fminf(a, z)); }

__device__ __forceinline__ float l2o_huber1(float z, float a) {
	float az = fabsf(z);
	return az > a ? a * az - a * a / 2.f : z * z / 2.f;
}

__global__ void l2o_ridge_psi(float *out, const float *z, const float *h, const float *t,
		float mu, int C, int HW, int total) {
	int idx = l2o_index();
	if (idx >= total) return;
	int c = (idx / HW) % C;
	out[idx] = (mu + 1.f) * l2o_huber1(z[idx], h[c]) - l2o_huber1(z[idx], t[c]);
}

__global__ void l2o_ridge_psi_prime(float *out, const float *z, const float *h, const float *t,
		float mu, int C, int HW, int total) {
	int idx = l2o_index();
	if (idx >= total) return;
	int c = (idx / HW) % C;
	out[idx] = (mu + 1.f) * l2o_clip(z[idx], h[c]) - l2o_clip(z[idx], t[c]);
}

__global__ void l2o_ridge_hessvec(float *out, const float *z, const float *u,
		const float *h, const float *t, float mu, int C, int HW, int total) {
	int idx = l2o_index();
	if (idx >= total) return;
	int c = (idx / HW) % C;
	float a = fabsf(z[idx]);
	float second = a < h[c] ? mu : (a < t[c] ? -1.f : 0.f);
	out[idx] = second * u[idx];
}

/* ---- elementwise and reductions ---- */

__global__ void l2o_axpy(float *y, float a, const float *x, int n) {
	int idx = l2o_index();
	if (idx < n) y[idx] += a * x[idx];
}

__global__ void l2o_axpby(float *y, float a, const float *x, float b, int n) {
	int idx = l2o_index();
	if (idx < n) y[idx] = a * x[idx] + b * y[idx];
}

/* y[off + i] += a·x[i]: a result gathered into part of a larger buffer
   (gpu.SliceOps). */
__global__ void l2o_axpy_at(float *y, int off, float a, const float *x, int n) {
	int idx = l2o_index();
	if (idx < n) y[off + idx] += a * x[idx];
}

__global__ void l2o_dot_reduce(double *out, double *partial, unsigned int *ticket, const float *x, const float *y,
		int n, double c, int set) {
	double s = 0.0;
	for (int i = l2o_index(); i < n; i += gridDim.x * blockDim.x)
		s += (double)x[i] * (double)y[i];
	l2o_reduce_finish(out, partial, ticket, s, c, set);
}

__global__ void l2o_sum_reduce(double *out, double *partial, unsigned int *ticket, const float *x,
		int n, double c, int set) {
	double s = 0.0;
	for (int i = l2o_index(); i < n; i += gridDim.x * blockDim.x)
		s += (double)x[i];
	l2o_reduce_finish(out, partial, ticket, s, c, set);
}

__global__ void l2o_scale(float *x, float s, int n) {
	int idx = l2o_index();
	if (idx < n) x[idx] *= s;
}

/* dst = x + s*y (dst may be x) */
__global__ void l2o_add_scaled(float *dst, const float *x, float s, const float *y, int n) {
	int idx = l2o_index();
	if (idx < n) dst[idx] = x[idx] + s * y[idx];
}

/* One iteration of Nesterov's method after the gradient g/c at y (gpu.NAGOps):
   u1 = y - step*(c*g + lambda*(y - ref)); y = u1 + beta*(u1 - u); u = u1,
   beta = betas[k] (0 outside the nb values), k = count[0]; then the block
   that finishes last (ticket counts the blocks, as in l2o_reduce_finish),
   when every thread has read k, adds 1 to count[0]. */
__global__ void l2o_nag_update(float *u, float *y, const float *g, const float *ref, const float *betas, float *count,
                               unsigned int *ticket, int nb, float c, float lambda, float step, int n) {
	int idx = l2o_index();
	if (idx < n) {
		int k = (int)count[0];
		float beta = (k >= 0 && k < nb) ? betas[k] : 0.0f;
		float yi = y[idx];
		float next = yi - step * (c * g[idx] + lambda * (yi - ref[idx]));
		y[idx] = next + beta * (next - u[idx]);
		u[idx] = next;
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		__threadfence();
		if (atomicAdd(ticket, 1u) == gridDim.x - 1) {
			count[0] += 1.0f;
			*ticket = 0;
		}
	}
}

/* ---- pointwise and spectral products of the greedy step (gpu.Ops) ----
   Batches are N images of HW values; spectra N blocks of SL complex values
   stored as (re, im) pairs. */

/* dst[n,i] += c * t[i] * v[n,i] */
__global__ void l2o_mul_add(float *dst, const float *t, const float *v, float c, int HW, int total) {
	int idx = l2o_index();
	if (idx < total) dst[idx] += c * t[idx % HW] * v[idx];
}

/* dst[n,q] = c0*t0[q] * v0[n,q] + c1*t1[q] * v1[n,q] (complex; the second
   product left out when t1 is 0) */
__global__ void l2o_spectral_mul_sum(float *dst, const float *t0, const float *v0, float c0,
		const float *t1, const float *v1, float c1, int SL, int total) {
	int idx = l2o_index();
	if (idx >= total) return;
	int q = idx % SL;
	size_t k = 2 * (size_t)idx;
	float ar = c0 * t0[2 * q], ai = c0 * t0[2 * q + 1];
	float br = v0[k], bi = v0[k + 1];
	float re = ar * br - ai * bi, im = ar * bi + ai * br;
	if (t1) {
		ar = c1 * t1[2 * q];
		ai = c1 * t1[2 * q + 1];
		br = v1[k];
		bi = v1[k + 1];
		re += ar * br - ai * bi;
		im += ar * bi + ai * br;
	}
	dst[k] = re;
	dst[k + 1] = im;
}

/* dst[i] = sum_n r[n,i] * v[n,i], accumulated in double */
__global__ void l2o_product_sum(float *dst, const float *r, const float *v, int N, int HW) {
	int idx = l2o_index();
	if (idx >= HW) return;
	double s = 0.0;
	for (int n = 0; n < N; n++)
		s += (double)r[(size_t)n * HW + idx] * (double)v[(size_t)n * HW + idx];
	dst[idx] = (float)s;
}

/* dst[n,q] += t[q] * v[n,q] (complex) */
__global__ void l2o_spectral_mul_add(float *dst, const float *t, const float *v, int SL, int total) {
	int idx = l2o_index();
	if (idx >= total) return;
	int q = idx % SL;
	float ar = t[2 * q], ai = t[2 * q + 1];
	float br = v[2 * (size_t)idx], bi = v[2 * (size_t)idx + 1];
	dst[2 * (size_t)idx] += ar * br - ai * bi;
	dst[2 * (size_t)idx + 1] += ar * bi + ai * br;
}

/* dst[q] = scale * sum_n conj(v[n,q]) * z[n,q] (complex), accumulated in double.
   A block holds L2O_CONJ_VALUES consecutive q (one warp's width, so that the
   loads coalesce) and L2O_BLOCK / L2O_CONJ_VALUES lanes for each: lane l sums
   the images n = l, l + lanes, …, and lane 0 adds the lanes' sums in order. */
#define L2O_CONJ_VALUES 32
__global__ void l2o_spectral_conj_sum(float *dst, const float *v, const float *z, int N, int SL, double scale) {
	__shared__ double sre[L2O_BLOCK], sim[L2O_BLOCK];
	const int lanes = L2O_BLOCK / L2O_CONJ_VALUES;
	int lane = threadIdx.x / L2O_CONJ_VALUES, qi = threadIdx.x % L2O_CONJ_VALUES;
	int q = blockIdx.x * L2O_CONJ_VALUES + qi;
	double re = 0.0, im = 0.0;
	if (q < SL) {
		for (int n = lane; n < N; n += lanes) {
			size_t k = 2 * ((size_t)n * SL + q);
			double ar = v[k], ai = v[k + 1], br = z[k], bi = z[k + 1];
			re += ar * br + ai * bi;
			im += ar * bi - ai * br;
		}
	}
	sre[threadIdx.x] = re;
	sim[threadIdx.x] = im;
	__syncthreads();
	if (lane == 0 && q < SL) {
		for (int l = 1; l < lanes; l++) {
			re += sre[l * L2O_CONJ_VALUES + qi];
			im += sim[l * L2O_CONJ_VALUES + qi];
		}
		dst[2 * q] = (float)(scale * re);
		dst[2 * q + 1] = (float)(scale * im);
	}
}

/* ---- multi-channel cross-correlation, zero padding K/2 (mconv) ----
   y[n,o,i,j] = bias[o] + sum_{c,u,v} w[o,c,u,v] x[n,c,i+u-p,j+v-p]. */

__global__ void l2o_mconv_forward(float *y, const float *x, const float *w, const float *bias,
		int N, int Cin, int Cout, int H, int W, int K) {
	int idx = l2o_index();
	int hw = H * W;
	if (idx >= N * Cout * hw) return;
	int j = idx % W, i = (idx / W) % H, o = (idx / hw) % Cout, n = idx / (Cout * hw);
	int pad = K / 2;
	float s = bias ? bias[o] : 0.f;
	for (int c = 0; c < Cin; c++) {
		const float *xc = x + ((size_t)n * Cin + c) * hw;
		const float *wc = w + ((size_t)o * Cin + c) * K * K;
		for (int u = 0; u < K; u++) {
			int r = i + u - pad;
			if (r < 0 || r >= H) continue;
			for (int v = 0; v < K; v++) {
				int q = j + v - pad;
				if (q < 0 || q >= W) continue;
				s += wc[u * K + v] * xc[r * W + q];
			}
		}
	}
	y[idx] = s;
}

/* x[n,c,p,q] = sum_{o,u,v} w[o,c,u,v] y[n,o,p-u+pad,q-v+pad]. */
__global__ void l2o_mconv_adjoint_input(float *x, const float *y, const float *w,
		int N, int Cin, int Cout, int H, int W, int K) {
	int idx = l2o_index();
	int hw = H * W;
	if (idx >= N * Cin * hw) return;
	int q = idx % W, p = (idx / W) % H, c = (idx / hw) % Cin, n = idx / (Cin * hw);
	int pad = K / 2;
	float s = 0.f;
	for (int o = 0; o < Cout; o++) {
		const float *yo = y + ((size_t)n * Cout + o) * hw;
		const float *wc = w + ((size_t)o * Cin + c) * K * K;
		for (int u = 0; u < K; u++) {
			int i = p - u + pad;
			if (i < 0 || i >= H) continue;
			for (int v = 0; v < K; v++) {
				int j = q - v + pad;
				if (j < 0 || j >= W) continue;
				s += wc[u * K + v] * yo[i * W + j];
			}
		}
	}
	x[idx] = s;
}

/* gw[o,c,u,v] = sum_{n,i,j} y[n,o,i,j] x[n,c,i+u-p,j+v-p]; block (o,c,u,v). */
__global__ void l2o_mconv_adjoint_weights(float *gw, const float *x, const float *y,
		int N, int Cin, int Cout, int H, int W, int K) {
	int b = blockIdx.x;
	int v = b % K, u = (b / K) % K, c = (b / (K * K)) % Cin, o = b / (K * K * Cin);
	int pad = K / 2, hw = H * W;
	double s = 0.0;
	for (int idx = threadIdx.x; idx < N * hw; idx += blockDim.x) {
		int j = idx % W, i = (idx / W) % H, n = idx / hw;
		int r = i + u - pad, q = j + v - pad;
		if (r < 0 || r >= H || q < 0 || q >= W) continue;
		s += (double)y[((size_t)n * Cout + o) * hw + i * W + j] *
			(double)x[((size_t)n * Cin + c) * hw + r * W + q];
	}
	s = l2o_block_sum(s);
	if (threadIdx.x == 0) gw[b] = (float)s;
}

/* l2o_mconv_adjoint_weights for 3×3 kernels with the nine taps of one
   (o, c) pair a block: y read once for all of them. Each thread adds every
   tap's terms in l2o_mconv_adjoint_weights' order and the taps' block sums
   are that kernel's, so the weights are bitwise its own. */
__global__ void l2o_mconv_adjoint_weights3(float *gw, const float *x, const float *y,
		int N, int Cin, int Cout, int H, int W) {
	int c = blockIdx.x % Cin, o = blockIdx.x / Cin;
	int hw = H * W;
	double s[9];
#pragma unroll
	for (int t = 0; t < 9; t++) s[t] = 0.0;
	for (int idx = threadIdx.x; idx < N * hw; idx += blockDim.x) {
		int j = idx % W, i = (idx / W) % H, n = idx / hw;
		double yv = y[((size_t)n * Cout + o) * hw + i * W + j];
		const float *xc = x + ((size_t)n * Cin + c) * hw;
#pragma unroll
		for (int u = 0; u < 3; u++) {
			int r = i + u - 1;
#pragma unroll
			for (int v = 0; v < 3; v++) {
				int q = j + v - 1;
				if (r >= 0 && r < H && q >= 0 && q < W)
					s[u * 3 + v] += yv * (double)xc[r * W + q];
			}
		}
	}
#pragma unroll
	for (int t = 0; t < 9; t++) {
		double r = l2o_block_sum(s[t]);
		if (threadIdx.x == 0) gw[(size_t)blockIdx.x * 9 + t] = (float)r;
	}
}

/* gb[o] = sum_{n,i,j} y[n,o,i,j]; block o. */
__global__ void l2o_mconv_adjoint_bias(float *gb, const float *y, int N, int Cout, int HW) {
	int o = blockIdx.x;
	double s = 0.0;
	for (int idx = threadIdx.x; idx < N * HW; idx += blockDim.x) {
		int n = idx / HW, p = idx % HW;
		s += (double)y[((size_t)n * Cout + o) * HW + p];
	}
	s = l2o_block_sum(s);
	if (threadIdx.x == 0) gb[o] = (float)s;
}

/* ---- per-plane operations of the Banert network (gpu.NetOps) ----
   A plane is one HW channel of one image; planes are stored one after the other. */

/* sum_i x[p,i] y[p,i] (y == 0: sum_i x[p,i]) of plane p = blockIdx.x, in
   double; every thread of the block gets it. */
__device__ double l2o_plane_dot(const float *x, const float *y, int HW) {
	int p = blockIdx.x;
	const float *xp = x + (size_t)p * HW;
	const float *yp = y ? y + (size_t)p * HW : 0;
	double s = 0.0;
	for (int i = threadIdx.x; i < HW; i += blockDim.x)
		s += yp ? (double)xp[i] * (double)yp[i] : (double)xp[i];
	return l2o_block_sum(s);
}

/* vals[p] = the plane dot of plane p (l2o_plane_dot); block p. */
__global__ void l2o_plane_dots(double *vals, const float *x, const float *y, int HW) {
	double s = l2o_plane_dot(x, y, HW);
	if (threadIdx.x == 0) vals[blockIdx.x] = s;
}

/* acc[p] += the plane dot of plane p, rounded to float; block p. */
__global__ void l2o_plane_dots_add(float *acc, const float *x, const float *y, int HW) {
	double s = l2o_plane_dot(x, y, HW);
	if (threadIdx.x == 0) acc[blockIdx.x] += (float)s;
}

/* y[p,i] = a_p x[p,i] + b_p z[p,i] + c_p with (a_p, b_p, c_p) = coef[3p..3p+2];
   no z term when z == 0. y may be x or z. */
__global__ void l2o_plane_combine(float *y, const float *coef, const float *x, const float *z, int HW, int total) {
	int idx = l2o_index();
	if (idx >= total) return;
	const float *c = coef + 3 * (idx / HW);
	float v = c[0] * x[idx] + c[2];
	if (z) v += c[1] * z[idx];
	y[idx] = v;
}

/* Instance normalisation, a block a plane: z = (x - mu) * s, mu the plane's
   mean, s = 1 / sqrt(var + eps) (both accumulated in double), s kept in
   scale; the arithmetic of l2o_plane_dots and l2o_plane_combine. Every
   thread reads back only the values it wrote, so z may be x. */
__global__ void l2o_plane_normalize(float *z, float *scale, const float *x, int HW, double eps) {
	int p = blockIdx.x;
	const float *xp = x + (size_t)p * HW;
	float *zp = z + (size_t)p * HW;
	double s = 0.0;
	for (int i = threadIdx.x; i < HW; i += blockDim.x)
		s += (double)xp[i];
	float c = (float)(-l2o_block_sum(s) / HW);
	double q = 0.0;
	for (int i = threadIdx.x; i < HW; i += blockDim.x) {
		float v = 1.f * xp[i] + c;
		zp[i] = v;
		q += (double)v * (double)v;
	}
	float inv = (float)(1.0 / sqrt(l2o_block_sum(q) / HW + eps));
	for (int i = threadIdx.x; i < HW; i += blockDim.x)
		zp[i] = inv * zp[i] + 0.f;
	if (threadIdx.x == 0) scale[p] = inv;
}

/* u = s * (u - mean(u) - z * mean(u z)) per plane, a block a plane:
   l2o_plane_normalize's transposed Jacobian at its output z. */
__global__ void l2o_plane_normalize_backward(float *u, const float *z, const float *scale, int HW) {
	int p = blockIdx.x;
	float *up = u + (size_t)p * HW;
	const float *zp = z + (size_t)p * HW;
	double su = 0.0, suz = 0.0;
	for (int i = threadIdx.x; i < HW; i += blockDim.x) {
		double v = up[i];
		su += v;
		suz += v * (double)zp[i];
	}
	su = l2o_block_sum(su);
	suz = l2o_block_sum(suz);
	double inv = scale[p];
	float a = (float)inv, b = (float)(-inv * suz / HW), c = (float)(-inv * su / HW);
	for (int i = threadIdx.x; i < HW; i += blockDim.x) {
		float v = a * up[i] + c;
		up[i] = v + b * zp[i];
	}
}

/* Banert's safeguard, a block an image: delta = alpha h |g| / sqrt(1 + |h|^2),
   the norms accumulated in double; the arithmetic of l2o_plane_dots and
   l2o_plane_combine. */
__global__ void l2o_plane_safeguard(float *delta, const float *h, const float *g, int HW, double alpha) {
	size_t o = (size_t)blockIdx.x * HW;
	double gg = 0.0, hh = 0.0;
	for (int i = threadIdx.x; i < HW; i += blockDim.x) {
		double a = g[o + i], b = h[o + i];
		gg += a * a;
		hh += b * b;
	}
	gg = l2o_block_sum(gg);
	hh = l2o_block_sum(hh);
	float c = (float)(alpha * sqrt(gg) / sqrt(1.0 + hh));
	for (int i = threadIdx.x; i < HW; i += blockDim.x)
		delta[o + i] = c * h[o + i] + 0.f;
}

/* The safeguard's transposed Jacobian at (h, g) applied to u, a block an
   image, s = sqrt(1 + |h|^2): bh = alpha |g| (u / s - h <h,u> / s^3),
   bg += alpha <h,u> g / (|g| s) (nothing where g = 0). */
__global__ void l2o_plane_safeguard_backward(float *bh, float *bg, const float *u, const float *h,
		const float *g, int HW, double alpha) {
	size_t o = (size_t)blockIdx.x * HW;
	double gg = 0.0, hh = 0.0, hu = 0.0;
	for (int i = threadIdx.x; i < HW; i += blockDim.x) {
		double a = g[o + i], b = h[o + i];
		gg += a * a;
		hh += b * b;
		hu += b * (double)u[o + i];
	}
	gg = l2o_block_sum(gg);
	hh = l2o_block_sum(hh);
	hu = l2o_block_sum(hu);
	double gn = sqrt(gg), s = sqrt(1.0 + hh);
	float a = (float)(alpha * gn / s), b = (float)(-alpha * gn * hu / (s * s * s));
	float cg = gn > 0.0 ? (float)(alpha * hu / (gn * s)) : 0.f;
	for (int i = threadIdx.x; i < HW; i += blockDim.x) {
		float v = a * u[o + i] + 0.f;
		bh[o + i] = v + b * h[o + i];
		float w = 1.f * bg[o + i] + 0.f;
		bg[o + i] = w + cg * g[o + i];
	}
}

/* dst = u where x > 0 and slope u elsewhere; dst may be x or u. */
__global__ void l2o_leaky_mask(float *dst, const float *x, const float *u, float slope, int n) {
	int idx = l2o_index();
	if (idx >= n) return;
	float v = u[idx];
	dst[idx] = x[idx] > 0.f ? v : slope * v;
}

/* Plane dstStart + i dstStep of dst = plane srcStart + i srcStep of src. */
__global__ void l2o_copy_planes(float *dst, const float *src, int dstStart, int dstStep,
		int srcStart, int srcStep, int HW, int total) {
	int idx = l2o_index();
	if (idx >= total) return;
	int i = idx / HW, q = idx % HW;
	dst[(size_t)(dstStart + i * dstStep) * HW + q] = src[(size_t)(srcStart + i * srcStep) * HW + q];
}

/* ---- dense products of the PF parametrization (gpu.MatOps) ----
   A is M×M row-major (M = H·W); batches are N vectors of M values. */

/* Both products run one thread per output in L2O_TILE×L2O_TILE tiles of
   outputs (blockDim.x == L2O_TILE² == L2O_BLOCK), their operands staged
   through shared memory L2O_TILE summands at a time with coalesced loads:
   a warp reading A column-wise (one row a thread) would touch 32 rows an
   iteration. Each output's double sum still runs over its summation index
   in order, so the result is the plain loop's to the bit. Grid: one block a
   tile, the tiles of the output's fast index innermost. */

/* dst[n,i] += c * sum_j A[i,j] v[n,j]   (A[j,i] when transpose), in double. */
__global__ void l2o_mat_mul_add(float *dst, const float *a, const float *v, float c, int transpose, int N, int M) {
	__shared__ float as[L2O_TILE][L2O_TILE + 1]; /* as[ii][jj] = A(i0+ii, j0+jj) */
	__shared__ float vs[L2O_TILE][L2O_TILE + 1]; /* vs[nn][jj] = v[n0+nn, j0+jj] */
	int tilesI = (M + L2O_TILE - 1) / L2O_TILE;
	int i0 = (blockIdx.x % tilesI) * L2O_TILE, n0 = (blockIdx.x / tilesI) * L2O_TILE;
	int tx = threadIdx.x % L2O_TILE, ty = threadIdx.x / L2O_TILE;
	int i = i0 + tx, n = n0 + ty;
	double s = 0.0;
	for (int j0 = 0; j0 < M; j0 += L2O_TILE) {
		int jn = M - j0 < L2O_TILE ? M - j0 : L2O_TILE;
		if (transpose) {
			if (ty < jn && i < M) as[tx][ty] = a[(size_t)(j0 + ty) * M + i];
		} else if (tx < jn && i0 + ty < M) {
			as[ty][tx] = a[(size_t)(i0 + ty) * M + j0 + tx];
		}
		if (tx < jn && n < N) vs[ty][tx] = v[(size_t)n * M + j0 + tx];
		__syncthreads();
		if (i < M && n < N)
			for (int jj = 0; jj < jn; jj++) s += (double)as[tx][jj] * (double)vs[ty][jj];
		__syncthreads();
	}
	if (i < M && n < N) dst[(size_t)n * M + i] += (float)(c * s);
}

/* dst[i,j] = sum_n r[n,i] v[n,j], in double. */
__global__ void l2o_outer_sum(float *dst, const float *r, const float *v, int N, int M) {
	__shared__ float rs[L2O_TILE][L2O_TILE + 1]; /* rs[nn][ii] = r[n0+nn, i0+ii] */
	__shared__ float vs[L2O_TILE][L2O_TILE + 1]; /* vs[nn][jj] = v[n0+nn, j0+jj] */
	int tiles = (M + L2O_TILE - 1) / L2O_TILE;
	int j0 = (blockIdx.x % tiles) * L2O_TILE, i0 = (blockIdx.x / tiles) * L2O_TILE;
	int tx = threadIdx.x % L2O_TILE, ty = threadIdx.x / L2O_TILE;
	int i = i0 + ty, j = j0 + tx;
	double s = 0.0;
	for (int n0 = 0; n0 < N; n0 += L2O_TILE) {
		int nn = N - n0 < L2O_TILE ? N - n0 : L2O_TILE;
		if (ty < nn) {
			if (i0 + tx < M) rs[ty][tx] = r[(size_t)(n0 + ty) * M + i0 + tx];
			if (j < M) vs[ty][tx] = v[(size_t)(n0 + ty) * M + j];
		}
		__syncthreads();
		if (i < M && j < M)
			for (int k = 0; k < nn; k++) s += (double)rs[k][ty] * (double)vs[k][tx];
		__syncthreads();
	}
	if (i < M && j < M) dst[(size_t)i * M + j] = (float)s;
}

/* ---- Joseph parallel-beam ray transform (tomo) ----
   Per angle a: trans[a] (march over columns), step[a], weight[a]; per ray
   r = a*Det + k: start[r] and the lines [first[r], end[r]) it meets. Line l
   is image row l (column l when transposed); the sample at padded coordinate
   v = start + l*step interpolates pixels floor(v)-1 and floor(v) of the line.
   The coordinate is computed in double without fused multiply-add, as on the
   CPU, so both pick the same pixels. */

__device__ __forceinline__ float l2o_pixel(const float *img, int N, int trans, int l, int m) {
	if (m < 0 || m >= N) return 0.f;
	return trans ? img[m * N + l] : img[l * N + m];
}

__global__ void l2o_ray_forward(float *y, const float *x, const int *trans, const double *step,
		const double *weight, const double *start, const int *first, const int *end,
		int B, int N, int A, int Det, float scale, const float *sub) {
	int idx = l2o_index();
	if (idx >= B * A * Det) return;
	int r = idx % (A * Det), b = idx / (A * Det), a = r / Det;
	const float *img = x + (size_t)b * N * N;
	int tr = trans[a];
	double st = step[a], s0 = start[r];
	double sum = 0.0;
	for (int l = first[r]; l < end[r]; l++) {
		double v = __dadd_rn(s0, __dmul_rn((double)l, st));
		int c = (int)v;
		if (c < 0 || c > N) continue;
		double f = v - (double)c;
		double q0 = l2o_pixel(img, N, tr, l, c - 1), q1 = l2o_pixel(img, N, tr, l, c);
		sum += q0 + f * (q1 - q0);
	}
	float val = (float)(weight[a] * sum);
	y[idx] = sub ? scale * val - sub[idx] : scale * val;
}

__device__ __forceinline__ void l2o_scatter(float *img, int N, int trans, int l, int m, float val) {
	if (m < 0 || m >= N || val == 0.f) return;
	atomicAdd(trans ? &img[m * N + l] : &img[l * N + m], val);
}

__global__ void l2o_ray_adjoint(float *x, const float *y, const int *trans, const double *step,
		const double *weight, const double *start, const int *first, const int *end,
		int B, int N, int A, int Det, float scale) {
	int idx = l2o_index();
	if (idx >= B * A * Det) return;
	int r = idx % (A * Det), b = idx / (A * Det), a = r / Det;
	float val = (float)(weight[a] * (double)scale * (double)y[idx]);
	if (val == 0.f) return;
	float *img = x + (size_t)b * N * N;
	int tr = trans[a];
	double st = step[a], s0 = start[r];
	for (int l = first[r]; l < end[r]; l++) {
		double v = __dadd_rn(s0, __dmul_rn((double)l, st));
		int c = (int)v;
		if (c < 0 || c > N) continue;
		float fv = (float)(v - (double)c) * val;
		l2o_scatter(img, N, tr, l, c - 1, val - fv);
		l2o_scatter(img, N, tr, l, c, fv);
	}
}

} /* extern "C" */
`
