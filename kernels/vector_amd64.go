//go:build goexperiment.simd && amd64

package kernels

import (
	"math"
	"simd/archsimd"
	"unsafe"
)

func init() {
	if archsimd.X86.AVX2() {
		dot32 = dotAVX2
		radix3f32, radix4f32, radix8f32 = radix3AVX2, radix4AVX2, radix8AVX2
		unpackRowTile32, packRowTile32 = unpackRowTileAVX2, packRowTileAVX2
		matMulAddT, matTMulAdd = matMulAddTAVX2, matTMulAddAVX2
		wide = archsimd.X86.AVX512()
	}
}

// dotAVX2 is DotT for float32: the four accumulators s0…s3 of DotT are the
// lanes of one float64 vector, each adding the same products in the same
// order, so the result is DotT's bit for bit.
func dotAVX2(a, b []float32) float64 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var acc archsimd.Float64x4
	i := 0
	for ; i+4 <= n; i += 4 {
		x := archsimd.LoadFloat32x4((*[4]float32)(a[i : i+4])).ConvertToFloat64()
		y := archsimd.LoadFloat32x4((*[4]float32)(b[i : i+4])).ConvertToFloat64()
		acc = acc.Add(x.Mul(y))
	}
	var s [4]float64
	acc.Store(&s)
	for ; i < n; i++ {
		s[0] += float64(a[i]) * float64(b[i])
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}

// The float32 butterflies of radix 3, 4 and 8 in vector registers, four
// complex values (eight float32 parts, interleaved) a vector along the batch
// index q, for which the twiddles are the same. Each lane performs the scalar
// butterfly's operations in its order: products by ±1 and swaps of the
// parts are exact, a twiddle product (a·w) is (ar·wr, ai·wr) ∓ (ai·wi, ar·wi)
// by VADDSUBPS, as the scalar (ar·wr − ai·wi, ar·wi + ai·wr); so the results
// are the scalar butterflies' bit for bit. A batch of fewer than four values
// runs the scalar code; a batch that is not a multiple of four ends with one
// vector over its last four values (recomputing some, which changes nothing:
// x and y do not overlap).

var swapRI = archsimd.LoadUint32x8(&[8]uint32{1, 0, 3, 2, 5, 4, 7, 6})

// parts views c as its interleaved parts.
func parts(c []Complex[float32]) []float32 {
	if len(c) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&c[0])), 2*len(c))
}

func ld(s []float32, q int) archsimd.Float32x8 {
	return archsimd.LoadFloat32x8((*[8]float32)(s[2*q : 2*q+8]))
}

func st(v archsimd.Float32x8, s []float32, q int) { v.Store((*[8]float32)(s[2*q : 2*q+8])) }

// alternating returns the vector (a, b, a, b, …).
func alternating(a, b float32) archsimd.Float32x8 {
	return archsimd.LoadFloat32x8(&[8]float32{a, b, a, b, a, b, a, b})
}

// twiddle returns a·w for the broadcast parts wr = (w.Re, …), wi = (w.Im, …).
func twiddle(a, wr, wi archsimd.Float32x8) archsimd.Float32x8 {
	return a.Mul(wr).AddSub(a.Permute(swapRI).Mul(wi))
}

// rot returns (sign·di, −sign·dr) for each complex d: ∓i·d; pm = (sign, −sign, …).
func rot(d, pm archsimd.Float32x8) archsimd.Float32x8 { return d.Permute(swapRI).Mul(pm) }

// nextQ is the start of the vector after the one at q in a batch of n ≥ 4
// values: q + 4, or n − 4 for the last, overlapping one; n at the end.
func nextQ(q, n int) int {
	q += 4
	if q < n && q+4 > n {
		q = n - 4
	}
	return q
}

func radix4AVX2(y, x []Complex[float32], s, m int, tw []Complex[float32], sign float32) {
	if s < 4 {
		radix4(y, x, s, m, tw, sign)
		return
	}
	pm := alternating(sign, -sign)
	sm := s * m
	xf, yf := parts(x), parts(y)
	for p := 0; p < m; p++ {
		a0, a1, a2, a3 := xf[2*s*p:], xf[2*(sm+s*p):], xf[2*(2*sm+s*p):], xf[2*(3*sm+s*p):]
		b := 4 * s * p
		y0, y1, y2, y3 := yf[2*b:], yf[2*(b+s):], yf[2*(b+2*s):], yf[2*(b+3*s):]
		var w1r, w1i, w2r, w2i, w3r, w3i archsimd.Float32x8
		if p > 0 {
			w1, w2, w3 := tw[3*p], tw[3*p+1], tw[3*p+2]
			w1r, w1i = archsimd.BroadcastFloat32x8(w1.Re), archsimd.BroadcastFloat32x8(w1.Im)
			w2r, w2i = archsimd.BroadcastFloat32x8(w2.Re), archsimd.BroadcastFloat32x8(w2.Im)
			w3r, w3i = archsimd.BroadcastFloat32x8(w3.Re), archsimd.BroadcastFloat32x8(w3.Im)
		}
		for q := 0; q < s; q = nextQ(q, s) {
			u0, u1, u2, u3 := ld(a0, q), ld(a1, q), ld(a2, q), ld(a3, q)
			t0, t1 := u0.Add(u2), u0.Sub(u2)
			t2, t3 := u1.Add(u3), rot(u1.Sub(u3), pm)
			if p == 0 {
				st(t0.Add(t2), y0, q)
				st(t1.Add(t3), y1, q)
				st(t0.Sub(t2), y2, q)
				st(t1.Sub(t3), y3, q)
				continue
			}
			st(t0.Add(t2), y0, q)
			st(twiddle(t1.Add(t3), w1r, w1i), y1, q)
			st(twiddle(t0.Sub(t2), w2r, w2i), y2, q)
			st(twiddle(t1.Sub(t3), w3r, w3i), y3, q)
		}
	}
}

func radix3AVX2(y, x []Complex[float32], s, m int, tw []Complex[float32], sign float32) {
	if s < 4 {
		radix3(y, x, s, m, tw, sign)
		return
	}
	sn := float32(-float64(sign) * math.Sqrt(3) / 2)
	c := archsimd.BroadcastFloat32x8(-0.5)
	msn := alternating(-sn, sn) // i·sn·d = (−sn·di, sn·dr)
	sm := s * m
	xf, yf := parts(x), parts(y)
	for p := 0; p < m; p++ {
		a0, a1, a2 := xf[2*s*p:], xf[2*(sm+s*p):], xf[2*(2*sm+s*p):]
		b := 3 * s * p
		y0, y1, y2 := yf[2*b:], yf[2*(b+s):], yf[2*(b+2*s):]
		w1, w2 := tw[2*p], tw[2*p+1]
		w1r, w1i := archsimd.BroadcastFloat32x8(w1.Re), archsimd.BroadcastFloat32x8(w1.Im)
		w2r, w2i := archsimd.BroadcastFloat32x8(w2.Re), archsimd.BroadcastFloat32x8(w2.Im)
		for q := 0; q < s; q = nextQ(q, s) {
			u0, u1, u2 := ld(a0, q), ld(a1, q), ld(a2, q)
			t, d := u1.Add(u2), u1.Sub(u2)
			v := u0.Add(c.Mul(t))
			r := d.Permute(swapRI).Mul(msn)
			st(u0.Add(t), y0, q)
			st(twiddle(v.Add(r), w1r, w1i), y1, q)
			st(twiddle(v.Sub(r), w2r, w2i), y2, q)
		}
	}
}

func radix8AVX2(y, x []Complex[float32], s, m int, tw []Complex[float32], sign float32) {
	if s < 4 {
		radix8(y, x, s, m, tw, sign)
		return
	}
	const r = math.Sqrt2 / 2
	rv := archsimd.BroadcastFloat32x8(float32(r))
	pm := alternating(sign, -sign)
	sm := s * m
	xf, yf := parts(x), parts(y)
	for p := 0; p < m; p++ {
		var a [8][]float32
		var yy [8][]float32
		b := 8 * s * p
		for k := range a {
			a[k] = xf[2*(k*sm+s*p):]
			yy[k] = yf[2*(b+k*s):]
		}
		var wr, wi [7]archsimd.Float32x8
		for j := range wr {
			w := Complex[float32]{1, 0}
			if p > 0 {
				w = tw[7*p+j]
			}
			wr[j], wi[j] = archsimd.BroadcastFloat32x8(w.Re), archsimd.BroadcastFloat32x8(w.Im)
		}
		for q := 0; q < s; q = nextQ(q, s) {
			u0, u1, u2, u3 := ld(a[0], q), ld(a[1], q), ld(a[2], q), ld(a[3], q)
			u4, u5, u6, u7 := ld(a[4], q), ld(a[5], q), ld(a[6], q), ld(a[7], q)
			// Even outputs.
			b0, b1, b2, b3 := u0.Add(u4), u1.Add(u5), u2.Add(u6), u3.Add(u7)
			t0, t1 := b0.Add(b2), b0.Sub(b2)
			t2, t3 := b1.Add(b3), rot(b1.Sub(b3), pm)
			st(t0.Add(t2), yy[0], q)
			st(twiddle(t1.Add(t3), wr[1], wi[1]), yy[2], q)
			st(twiddle(t0.Sub(t2), wr[3], wi[3]), yy[4], q)
			st(twiddle(t1.Sub(t3), wr[5], wi[5]), yy[6], q)
			// Odd outputs.
			c0, c1, c2, c3 := u0.Sub(u4), u1.Sub(u5), u2.Sub(u6), u3.Sub(u7)
			c1 = rv.Mul(c1.Add(c1.Permute(swapRI).Mul(pm)))
			c2 = rot(c2, pm)
			c3 = rv.Mul(c3.Permute(swapRI).Mul(pm).Sub(c3))
			t0, t1 = c0.Add(c2), c0.Sub(c2)
			t2, t3 = c1.Add(c3), rot(c1.Sub(c3), pm)
			st(twiddle(t0.Add(t2), wr[0], wi[0]), yy[1], q)
			st(twiddle(t1.Add(t3), wr[2], wi[2]), yy[3], q)
			st(twiddle(t0.Sub(t2), wr[4], wi[4]), yy[5], q)
			st(twiddle(t1.Sub(t3), wr[6], wi[6]), yy[7], q)
		}
	}
}

var conjMask = alternating(1, -1)

// unpackRowTileAVX2 is FFT2T.unpackRowTile for float32, four rows a vector:
// with a = Z[k], b = Z[n−k] of four rows, E = ½(a + conj b) and O =
// ½(swap(a)·(1, −1) + swap(b)) (the scalar (or, oi)), X[k] = (E + wr·O) ∓
// wi·swap(O) and X[n−k] = (conj E + wr'·conj O) + wi'·swap(O), the scalar
// formulas' operations; the four results of each column are stored row by
// row. Fewer than four rows run the scalar code.
func unpackRowTileAVX2(f *FFT2T[float32], t, z []Complex[float32], i0, i1 int) bool {
	h := i1 - i0
	if h < 4 {
		return false
	}
	wc, n, rb := f.wc, f.rowLen, f.rb
	half := archsimd.BroadcastFloat32x8(0.5)
	var buf [8]float32
	for k := 0; k <= n/2; k++ {
		kc := (n - k) % n
		zk := parts(z[k*rb+i0 : k*rb+i1])
		zc := parts(z[kc*rb+i0 : kc*rb+i1])
		wk, wkc := f.half[k], f.half[n-k]
		wr, wi := archsimd.BroadcastFloat32x8(wk.Re), archsimd.BroadcastFloat32x8(wk.Im)
		cr, ci := archsimd.BroadcastFloat32x8(wkc.Re), archsimd.BroadcastFloat32x8(wkc.Im)
		for i := 0; i < h; i = nextQ(i, h) {
			a, b := ld(zk, i), ld(zc, i)
			e := half.Mul(a.Add(b.Mul(conjMask)))
			o := half.Mul(a.Permute(swapRI).Mul(conjMask).Add(b.Permute(swapRI)))
			so := o.Permute(swapRI)
			x1 := e.Add(wr.Mul(o)).AddSub(wi.Mul(so))
			x2 := e.Mul(conjMask).Add(cr.Mul(o.Mul(conjMask))).Add(ci.Mul(so))
			x1.Store(&buf)
			var buf2 [8]float32
			x2.Store(&buf2)
			for l := 0; l < 4; l++ {
				r := (i0 + i + l) * wc
				t[r+k] = Complex[float32]{buf[2*l], buf[2*l+1]}
				t[r+n-k] = Complex[float32]{buf2[2*l], buf2[2*l+1]}
			}
		}
	}
	return true
}

// packRowTileAVX2 is FFT2T.packRowTile for float32, four rows a vector: with
// a = X[k], d = X[n−k] of four rows (imaginary parts zeroed for k = 0),
// 2E = a + conj d, P = a − conj d, O = wr·P + (wi·swap(P))·(1, −1), Z[k] =
// scale·(2E + swap(O)·(−1, 1)), and for n−k the same with Q = d − conj a and
// conj(2E): the scalar formulas' operations. The four values of a column are
// gathered row by row; the results are stored contiguously. Fewer than four
// rows run the scalar code.
func packRowTileAVX2(f *FFT2T[float32], b, c []Complex[float32], i0, i1 int, scale float32) bool {
	h := i1 - i0
	if h < 4 {
		return false
	}
	wc, n, rb := f.wc, f.rowLen, f.rb
	sc := archsimd.BroadcastFloat32x8(scale)
	minusPlus := alternating(-1, 1)
	realOnly := alternating(1, -1).Greater(archsimd.BroadcastFloat32x8(0))
	var ga, gd [8]float32
	for k := 0; k <= n/2; k++ {
		kc := n - k
		wk, wkc := f.half[k], f.half[kc]
		wr, wi := archsimd.BroadcastFloat32x8(wk.Re), archsimd.BroadcastFloat32x8(wk.Im)
		cr, ci := archsimd.BroadcastFloat32x8(wkc.Re), archsimd.BroadcastFloat32x8(wkc.Im)
		bk := parts(b[k*rb+i0 : k*rb+i1])
		var bc []float32
		if kc < n && kc != k {
			bc = parts(b[kc*rb+i0 : kc*rb+i1])
		}
		for i := 0; i < h; i = nextQ(i, h) {
			for l := 0; l < 4; l++ {
				r := (i0 + i + l) * wc
				a, d := c[r+k], c[r+kc]
				ga[2*l], ga[2*l+1] = a.Re, a.Im
				gd[2*l], gd[2*l+1] = d.Re, d.Im
			}
			a, d := archsimd.LoadFloat32x8(&ga), archsimd.LoadFloat32x8(&gd)
			if k == 0 {
				a, d = a.Masked(realOnly), d.Masked(realOnly)
			}
			e := a.Add(d.Mul(conjMask))
			p := a.Sub(d.Mul(conjMask))
			o := wr.Mul(p).Add(wi.Mul(p.Permute(swapRI)).Mul(conjMask))
			st(sc.Mul(e.Add(o.Permute(swapRI).Mul(minusPlus))), bk, i)
			if bc != nil {
				q := d.Sub(a.Mul(conjMask))
				o2 := cr.Mul(q).Add(ci.Mul(q.Permute(swapRI)).Mul(conjMask))
				st(sc.Mul(e.Mul(conjMask).Add(o2.Permute(swapRI).Mul(minusPlus))), bc, i)
			}
		}
	}
	return true
}

// rowGroup is the number of rows of A (or of dst) the tiled products keep
// while they sweep the column tiles: 32 rows of 1,000 float64 (256 KB) and a
// column panel of 1,000 × 16 (128 KB) fit in a second-level cache.
const rowGroup = 32

// matMulAddTAVX2 is MatMulAddT with 4 × 8 tiles of sums in vector registers
// (4 × 16 where the CPU has AVX-512: wide):
// each sum starts at zero and takes its products in the order of j, a product
// and then a sum (no fused multiply-add), so the result is the plain loop's
// bit for bit. A group of rows of A is first packed column by column (a
// copy); tiles at the edges run the scalar loop.
func matMulAddTAVX2(dst, a, b []float64, m, r, n int, c float64) {
	ParallelFor((m+rowGroup-1)/rowGroup, func(lo, hi int) {
		var s [4][8]float64
		var w [4][16]float64
		slab := make([]float64, r*rowGroup+1)
		for g := lo; g < hi; g++ {
			g0, g1 := g*rowGroup, min((g+1)*rowGroup, m)
			for i := g0; i < g1; i++ {
				for j, v := range a[i*r : (i+1)*r] {
					slab[j*rowGroup+i-g0] = v
				}
			}
			for k0 := 0; k0 < n; k0 += 16 {
				kc := min(16, n-k0)
				for i0 := g0; i0 < g1; i0 += 4 {
					rows := min(4, g1-i0)
					if wide && rows == 4 && kc == 16 {
						tile4x16(&w, slab[i0-g0:], b, r, n, k0)
						for q := range w {
							addColumn(dst, w[q][:], m, i0+q, k0, c)
						}
						continue
					}
					for k1 := k0; k1 < k0+kc; k1 += 8 {
						applyTile(&s, dst, a, b, slab[i0-g0:], i0, rows, r, n, m, k1, min(8, k0+kc-k1), c)
					}
				}
			}
		}
	})
}

// applyTile adds c times the sums of a tile of rows × kc (at most 4 × 8)
// from row i0 and column k0 to dst, in vector registers when it is whole.
func applyTile(s *[4][8]float64, dst, a, b, slab []float64, i0, rows, r, n, m, k0, kc int, c float64) {
	if rows == 4 && kc == 8 {
		tile4x8(s, slab, b, r, n, k0)
	} else {
		tileScalar(s, a, b, i0, rows, r, n, k0, kc)
	}
	for q := 0; q < rows; q++ {
		addColumn(dst, s[q][:kc], m, i0+q, k0, c)
	}
}

// addColumn adds c·sums to column i of dst (row-major, m columns) from row
// k0: the transposed write of MatMulAddT.
func addColumn(dst, sums []float64, m, i, k0 int, c float64) {
	for kk, v := range sums {
		dst[(k0+kk)*m+i] += c * v
	}
}

// tile4x8 sets s[q][kk] = Σj A[q, j]·b[j·n + k0 + kk] in the order of j for
// four rows of A, packed as slab[j·rowGroup + q], and eight columns from k0.
func tile4x8(s *[4][8]float64, slab, b []float64, r, n, k0 int) {
	var c00, c01, c10, c11, c20, c21, c30, c31 archsimd.Float64x4
	for j := 0; j < r; j++ {
		x := b[j*n+k0 : j*n+k0+8]
		x0 := archsimd.LoadFloat64x4((*[4]float64)(x[:4]))
		x1 := archsimd.LoadFloat64x4((*[4]float64)(x[4:8]))
		e := slab[j*rowGroup : j*rowGroup+5]
		v := lane(e[0:])
		c00, c01 = c00.Add(v.Mul(x0)), c01.Add(v.Mul(x1))
		v = lane(e[1:])
		c10, c11 = c10.Add(v.Mul(x0)), c11.Add(v.Mul(x1))
		v = lane(e[2:])
		c20, c21 = c20.Add(v.Mul(x0)), c21.Add(v.Mul(x1))
		v = lane(e[3:])
		c30, c31 = c30.Add(v.Mul(x0)), c31.Add(v.Mul(x1))
	}
	c00.Store((*[4]float64)(s[0][:4]))
	c01.Store((*[4]float64)(s[0][4:]))
	c10.Store((*[4]float64)(s[1][:4]))
	c11.Store((*[4]float64)(s[1][4:]))
	c20.Store((*[4]float64)(s[2][:4]))
	c21.Store((*[4]float64)(s[2][4:]))
	c30.Store((*[4]float64)(s[3][:4]))
	c31.Store((*[4]float64)(s[3][4:]))
}

// tileScalar is tile4x8 for an edge tile of rows × kc, in plain loops.
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
// (4 × 16 where the CPU has AVX-512: wide),
// each element accumulated in place in the order of k, its zero coefficients
// skipped, a product and then a sum: the plain loop's result bit for bit.
// The coefficients c·R[k,i] of a group of rows are computed once into a
// packed slab (the same products the loop takes); tiles at the edges run the
// scalar loop.
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
			for j0 := 0; j0 < r; j0 += 16 {
				jc := min(16, r-j0)
				for i0 := g0; i0 < g1; i0 += 4 {
					rows := min(4, g1-i0)
					if wide && rows == 4 && jc == 16 && !zeros {
						adjTile4x16(dst, slab[i0-g0:], b, i0, j0, r, n)
						continue
					}
					for j1 := j0; j1 < j0+jc; j1 += 8 {
						adjTile(dst, slab[i0-g0:], b, i0, rows, j1, min(8, j0+jc-j1), r, n, zeros)
					}
				}
			}
		}
	})
}

// adjTile is matTMulAdd's tile of rows × jc (at most 4 × 8) from row i0 and
// column j0, in vector registers when it is whole and no coefficient of its
// group is zero.
func adjTile(dst, slab, b []float64, i0, rows, j0, jc, r, n int, zeros bool) {
	if rows == 4 && jc == 8 && !zeros {
		adjTile4x8(dst, slab, b, i0, j0, r, n)
		return
	}
	for q := 0; q < rows; q++ {
		d := dst[(i0+q)*r+j0 : (i0+q)*r+j0+jc]
		for k := 0; k < n; k++ {
			if a := slab[k*rowGroup+q]; a != 0 {
				Axpy(d, a, b[k*r+j0:k*r+j0+jc])
			}
		}
	}
}

// lane broadcasts s[0] to a vector (s holds at least two elements).
func lane(s []float64) archsimd.Float64x4 {
	return archsimd.LoadFloat64x2((*[2]float64)(s[:2])).Broadcast1To4()
}

// adjTile4x8 is matTMulAdd's tile of rows i0…i0+3 and columns j0…j0+7 when
// none of the group's coefficients is zero: the coefficient of row i0+q at
// k is slab[k·rowGroup + q].
func adjTile4x8(dst, slab, b []float64, i0, j0, r, n int) {
	p := [4]*[8]float64{}
	for q := range p {
		p[q] = (*[8]float64)(dst[(i0+q)*r+j0 : (i0+q)*r+j0+8])
	}
	ld := func(q, h int) archsimd.Float64x4 { return archsimd.LoadFloat64x4((*[4]float64)(p[q][4*h : 4*h+4])) }
	c00, c01, c10, c11 := ld(0, 0), ld(0, 1), ld(1, 0), ld(1, 1)
	c20, c21, c30, c31 := ld(2, 0), ld(2, 1), ld(3, 0), ld(3, 1)
	for k := 0; k < n; k++ {
		x := b[k*r+j0 : k*r+j0+8]
		x0 := archsimd.LoadFloat64x4((*[4]float64)(x[:4]))
		x1 := archsimd.LoadFloat64x4((*[4]float64)(x[4:8]))
		e := slab[k*rowGroup : k*rowGroup+5]
		v := lane(e[0:])
		c00, c01 = c00.Add(v.Mul(x0)), c01.Add(v.Mul(x1))
		v = lane(e[1:])
		c10, c11 = c10.Add(v.Mul(x0)), c11.Add(v.Mul(x1))
		v = lane(e[2:])
		c20, c21 = c20.Add(v.Mul(x0)), c21.Add(v.Mul(x1))
		v = lane(e[3:])
		c30, c31 = c30.Add(v.Mul(x0)), c31.Add(v.Mul(x1))
	}
	st := func(v archsimd.Float64x4, q, h int) { v.Store((*[4]float64)(p[q][4*h : 4*h+4])) }
	st(c00, 0, 0)
	st(c01, 0, 1)
	st(c10, 1, 0)
	st(c11, 1, 1)
	st(c20, 2, 0)
	st(c21, 2, 1)
	st(c30, 3, 0)
	st(c31, 3, 1)
}

// wide is whether the CPU has AVX-512: the tiled products then take tiles of
// 4 × 16 in 512-bit registers (the same operations a lane).
var wide bool

// lane8 broadcasts s[0] to a 512-bit vector (s holds at least two elements).
func lane8(s []float64) archsimd.Float64x8 {
	return archsimd.LoadFloat64x2((*[2]float64)(s[:2])).Broadcast1To8()
}

// tile4x16 is tile4x8 for sixteen columns from k0, in 512-bit registers.
func tile4x16(w *[4][16]float64, slab, b []float64, r, n, k0 int) {
	var c00, c01, c10, c11, c20, c21, c30, c31 archsimd.Float64x8
	for j := 0; j < r; j++ {
		x := b[j*n+k0 : j*n+k0+16]
		x0 := archsimd.LoadFloat64x8((*[8]float64)(x[:8]))
		x1 := archsimd.LoadFloat64x8((*[8]float64)(x[8:16]))
		e := slab[j*rowGroup : j*rowGroup+5]
		v := lane8(e[0:])
		c00, c01 = c00.Add(v.Mul(x0)), c01.Add(v.Mul(x1))
		v = lane8(e[1:])
		c10, c11 = c10.Add(v.Mul(x0)), c11.Add(v.Mul(x1))
		v = lane8(e[2:])
		c20, c21 = c20.Add(v.Mul(x0)), c21.Add(v.Mul(x1))
		v = lane8(e[3:])
		c30, c31 = c30.Add(v.Mul(x0)), c31.Add(v.Mul(x1))
	}
	c00.Store((*[8]float64)(w[0][:8]))
	c01.Store((*[8]float64)(w[0][8:]))
	c10.Store((*[8]float64)(w[1][:8]))
	c11.Store((*[8]float64)(w[1][8:]))
	c20.Store((*[8]float64)(w[2][:8]))
	c21.Store((*[8]float64)(w[2][8:]))
	c30.Store((*[8]float64)(w[3][:8]))
	c31.Store((*[8]float64)(w[3][8:]))
}

// adjTile4x16 is adjTile4x8 for sixteen columns from j0, in 512-bit registers.
func adjTile4x16(dst, slab, b []float64, i0, j0, r, n int) {
	p := [4]*[16]float64{}
	for q := range p {
		p[q] = (*[16]float64)(dst[(i0+q)*r+j0 : (i0+q)*r+j0+16])
	}
	ld := func(q, h int) archsimd.Float64x8 { return archsimd.LoadFloat64x8((*[8]float64)(p[q][8*h : 8*h+8])) }
	c00, c01, c10, c11 := ld(0, 0), ld(0, 1), ld(1, 0), ld(1, 1)
	c20, c21, c30, c31 := ld(2, 0), ld(2, 1), ld(3, 0), ld(3, 1)
	for k := 0; k < n; k++ {
		x := b[k*r+j0 : k*r+j0+16]
		x0 := archsimd.LoadFloat64x8((*[8]float64)(x[:8]))
		x1 := archsimd.LoadFloat64x8((*[8]float64)(x[8:16]))
		e := slab[k*rowGroup : k*rowGroup+5]
		v := lane8(e[0:])
		c00, c01 = c00.Add(v.Mul(x0)), c01.Add(v.Mul(x1))
		v = lane8(e[1:])
		c10, c11 = c10.Add(v.Mul(x0)), c11.Add(v.Mul(x1))
		v = lane8(e[2:])
		c20, c21 = c20.Add(v.Mul(x0)), c21.Add(v.Mul(x1))
		v = lane8(e[3:])
		c30, c31 = c30.Add(v.Mul(x0)), c31.Add(v.Mul(x1))
	}
	st := func(v archsimd.Float64x8, q, h int) { v.Store((*[8]float64)(p[q][8*h : 8*h+8])) }
	st(c00, 0, 0)
	st(c01, 0, 1)
	st(c10, 1, 0)
	st(c11, 1, 1)
	st(c20, 2, 0)
	st(c21, 2, 1)
	st(c30, 3, 0)
	st(c31, 3, 1)
}
