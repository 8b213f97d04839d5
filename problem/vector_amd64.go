//go:build !purego

package problem

import (
	"unsafe"

	"github.com/greedyl2o/greedyl2o/kernels/vec"
)

func init() {
	if !vec.AVX2 {
		return
	}
	combineRows32 = combineRowsVec[float32]
	correlateRow32 = correlateRowVec[float32]
	combineRows64 = combineRowsVec[float64]
	correlateRow64 = correlateRowVec[float64]
	residual32 = residualVec
	huberTVRow32 = huberTVRowVec
	huberTVRow64 = huberTVRowVec64
}

// lanes is the number of F in a 32-byte vector.
func lanes[F float32 | float64]() int { return 32 / int(unsafe.Sizeof(F(0))) }

// combineRowsVec is combineRows for 3 or 5 coefficients: whole vectors by
// vec.Combine3x/Combine5x, the rest by the scalar formula (the same
// operations in the same order).
func combineRowsVec[F float32 | float64](out, src []F, stride int, c []F) bool {
	n := len(out)
	k := len(c)
	if k != 3 && k != 5 {
		return false
	}
	whole := n / lanes[F]() * lanes[F]()
	size := int(unsafe.Sizeof(F(0)))
	_ = src[(k-1)*stride+n-1]
	if whole > 0 {
		o, s, cp := unsafe.Pointer(&out[0]), unsafe.Pointer(&src[0]), unsafe.Pointer(&c[0])
		switch {
		case size == 4 && k == 3:
			vec.Combine3x32((*float32)(o), (*float32)(s), stride*size, whole*size, (*float32)(cp))
		case size == 4:
			vec.Combine5x32((*float32)(o), (*float32)(s), stride*size, whole*size, (*float32)(cp))
		case k == 3:
			vec.Combine3x64((*float64)(o), (*float64)(s), stride*size, whole*size, (*float64)(cp))
		default:
			vec.Combine5x64((*float64)(o), (*float64)(s), stride*size, whole*size, (*float64)(cp))
		}
	}
	for j := whole; j < n; j++ {
		v := c[0] * src[j]
		for u := 1; u < k; u++ {
			v += c[u] * src[u*stride+j]
		}
		out[j] = v
	}
	return true
}

// correlateRowVec is correlateRow for 3 or 5 coefficients: whole vectors by
// vec.Correlate3x/Correlate5x, the rest by the scalar formula.
func correlateRowVec[F float32 | float64](out, in, r []F) bool {
	n := len(out)
	k := len(r)
	if k != 3 && k != 5 {
		return false
	}
	in = in[:n+k-1]
	whole := n / lanes[F]() * lanes[F]()
	size := int(unsafe.Sizeof(F(0)))
	if whole > 0 {
		o, s, rp := unsafe.Pointer(&out[0]), unsafe.Pointer(&in[0]), unsafe.Pointer(&r[0])
		switch {
		case size == 4 && k == 3:
			vec.Correlate3x32((*float32)(o), (*float32)(s), whole*size, (*float32)(rp))
		case size == 4:
			vec.Correlate5x32((*float32)(o), (*float32)(s), whole*size, (*float32)(rp))
		case k == 3:
			vec.Correlate3x64((*float64)(o), (*float64)(s), whole*size, (*float64)(rp))
		default:
			vec.Correlate5x64((*float64)(o), (*float64)(s), whole*size, (*float64)(rp))
		}
	}
	for j := whole; j < n; j++ {
		v := r[0] * in[j]
		for u := 1; u < k; u++ {
			v += r[u] * in[j+u]
		}
		out[j] = v
	}
	return true
}

// residualVec replaces res by res − y and returns Σ res² in float64: eight
// partial sums (the lanes of vec.Residual32) added as ((s0+s4) + (s1+s5)) +
// ((s2+s6) + (s3+s7)), then the tail in order.
func residualVec(res, y []float32) float64 {
	n := len(y)
	res = res[:n]
	var s [8]float64
	whole := n / 8 * 8
	if whole > 0 {
		vec.Residual32(&res[0], &y[0], 4*whole, &s)
	}
	sum := ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]))
	for j := whole; j < n; j++ {
		r := res[j] - y[j]
		res[j] = r
		sum += float64(r) * float64(r)
	}
	return sum
}

// huberTVRowVec is huberTVImage's loop over the columns j < w−1 of one row
// with a gradient, eight columns a vector (vec.HuberRow32) for the whole
// vectors, in two passes: the first computes the per-pixel values, Ψ1 (into
// up, after keeping up − Ψ1 in tt) and Ψ2 (into p2, shifted by one: p2[j+1]
// = Ψ2[i, j], p2[0] = 0); the second adds α·((up − Ψ1 + Ψ2[j−1]) − Ψ2[j])
// to the gradient, the scalar loop's operations in its order. The caller's
// scalar loop does the columns from the returned count on, with Ψ2 of the
// column before in scratch[done]. scratch holds 2w values: p2 (w+1), then
// tt (w−1).
func huberTVRowVec(gr, row, next, up, scratch []float32, half, inv2, eps2, eps, alpha float32) (float64, int) {
	w := len(row)
	m := w - 1 // columns with a horizontal difference
	whole := m / 8 * 8
	scratch[0] = 0
	if whole == 0 {
		return 0, 0
	}
	gr, next, up = gr[:w], next[:w], up[:w]
	p2, tt := scratch[:w+1], scratch[w+1:w+1+m]
	c := [6]float32{half, inv2, eps2, eps, alpha, 1}
	var s [8]float64
	vec.HuberRow32(&gr[0], &row[0], &next[0], &up[0], &p2[0], &tt[0], nil, 4*whole, &c, &s)
	return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7])), whole
}

// huberTVRowVec64 is huberTVRowVec for float64, four columns a vector: the
// per-pixel values go to scratch[2w:] (w−1 values) for the caller to add in
// the order of the columns. It returns the number of columns done.
func huberTVRowVec64(gr, row, next, up, scratch []float64, half, inv2, eps2, eps, alpha float64) int {
	w := len(row)
	m := w - 1
	whole := m / 4 * 4
	scratch[0] = 0
	if whole == 0 {
		return 0
	}
	gr, next, up = gr[:w], next[:w], up[:w]
	p2, tt, vals := scratch[:w+1], scratch[w+1:w+1+m], scratch[2*w:2*w+m]
	c := [6]float64{half, inv2, eps2, eps, alpha, 1}
	vec.HuberRow64(&gr[0], &row[0], &next[0], &up[0], &p2[0], &tt[0], &vals[0], 8*whole, &c, nil)
	return whole
}
