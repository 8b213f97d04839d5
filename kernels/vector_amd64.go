//go:build !purego

package kernels

import (
	"math"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/kernels/vec"
)

// The AVX2 kernels (package vec) behind the scalar loops, on CPUs that have
// it: the radix-3, 4 and 8 butterflies in both precisions, DotT, AxpyDot,
// Convert between float64 and float32, and the tiled MatMulAddT and
// MatTMulAdd. Each lane performs its scalar loop's operations in their order
// (no fused multiply-add), so the results are the scalar loops' bit for bit.
func init() {
	if !vec.AVX2 {
		return
	}
	vectorFFT = true
	dot32, dot64 = dotAVX2, dot64AVX2
	dotLanes64 = func(a, b []float64, s *[4]float64) { vec.Dot64(&a[0], &b[0], 8*len(a), s) }
	matMulAddT, matTMulAdd = matMulAddTAVX2, matTMulAddAVX2
	axpyDot64 = axpyDotAVX2
	narrow, widen = narrowAVX2, widenAVX2
}

// vectorFFT is whether exec runs the butterflies in vector registers.
var vectorFFT bool

// The butterfly runs of package vec, by radix (4: radix 4 for p = 0).
const (
	kRadix3 = iota
	kRadix4
	kRadix4First
	kRadix8
)

// butterfly calls the run k of package vec on one p: y and x at the first
// element of the run, ys and xs the strides of its outputs and inputs in
// bytes, n the bytes of one run (a multiple of 32), tw the run's twiddles
// and c its constants. (Direct calls, not function values: the arguments
// stay on the stack.)
func butterfly[F Float](k int, y, x unsafe.Pointer, ys, xs, n int, tw, c unsafe.Pointer) {
	if isFloat32[F]() {
		y, x, tw, c := (*float32)(y), (*float32)(x), (*float32)(tw), (*float32)(c)
		switch k {
		case kRadix3:
			vec.Radix3x32(y, x, ys, xs, n, tw, c)
		case kRadix4:
			vec.Radix4x32(y, x, ys, xs, n, tw, c)
		case kRadix4First:
			vec.Radix4n32(y, x, ys, xs, n, tw, c)
		case kRadix8:
			vec.Radix8x32(y, x, ys, xs, n, tw, c)
		}
		return
	}
	y64, x64, tw64, c64 := (*float64)(y), (*float64)(x), (*float64)(tw), (*float64)(c)
	switch k {
	case kRadix3:
		vec.Radix3x64(y64, x64, ys, xs, n, tw64, c64)
	case kRadix4:
		vec.Radix4x64(y64, x64, ys, xs, n, tw64, c64)
	case kRadix4First:
		vec.Radix4n64(y64, x64, ys, xs, n, tw64, c64)
	case kRadix8:
		vec.Radix8x64(y64, x64, ys, xs, n, tw64, c64)
	}
}

// vecLen is the number of complex values of F in a 32-byte vector.
func vecLen[F Float]() int { return 16 / int(unsafe.Sizeof(F(0))) }

// constants sets v to the vectors (a, b, a, b, …) and (c, c, …) of F, one
// after the other, for the kernels' c.
func constants[F Float](v *[16]F, a, b, c F) {
	l := 2 * vecLen[F]()
	for i := 0; i < l; i += 2 {
		v[i], v[i+1] = a, b
		v[l+i], v[l+i+1] = c, c
	}
}

// runs applies k to the run of s values from y and x, ys and xs bytes apart:
// whole vectors, then, if s is not a multiple of the vector, one vector over
// the last values (recomputing some: x and y do not overlap).
func runs[F Float](k int, y, x *Complex[F], s, ys, xs int, tw *Complex[F], c *[16]F) {
	l := vecLen[F]()
	size := int(unsafe.Sizeof(Complex[F]{}))
	whole := s / l * l
	t, cp := unsafe.Pointer(tw), unsafe.Pointer(c)
	butterfly[F](k, unsafe.Pointer(y), unsafe.Pointer(x), ys, xs, whole*size, t, cp)
	if whole < s {
		off := (s - l) * size
		butterfly[F](k, unsafe.Add(unsafe.Pointer(y), off), unsafe.Add(unsafe.Pointer(x), off), ys, xs, l*size, t, cp)
	}
}

// radix3Vec is radix3 in vector registers; false (nothing done) where it
// does not apply: no AVX2, or fewer values a run than a vector holds.
func radix3Vec[F Float](y, x []Complex[F], s, m int, tw []Complex[F], sign F) bool {
	if !vectorFFT || s < vecLen[F]() {
		return false
	}
	sn := F(-float64(sign) * math.Sqrt(3) / 2)
	var c [16]F
	constants(&c, -sn, sn, -0.5)
	size := int(unsafe.Sizeof(Complex[F]{}))
	for p := 0; p < m; p++ {
		runs(kRadix3, &y[3*s*p], &x[s*p], s, s*size, s*m*size, &tw[2*p], &c)
	}
	return true
}

// radix4Vec is radix4 in vector registers, as radix3Vec.
func radix4Vec[F Float](y, x []Complex[F], s, m int, tw []Complex[F], sign F) bool {
	if !vectorFFT || s < vecLen[F]() {
		return false
	}
	var c [16]F
	constants(&c, sign, -sign, 0)
	size := int(unsafe.Sizeof(Complex[F]{}))
	for p := 0; p < m; p++ {
		if p == 0 {
			runs(kRadix4First, &y[0], &x[0], s, s*size, s*m*size, nil, &c)
			continue
		}
		runs(kRadix4, &y[4*s*p], &x[s*p], s, s*size, s*m*size, &tw[3*p], &c)
	}
	return true
}

// radix8Vec is radix8 in vector registers, as radix3Vec.
func radix8Vec[F Float](y, x []Complex[F], s, m int, tw []Complex[F], sign F) bool {
	if !vectorFFT || s < vecLen[F]() {
		return false
	}
	var c [16]F
	constants(&c, sign, -sign, F(math.Sqrt2/2))
	size := int(unsafe.Sizeof(Complex[F]{}))
	var ones [7]Complex[F]
	for j := range ones {
		ones[j] = Complex[F]{1, 0}
	}
	for p := 0; p < m; p++ {
		w := &ones[0]
		if p > 0 {
			w = &tw[7*p]
		}
		runs(kRadix8, &y[8*s*p], &x[s*p], s, s*size, s*m*size, w, &c)
	}
	return true
}

// dotAVX2 is DotT for float32: the four accumulators s0…s3 of DotT are the
// lanes of one float64 vector, each adding the same products in the same
// order, so the result is DotT's bit for bit.
func dotAVX2(a, b []float32) float64 {
	n := min(len(a), len(b))
	var s [4]float64
	whole := n / 4 * 4
	if whole > 0 {
		vec.Dot32(&a[0], &b[0], 4*whole, &s)
	}
	for i := whole; i < n; i++ {
		s[0] += float64(a[i]) * float64(b[i])
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}

// dot64AVX2 is DotT for float64, as dotAVX2: bitwise DotT's result.
func dot64AVX2(a, b []float64) float64 {
	n := min(len(a), len(b))
	var s [4]float64
	whole := n / 4 * 4
	if whole > 0 {
		vec.Dot64(&a[0], &b[0], 8*whole, &s)
	}
	for i := whole; i < n; i++ {
		s[0] += a[i] * b[i]
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}

// rowGroup is the number of rows of A (or of dst) the tiled products keep
// while they sweep the column tiles: 32 rows of 1,000 float64 (256 KB) and a
// column panel of 1,000 × 8 (64 KB) fit in a second-level cache.
const rowGroup = 32

// matMulAddTAVX2 is MatMulAddT with 4 × 8 tiles of sums in vector registers
// (vec.Tile4x8): each sum starts at zero and takes its products in the order
// of j, a product and then a sum, so the result is the plain loop's bit for
// bit. A group of rows of A is first packed column by column (a copy); tiles
// at the edges run the scalar loop.
func matMulAddTAVX2(dst, a, b []float64, m, r, n int, c float64) {
	ParallelFor((m+rowGroup-1)/rowGroup, func(lo, hi int) {
		var s [4][8]float64
		slab := make([]float64, r*rowGroup+1)
		for g := lo; g < hi; g++ {
			g0, g1 := g*rowGroup, min((g+1)*rowGroup, m)
			for i := g0; i < g1; i++ {
				for j, v := range a[i*r : (i+1)*r] {
					slab[j*rowGroup+i-g0] = v
				}
			}
			for k0 := 0; k0 < n; k0 += 8 {
				kc := min(8, n-k0)
				for i0 := g0; i0 < g1; i0 += 4 {
					rows := min(4, g1-i0)
					if rows == 4 && kc == 8 && r > 0 {
						vec.Tile4x8(&s, &slab[i0-g0], &b[k0], r, n)
					} else {
						tileScalar(&s, a, b, i0, rows, r, n, k0, kc)
					}
					for q := 0; q < rows; q++ {
						addColumn(dst, s[q][:kc], m, i0+q, k0, c)
					}
				}
			}
		}
	})
}

// addColumn adds c·sums to column i of dst (row-major, m columns) from row
// k0: the transposed write of MatMulAddT.
func addColumn(dst, sums []float64, m, i, k0 int, c float64) {
	for kk, v := range sums {
		dst[(k0+kk)*m+i] += c * v
	}
}

// tileScalar sets s[q][kk] for an edge tile of rows × kc, in plain loops.
func tileScalar(s *[4][8]float64, a, b []float64, i0, rows, r, n, k0, kc int) {
	for q := 0; q < rows; q++ {
		for kk := 0; kk < kc; kk++ {
			var sum float64
			for j := 0; j < r; j++ {
				sum += a[(i0+q)*r+j] * b[j*n+k0+kk]
			}
			s[q][kk] = sum
		}
	}
}

// matTMulAddAVX2 is MatTMulAdd with 4 × 8 tiles of dst in vector registers
// (vec.AdjTile4x8), each element accumulated in place in the order of k, its
// zero coefficients skipped, a product and then a sum: the plain loop's
// result bit for bit. The coefficients c·R[k,i] of a group of rows are
// computed once into a packed slab (the same products the loop takes); tiles
// at the edges, and groups with a zero coefficient, run the scalar loop.
func matTMulAddAVX2(dst, res, b []float64, m, r, n int, c float64) {
	ParallelFor((m+rowGroup-1)/rowGroup, func(lo, hi int) {
		slab := make([]float64, n*rowGroup+1)
		for g := lo; g < hi; g++ {
			g0, g1 := g*rowGroup, min((g+1)*rowGroup, m)
			zeros := false
			for k := 0; k < n; k++ {
				for i := g0; i < g1; i++ {
					a := c * res[k*m+i]
					slab[k*rowGroup+i-g0] = a
					zeros = zeros || a == 0
				}
			}
			for j0 := 0; j0 < r; j0 += 8 {
				jc := min(8, r-j0)
				for i0 := g0; i0 < g1; i0 += 4 {
					rows := min(4, g1-i0)
					if rows == 4 && jc == 8 && !zeros && n > 0 {
						vec.AdjTile4x8(&dst[i0*r+j0], &slab[i0-g0], &b[j0], r, n)
						continue
					}
					for q := 0; q < rows; q++ {
						d := dst[(i0+q)*r+j0 : (i0+q)*r+j0+jc]
						for k := 0; k < n; k++ {
							if a := slab[k*rowGroup+i0-g0+q]; a != 0 {
								Axpy(d, a, b[k*r+j0:k*r+j0+jc])
							}
						}
					}
				}
			}
		}
	})
}

// axpyDotAVX2 is AxpyDot with vec.AxpyDot64 over whole vectors and the
// tail as the scalar loops take it (the products rounded on their own, as
// gonum's and Dot's tails): bitwise the two calls' results.
func axpyDotAVX2(z []float64, alpha float64, b, next []float64) float64 {
	n := len(z)
	var s [4]float64
	whole := n / 4 * 4
	if whole > 0 {
		vec.AxpyDot64(&z[0], &b[0], &next[0], alpha, 8*whole, &s)
	}
	for i := whole; i < n; i++ {
		z[i] = float64(b[i]*alpha) + z[i]
		s[0] += float64(next[i] * z[i])
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}

// narrowAVX2 is Convert from float64 to float32 with vec.Narrow64to32 over
// blocks of 16 values and the scalar loop over the rest: the conversion
// rounds to nearest even either way (VCVTPD2PS, CVTSD2SS), so the result is
// the loop's bit for bit.
func narrowAVX2(dst []float32, src []float64) {
	whole := len(dst) / 16 * 16
	if whole > 0 {
		vec.Narrow64to32(&dst[0], &src[0], whole)
	}
	convertLoop(dst[whole:], src[whole:len(dst)])
}

// widenAVX2 is Convert from float32 to float64 with vec.Widen32to64, as
// narrowAVX2 (the widening is exact).
func widenAVX2(dst []float64, src []float32) {
	whole := len(dst) / 16 * 16
	if whole > 0 {
		vec.Widen32to64(&dst[0], &src[0], whole)
	}
	convertLoop(dst[whole:], src[whole:len(dst)])
}
