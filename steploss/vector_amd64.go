//go:build goexperiment.simd && amd64

package steploss

import (
	"simd/archsimd"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/kernels"
)

func init() {
	if !archsimd.X86.AVX2() {
		return
	}
	addProduct32 = addProductAVX2
	accumulateConjProduct32 = accumulateConjProductAVX2
	combineScalars32 = combineScalarsAVX2
	addImages32 = addImagesAVX2
}

// floats views c as its interleaved parts [re0, im0, re1, im1, …].
func floats(c []kernels.Complex[float32]) []float32 {
	if len(c) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&c[0])), 2*len(c))
}

// floats64 views c as its interleaved parts.
func floats64(c []kernels.Complex[float64]) []float64 {
	if len(c) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&c[0])), 2*len(c))
}

var (
	dupEven = archsimd.LoadUint32x8(&[8]uint32{0, 0, 2, 2, 4, 4, 6, 6})
	dupOdd  = archsimd.LoadUint32x8(&[8]uint32{1, 1, 3, 3, 5, 5, 7, 7})
	swapRI  = archsimd.LoadUint32x8(&[8]uint32{1, 0, 3, 2, 5, 4, 7, 6})
	plusMin = archsimd.LoadFloat64x4(&[4]float64{1, -1, 1, -1})
)

// addProductAVX2 is addProduct for float32, four complex values a vector:
// with p = Re(t)·v and q = Im(t)·swap(v), dst += (p0 − q0, p1 + q1) (VADDSUBPS),
// the scalar formulas' operations.
func addProductAVX2(dst, t, v []kernels.Complex[float32]) {
	n := len(dst)
	d, a, b := floats(dst), floats(t[:n]), floats(v[:n])
	q := 0
	for ; q+4 <= n; q += 4 {
		i := 2 * q
		av := archsimd.LoadFloat32x8((*[8]float32)(a[i : i+8]))
		bv := archsimd.LoadFloat32x8((*[8]float32)(b[i : i+8]))
		p := av.Permute(dupEven).Mul(bv)
		r := av.Permute(dupOdd).Mul(bv.Permute(swapRI))
		dv := archsimd.LoadFloat32x8((*[8]float32)(d[i : i+8]))
		dv.Add(p.AddSub(r)).Store((*[8]float32)(d[i : i+8]))
	}
	for ; q < n; q++ {
		x, y := t[q], v[q]
		dst[q].Re += x.Re*y.Re - x.Im*y.Im
		dst[q].Im += x.Re*y.Im + x.Im*y.Re
	}
}

// accumulateConjProductAVX2 is accumulateConjProduct for float32: with the
// products in float64 (exact for float32 factors), acc += (Re(v)·z) +
// (±)(Im(v)·swap(z)), i.e. (vr·zr + vi·zi, vr·zi − vi·zr).
func accumulateConjProductAVX2(acc []kernels.Complex[float64], v, z []kernels.Complex[float32]) {
	n := len(acc)
	c, a, b := floats64(acc), floats(v[:n]), floats(z[:n])
	q := 0
	for ; q+4 <= n; q += 4 {
		i := 2 * q
		av := archsimd.LoadFloat32x8((*[8]float32)(a[i : i+8]))
		bv := archsimd.LoadFloat32x8((*[8]float32)(b[i : i+8]))
		re, im, sw := av.Permute(dupEven), av.Permute(dupOdd), bv.Permute(swapRI)
		for h := 0; h < 2; h++ {
			var reh, imh, bh, swh archsimd.Float32x4
			if h == 0 {
				reh, imh, bh, swh = re.GetLo(), im.GetLo(), bv.GetLo(), sw.GetLo()
			} else {
				reh, imh, bh, swh = re.GetHi(), im.GetHi(), bv.GetHi(), sw.GetHi()
			}
			p := reh.ConvertToFloat64().Mul(bh.ConvertToFloat64())
			r := imh.ConvertToFloat64().Mul(swh.ConvertToFloat64()).Mul(plusMin)
			j := i + 4*h
			cv := archsimd.LoadFloat64x4((*[4]float64)(c[j : j+4]))
			cv.Add(p.Add(r)).Store((*[4]float64)(c[j : j+4]))
		}
	}
	for ; q < n; q++ {
		ar, ai := float64(v[q].Re), float64(v[q].Im)
		zr, zi := float64(z[q].Re), float64(z[q].Im)
		acc[q].Re += ar*zr + ai*zi
		acc[q].Im += ar*zi - ai*zr
	}
}

// combineScalarsAVX2 is engineRun.combine for two scalar terms in
// float32: xp = float32((x + c0·v0) + c1·v1), each sum formed in float64 in
// the scalar loop's order, four pixels a vector.
func combineScalarsAVX2(xp, x, v0, v1 []float32, c0, c1 float64) {
	n := len(x)
	xp, v0, v1 = xp[:n], v0[:n], v1[:n]
	a, b := archsimd.BroadcastFloat64x4(c0), archsimd.BroadcastFloat64x4(c1)
	j := 0
	for ; j+4 <= n; j += 4 {
		s := archsimd.LoadFloat32x4((*[4]float32)(x[j : j+4])).ConvertToFloat64()
		s = s.Add(a.Mul(archsimd.LoadFloat32x4((*[4]float32)(v0[j : j+4])).ConvertToFloat64()))
		s = s.Add(b.Mul(archsimd.LoadFloat32x4((*[4]float32)(v1[j : j+4])).ConvertToFloat64()))
		s.ConvertToFloat32().Store((*[4]float32)(xp[j : j+4]))
	}
	for ; j < n; j++ {
		xp[j] = float32(float64(x[j]) + c0*float64(v0[j]) + c1*float64(v1[j]))
	}
}

// addImagesAVX2 writes xp = x + img in float32, eight pixels a vector.
func addImagesAVX2(xp, x, img []float32) {
	n := len(x)
	xp, img = xp[:n], img[:n]
	j := 0
	for ; j+8 <= n; j += 8 {
		a := archsimd.LoadFloat32x8((*[8]float32)(x[j : j+8]))
		b := archsimd.LoadFloat32x8((*[8]float32)(img[j : j+8]))
		a.Add(b).Store((*[8]float32)(xp[j : j+8]))
	}
	for ; j < n; j++ {
		xp[j] = x[j] + img[j]
	}
}
