//go:build goexperiment.simd && amd64

package problem

import "simd/archsimd"

func init() {
	if !archsimd.X86.AVX2() {
		return
	}
	combineRows32 = combineRowsAVX2
	correlateRow32 = correlateRowAVX2
	residual32 = residualAVX2
	huberTVRow32 = huberTVRowAVX2
}

// load8 loads s[j:j+8].
func load8(s []float32, j int) archsimd.Float32x8 {
	return archsimd.LoadFloat32x8((*[8]float32)(s[j : j+8]))
}

// store8 stores v into s[j:j+8].
func store8(v archsimd.Float32x8, s []float32, j int) { v.Store((*[8]float32)(s[j : j+8])) }

// addWide adds the 8 lanes of v, converted to float64, to a and b.
func addWide(a, b archsimd.Float64x4, v archsimd.Float32x8) (archsimd.Float64x4, archsimd.Float64x4) {
	return a.Add(v.GetLo().ConvertToFloat64()), b.Add(v.GetHi().ConvertToFloat64())
}

// sumWide returns the sum of the lanes of a and b.
func sumWide(a, b archsimd.Float64x4) float64 {
	var t [4]float64
	a.Add(b).Store(&t)
	return (t[0] + t[1]) + (t[2] + t[3])
}

func combineRowsAVX2(out, src []float32, stride int, c []float32) bool {
	n := len(out)
	j := 0
	switch len(c) {
	case 5:
		r0, r1, r2 := src[:n], src[stride:stride+n], src[2*stride:2*stride+n]
		r3, r4 := src[3*stride:3*stride+n], src[4*stride:4*stride+n]
		c0, c1, c2 := archsimd.BroadcastFloat32x8(c[0]), archsimd.BroadcastFloat32x8(c[1]), archsimd.BroadcastFloat32x8(c[2])
		c3, c4 := archsimd.BroadcastFloat32x8(c[3]), archsimd.BroadcastFloat32x8(c[4])
		for ; j+8 <= n; j += 8 {
			v := c0.Mul(load8(r0, j)).Add(c1.Mul(load8(r1, j))).Add(c2.Mul(load8(r2, j))).Add(c3.Mul(load8(r3, j))).Add(c4.Mul(load8(r4, j)))
			store8(v, out, j)
		}
		for ; j < n; j++ {
			out[j] = c[0]*r0[j] + c[1]*r1[j] + c[2]*r2[j] + c[3]*r3[j] + c[4]*r4[j]
		}
		return true
	case 3:
		r0, r1, r2 := src[:n], src[stride:stride+n], src[2*stride:2*stride+n]
		c0, c1, c2 := archsimd.BroadcastFloat32x8(c[0]), archsimd.BroadcastFloat32x8(c[1]), archsimd.BroadcastFloat32x8(c[2])
		for ; j+8 <= n; j += 8 {
			store8(c0.Mul(load8(r0, j)).Add(c1.Mul(load8(r1, j))).Add(c2.Mul(load8(r2, j))), out, j)
		}
		for ; j < n; j++ {
			out[j] = c[0]*r0[j] + c[1]*r1[j] + c[2]*r2[j]
		}
		return true
	}
	return false
}

func correlateRowAVX2(out, in, r []float32) bool {
	n := len(out)
	j := 0
	switch len(r) {
	case 5:
		in = in[:n+4]
		r0, r1, r2 := archsimd.BroadcastFloat32x8(r[0]), archsimd.BroadcastFloat32x8(r[1]), archsimd.BroadcastFloat32x8(r[2])
		r3, r4 := archsimd.BroadcastFloat32x8(r[3]), archsimd.BroadcastFloat32x8(r[4])
		for ; j+8 <= n; j += 8 {
			v := r0.Mul(load8(in, j)).Add(r1.Mul(load8(in, j+1))).Add(r2.Mul(load8(in, j+2))).Add(r3.Mul(load8(in, j+3))).Add(r4.Mul(load8(in, j+4)))
			store8(v, out, j)
		}
		for ; j < n; j++ {
			out[j] = r[0]*in[j] + r[1]*in[j+1] + r[2]*in[j+2] + r[3]*in[j+3] + r[4]*in[j+4]
		}
		return true
	case 3:
		in = in[:n+2]
		r0, r1, r2 := archsimd.BroadcastFloat32x8(r[0]), archsimd.BroadcastFloat32x8(r[1]), archsimd.BroadcastFloat32x8(r[2])
		for ; j+8 <= n; j += 8 {
			store8(r0.Mul(load8(in, j)).Add(r1.Mul(load8(in, j+1))).Add(r2.Mul(load8(in, j+2))), out, j)
		}
		for ; j < n; j++ {
			out[j] = r[0]*in[j] + r[1]*in[j+1] + r[2]*in[j+2]
		}
		return true
	}
	return false
}

func residualAVX2(res, y []float32) float64 {
	n := len(y)
	res = res[:n]
	var a, b archsimd.Float64x4
	j := 0
	for ; j+8 <= n; j += 8 {
		r := load8(res, j).Sub(load8(y, j))
		store8(r, res, j)
		lo, hi := r.GetLo().ConvertToFloat64(), r.GetHi().ConvertToFloat64()
		a, b = a.Add(lo.Mul(lo)), b.Add(hi.Mul(hi))
	}
	s := sumWide(a, b)
	for ; j < n; j++ {
		r := res[j] - y[j]
		res[j] = r
		s += float64(r) * float64(r)
	}
	return s
}

// huberTVRowAVX2 is huberTVImage's loop over the columns j < w−1 of one row
// with a gradient, eight at a time (rows narrower than 9 are left to the
// caller), in two passes: the first computes the per-pixel values,
// Ψ1 (into up, after keeping up − Ψ1 in tt) and Ψ2 (into p2, shifted by one:
// p2[j+1] = Ψ2[i, j], p2[0] = 0); the second adds α·((up − Ψ1 + Ψ2[j−1]) −
// Ψ2[j]) to the gradient, the scalar loop's operations in its order.
// scratch holds 2w values: p2 (w+1), then tt (w−1).
func huberTVRowAVX2(gr, row, next, up, scratch []float32, half, inv2, eps2, eps, alpha float32) (float64, int) {
	w := len(row)
	m := w - 1 // columns with a horizontal difference
	if m < 8 {
		return 0, 0
	}
	gr, next, up = gr[:w], next[:w], up[:w]
	p2, tt := scratch[:w+1], scratch[w+1:w+1+m]
	vHalf, vInv2, vEps2, vEps := archsimd.BroadcastFloat32x8(half), archsimd.BroadcastFloat32x8(inv2), archsimd.BroadcastFloat32x8(eps2), archsimd.BroadcastFloat32x8(eps)
	one := archsimd.BroadcastFloat32x8(1)
	var a, b archsimd.Float64x4
	p2[0] = 0
	// Vectors at 0, 8, …, and a last one at m − 8 overlapping the one before
	// it: its lanes below the previous end (done) are masked out of every
	// store and of the sum, so each column is processed once.
	for j, done := 0, 0; j < m; done, j = j+8, nextVector(j, m) {
		x := load8(row, j)
		d1 := load8(next, j).Sub(x)
		d2 := load8(row, j+1).Sub(x)
		r2 := d1.Mul(d1).Add(d2.Mul(d2))
		r := r2.Sqrt()
		v := r2.Mul(vInv2).Merge(r.Sub(vHalf), r2.LessEqual(vEps2))
		q := one.Div(r.Max(vEps))
		p1 := d1.Mul(q)
		t := load8(up, j).Sub(p1)
		if done <= j {
			a, b = addWide(a, b, v)
			store8(t, tt, j)
			store8(p1, up, j)
			store8(d2.Mul(q), p2, j+1)
			continue
		}
		keep := lanesFrom(done - j)
		a, b = addWide(a, b, v.Masked(keep))
		t.StoreMasked((*[8]float32)(tt[j:j+8]), keep)
		p1.StoreMasked((*[8]float32)(up[j:j+8]), keep)
		d2.Mul(q).StoreMasked((*[8]float32)(p2[j+1:j+9]), keep)
	}
	vAlpha := archsimd.BroadcastFloat32x8(alpha)
	for j, done := 0, 0; j < m; done, j = j+8, nextVector(j, m) {
		u := load8(tt, j).Add(load8(p2, j)).Sub(load8(p2, j+1))
		g := load8(gr, j).Add(vAlpha.Mul(u))
		if done <= j {
			store8(g, gr, j)
			continue
		}
		g.StoreMasked((*[8]float32)(gr[j:j+8]), lanesFrom(done-j))
	}
	// The caller does the last column with Ψ2[i, m−1] = p2[m].
	return sumWide(a, b), m
}

// nextVector is the start of the 8-lane vector after the one at j in a row
// of m ≥ 8 values: j + 8, or m − 8 for the last, overlapping one; m at the
// end.
func nextVector(j, m int) int {
	j += 8
	if j < m && j+8 > m {
		j = m - 8
	}
	return j
}

var laneIndex = archsimd.LoadFloat32x8(&[8]float32{0, 1, 2, 3, 4, 5, 6, 7})

// lanesFrom returns the mask of lanes l ≥ first.
func lanesFrom(first int) archsimd.Mask32x8 {
	return laneIndex.GreaterEqual(archsimd.BroadcastFloat32x8(float32(first)))
}
