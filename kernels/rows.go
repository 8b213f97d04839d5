package kernels

// Axpy4 adds a0·x, a1·x, a2·x and a3·x to the rows d0, d1, d2 and d3
// (dj[i] += aj·x[i]) over len(x), which none of the rows may be shorter than:
// four Axpy calls sharing the loads of x. Each element gets Axpy's one product
// and one sum, so the rows are Axpy's bit for bit.
func Axpy4(d0, d1, d2, d3 []float64, a0, a1, a2, a3 float64, x []float64) {
	n := len(x)
	d0, d1, d2, d3 = d0[:n], d1[:n], d2[:n], d3[:n]
	for i, v := range x {
		d0[i] += a0 * v
		d1[i] += a1 * v
		d2[i] += a2 * v
		d3[i] += a3 * v
	}
}

// matMulAddT and matTMulAdd are MatMulAddT and MatTMulAdd with tiles of
// sums in vector registers, set by vector_amd64.go on an AVX2 CPU (nil
// otherwise); their results are bitwise the same.
var matMulAddT, matTMulAdd func(dst, a, b []float64, m, r, n int, c float64)

// rowBlock is the number of columns MatMulAddT and MatTMulAdd keep of a row
// block at a time (4 rows × 256 float64: 8 KB, within the first-level cache).
const rowBlock = 256

// MatMulAddT adds c·(A B)ᵀ to dst: dst[k·m + i] += c · Σj A[i,j]·B[j,k] for the
// row-major A [m×r] and B [r×n] and dst [n×m], each sum taken from zero in
// the order of j and scaled once, as the plain triple loop does; the result
// is that loop's bit for bit (rows of A four at a time through Axpy4, columns
// of B in blocks of rowBlock). Rows of A are split among goroutines.
func MatMulAddT(dst, a, b []float64, m, r, n int, c float64) {
	if matMulAddT != nil {
		matMulAddT(dst, a, b, m, r, n, c)
		return
	}
	ParallelFor((m+3)/4, func(lo, hi int) {
		acc := make([]float64, 4*rowBlock)
		for blk := lo; blk < hi; blk++ {
			i0 := 4 * blk
			rows := min(4, m-i0)
			for k0 := 0; k0 < n; k0 += rowBlock {
				kc := min(rowBlock, n-k0)
				s := acc[:4*kc]
				clear(s)
				for j := 0; j < r; j++ {
					x := b[j*n+k0 : j*n+k0+kc]
					if rows == 4 {
						Axpy4(s[:kc], s[kc:2*kc], s[2*kc:3*kc], s[3*kc:], a[i0*r+j], a[(i0+1)*r+j], a[(i0+2)*r+j], a[(i0+3)*r+j], x)
						continue
					}
					for q := 0; q < rows; q++ {
						Axpy(s[q*kc:(q+1)*kc], a[(i0+q)*r+j], x)
					}
				}
				for q := 0; q < rows; q++ {
					for kk, v := range s[q*kc : (q+1)*kc] {
						dst[(k0+kk)*m+i0+q] += c * v
					}
				}
			}
		}
	})
}

// MatTMulAdd adds c·Rᵀ B to dst, accumulating into it: for each dst[i,j]
// (row-major [m×r]) in the order of k, dst[i,j] += (c·R[k,i])·B[k,j] for the
// row-major R [n×m] and B [n×r], skipping the k whose c·R[k,i] is zero; the
// result is that loop's bit for bit (rows of dst four at a time through Axpy4,
// columns in blocks of rowBlock). Rows of dst are split among goroutines.
func MatTMulAdd(dst, res, b []float64, m, r, n int, c float64) {
	if matTMulAdd != nil {
		matTMulAdd(dst, res, b, m, r, n, c)
		return
	}
	ParallelFor((m+3)/4, func(lo, hi int) {
		var d [4][]float64
		var s [4]float64
		for blk := lo; blk < hi; blk++ {
			i0 := 4 * blk
			rows := min(4, m-i0)
			for j0 := 0; j0 < r; j0 += rowBlock {
				jc := min(rowBlock, r-j0)
				for q := 0; q < rows; q++ {
					d[q] = dst[(i0+q)*r+j0 : (i0+q)*r+j0+jc]
				}
				for k := 0; k < n; k++ {
					x := b[k*r+j0 : k*r+j0+jc]
					nonzero := 0
					for q := 0; q < rows; q++ {
						s[q] = c * res[k*m+i0+q]
						if s[q] != 0 {
							nonzero++
						}
					}
					if nonzero == 4 {
						Axpy4(d[0], d[1], d[2], d[3], s[0], s[1], s[2], s[3], x)
						continue
					}
					for q := 0; q < rows; q++ {
						if s[q] != 0 {
							Axpy(d[q], s[q], x)
						}
					}
				}
			}
		}
	})
}
