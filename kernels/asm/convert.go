package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

// convertBlock is the number of values the conversion kernels take a loop
// iteration: four vectors of four.
const convertBlock = 16

// narrow emits Narrow64to32: dst[i] = float32(src[i]), four values a
// VCVTPD2PS, rounded to nearest even as Go's conversion (CVTSD2SS).
func narrow() {
	TEXT("Narrow64to32", NOSPLIT, "func(dst *float32, src *float64, n int)")
	Pragma("noescape")
	Doc("Narrow64to32 sets dst[i] = float32(src[i]) for i < n (a multiple of 16), bit for bit Go's conversion.")
	dst, src, n := ld("dst"), ld("src"), ld("n")
	Label("narrowloop")
	CMPQ(n, U32(0))
	JLE(LabelRef("narrowdone"))
	for k := 0; k < 4; k++ {
		x := XMM()
		VCVTPD2PSY(Mem{Base: src, Disp: 32 * k}, x)
		VMOVUPS(x, Mem{Base: dst, Disp: 16 * k})
	}
	ADDQ(U32(8*convertBlock), src)
	ADDQ(U32(4*convertBlock), dst)
	SUBQ(U32(convertBlock), n)
	JMP(LabelRef("narrowloop"))
	Label("narrowdone")
	VZEROUPPER()
	RET()
}

// widen emits Widen32to64: dst[i] = float64(src[i]), four values a
// VCVTPS2PD (exact, as Go's CVTSS2SD).
func widen() {
	TEXT("Widen32to64", NOSPLIT, "func(dst *float64, src *float32, n int)")
	Pragma("noescape")
	Doc("Widen32to64 sets dst[i] = float64(src[i]) for i < n (a multiple of 16), bit for bit Go's conversion.")
	dst, src, n := ld("dst"), ld("src"), ld("n")
	Label("widenloop")
	CMPQ(n, U32(0))
	JLE(LabelRef("widendone"))
	for k := 0; k < 4; k++ {
		y := YMM()
		VCVTPS2PD(Mem{Base: src, Disp: 16 * k}, y)
		VMOVUPD(y, Mem{Base: dst, Disp: 32 * k})
	}
	ADDQ(U32(4*convertBlock), src)
	ADDQ(U32(8*convertBlock), dst)
	SUBQ(U32(convertBlock), n)
	JMP(LabelRef("widenloop"))
	Label("widendone")
	VZEROUPPER()
	RET()
}

// axpyDot64 emits AxpyDot64: z += alpha·b as gonum's floats.AddScaled
// (the product b·alpha, then the sum with z), and, in the same pass, the
// dot product of next with the new z into four lanes as Dot64 (next·z,
// then the sum into s[j mod 4] in the order of j): the two passes of a
// Gram–Schmidt step fused, bit for bit.
func axpyDot64() {
	TEXT("AxpyDot64", NOSPLIT, "func(z, b, next *float64, alpha float64, n int, s *[4]float64)")
	Pragma("noescape")
	Doc("AxpyDot64 sets z[j] = b[j]·alpha + z[j] and adds next[j]·z[j] to s[j mod 4] in the order of j (n bytes, 32 a vector of 4).")
	z, b, next, n, sp := ld("z"), ld("b"), ld("next"), ld("n"), ld("s")
	a := XMM()
	Load(Param("alpha"), a)
	av, acc := YMM(), YMM()
	VBROADCASTSD(a, av)
	VMOVUPD(Mem{Base: sp}, acc)
	loop("axpydot64", n, func() {
		t, u := YMM(), YMM()
		VMOVUPD(Mem{Base: b}, t)
		VMULPD(av, t, t)
		VADDPD(Mem{Base: z}, t, t)
		VMOVUPD(t, Mem{Base: z})
		VMOVUPD(Mem{Base: next}, u)
		VMULPD(t, u, u)
		VADDPD(u, acc, acc)
		ADDQ(U32(32), z)
		ADDQ(U32(32), b)
		ADDQ(U32(32), next)
	})
	VMOVUPD(acc, Mem{Base: sp})
	VZEROUPPER()
	RET()
}
