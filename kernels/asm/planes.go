package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Kernels of package gpu's float32 host plane operations (NetOps on the
// host32 device: leaky ReLU, plane sums and dot products, instance norm and
// the per-plane combinations), one plane at a time over n bytes, a multiple
// of 32. Their sums are float64 in eight lanes (lanes 0–3 the first four
// values of each vector of eight, lanes 4–7 the last four), the products of
// two float32 values exact in float64; the combinations fuse.

func planeKernels32() {
	leakyMask32()
	planeSums32("PlaneSum32", true, false)
	planeSums32("PlaneDot32", false, true)
	planeSums32("PlaneSumDot32", true, true)
	shiftSquares32()
	combine32(false)
	combine32(true)
}

// halves converts the two halves of the float32 vector v to float64.
func halves(v reg.VecVirtual) (lo, hi reg.VecVirtual) {
	lo, hi = YMM(), YMM()
	VCVTPS2PD(v.AsX(), lo)
	hx := XMM()
	VEXTRACTF128(U8(1), v, hx)
	VCVTPS2PD(hx, hi)
	return lo, hi
}

// bcast32 broadcasts the float32 parameter name to a vector.
func bcast32(name string) reg.VecVirtual {
	v := YMM()
	VBROADCASTSS(Load(Param(name), XMM()), v)
	return v
}

// leakyMask32 is dst = u where x > 0, slope·u elsewhere (NaN included).
func leakyMask32() {
	TEXT("LeakyMask32", NOSPLIT, "func(dst, x, u *float32, n int, slope float32)")
	Pragma("noescape")
	Doc("LeakyMask32 writes dst = u where x > 0 and slope·u elsewhere (n bytes): package gpu's LeakyMask.")
	d, x, u, n := ld("dst"), ld("x"), ld("u"), ld("n")
	sl := bcast32("slope")
	zero := YMM()
	VXORPS(zero, zero, zero)
	loop("leaky32", n, func() {
		m, uv, s := YMM(), YMM(), YMM()
		VCMPPS(U8(0x11), Mem{Base: x}, zero, m) // 0 < x, ordered: false for NaN
		VMOVUPS(Mem{Base: u}, uv)
		VMULPS(uv, sl, s)
		VBLENDVPS(m, uv, s, s)
		VMOVUPS(s, Mem{Base: d})
		for _, r := range []reg.GPVirtual{d, x, u} {
			ADDQ(U32(32), r)
		}
	})
	VZEROUPPER()
	RET()
}

// planeSums32 adds, in float64, Σ x (sum) to s[0:8] and Σ x·y (dot) to the
// next eight lanes of s (s[0:8] when sum is false).
func planeSums32(name string, sum, dot bool) {
	sig, what := "func(x *float32, n int, s *[8]float64)", "Σ x"
	switch {
	case sum && dot:
		sig, what = "func(x, y *float32, n int, s *[16]float64)", "Σ x to s[0:8] and Σ x·y to s[8:16]"
	case dot:
		sig, what = "func(x, y *float32, n int, s *[8]float64)", "Σ x·y"
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(name + " adds, in float64, " + what + " over n bytes, lane l of s taking the values j with j mod 8 = l.")
	x, n, sp := ld("x"), ld("n"), ld("s")
	var y reg.GPVirtual
	if dot {
		y = ld("y")
	}
	nacc := 2
	if sum && dot {
		nacc = 4
	}
	acc := make([]reg.VecVirtual, nacc)
	for k := range acc {
		acc[k] = YMM()
		VMOVUPD(row(sp, k), acc[k])
	}
	loop(name, n, func() {
		lo, hi := YMM(), YMM()
		VCVTPS2PD(Mem{Base: x}, lo)
		VCVTPS2PD(Mem{Base: x, Disp: 16}, hi)
		k := 0
		if sum {
			VADDPD(lo, acc[0], acc[0])
			VADDPD(hi, acc[1], acc[1])
			k = 2
		}
		if dot {
			ylo, yhi := YMM(), YMM()
			VCVTPS2PD(Mem{Base: y}, ylo)
			VCVTPS2PD(Mem{Base: y, Disp: 16}, yhi)
			VFMADD231PD(ylo, lo, acc[k]) // the product is exact: a product and a sum
			VFMADD231PD(yhi, hi, acc[k+1])
			ADDQ(U32(32), y)
		}
		ADDQ(U32(32), x)
	})
	for k := range acc {
		VMOVUPD(acc[k], row(sp, k))
	}
	VZEROUPPER()
	RET()
}

// shiftSquares32 is z = x + c, adding Σ z² in float64 to s: the centring
// pass of PlaneNormalize.
func shiftSquares32() {
	TEXT("ShiftSquares32", NOSPLIT, "func(z, x *float32, n int, c float32, s *[8]float64)")
	Pragma("noescape")
	Doc("ShiftSquares32 writes z = x + c and adds float64(z)² to s (lanes as PlaneSum32's) over n bytes.")
	z, x, n, sp := ld("z"), ld("x"), ld("n"), ld("s")
	c := bcast32("c")
	a, b := YMM(), YMM()
	VMOVUPD(row(sp, 0), a)
	VMOVUPD(row(sp, 1), b)
	loop("shiftsq32", n, func() {
		v := YMM()
		VADDPS(Mem{Base: x}, c, v)
		VMOVUPS(v, Mem{Base: z})
		lo, hi := halves(v)
		VFMADD231PD(lo, lo, a)
		VFMADD231PD(hi, hi, b)
		ADDQ(U32(32), z)
		ADDQ(U32(32), x)
	})
	VMOVUPD(a, row(sp, 0))
	VMOVUPD(b, row(sp, 1))
	VZEROUPPER()
	RET()
}

// combine32 is y = a·x + (b·z + c) (withZ) or y = a·x + c, fused.
func combine32(withZ bool) {
	name, sig, what := "Affine32", "func(y, x *float32, n int, a, c float32)", "y = a·x + c (a fused multiply-add)"
	if withZ {
		name, sig, what = "Combine32", "func(y, x, z *float32, n int, a, b, c float32)", "y = a·x + (b·z + c) (two fused multiply-adds)"
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(name + " writes " + what + " over n bytes.")
	y, x, n := ld("y"), ld("x"), ld("n")
	ptrs := []reg.GPVirtual{y, x}
	var z reg.GPVirtual
	var b reg.VecVirtual
	if withZ {
		z, b = ld("z"), bcast32("b")
		ptrs = append(ptrs, z)
	}
	a, c := bcast32("a"), bcast32("c")
	loop(name, n, func() {
		v := YMM()
		VMOVAPS(c, v)
		if withZ {
			VFMADD231PS(Mem{Base: z}, b, v)
		}
		VFMADD231PS(Mem{Base: x}, a, v)
		VMOVUPS(v, Mem{Base: y})
		for _, r := range ptrs {
			ADDQ(U32(32), r)
		}
	})
	VZEROUPPER()
	RET()
}
