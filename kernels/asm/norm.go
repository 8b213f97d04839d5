package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Kernels of package banert's hidden layers (bias, instance norm, affine
// map, leaky ReLU, and their backward pass) in float64. The sums run four
// planes at a time, one plane a lane: four vectors of four columns, one
// from each plane, are transposed into four vectors of one column of the
// four planes, which are added in the order of the columns, so that every
// lane sums its plane in the order of the scalar loop. Parameter blocks hold
// one vector (four lanes) a row.

// transpose4 returns the vectors of columns 0…3 of the four rows at g.at(0…3).
func transpose4(g ptrs) [4]reg.VecVirtual {
	a, c := YMM(), YMM()
	VMOVUPD(g.at(0), a)
	VMOVUPD(g.at(2), c)
	return transposeRegs(a, g.at(1), c, g.at(3))
}

// transposeRegs transposes the rows a, b, c, d (b and d may be memory).
func transposeRegs(a reg.VecVirtual, b Op, c reg.VecVirtual, d Op) [4]reg.VecVirtual {
	t0, t1, t2, t3 := YMM(), YMM(), YMM(), YMM()
	VUNPCKLPD(b, a, t0) // a0 b0 a2 b2
	VUNPCKHPD(b, a, t1) // a1 b1 a3 b3
	VUNPCKLPD(d, c, t2) // c0 d0 c2 d2
	VUNPCKHPD(d, c, t3) // c1 d1 c3 d3
	var col [4]reg.VecVirtual
	for k := range col {
		col[k] = YMM()
	}
	VPERM2F128(U8(0x20), t2, t0, col[0])
	VPERM2F128(U8(0x20), t3, t1, col[1])
	VPERM2F128(U8(0x31), t2, t0, col[2])
	VPERM2F128(U8(0x31), t3, t1, col[3])
	return col
}

// row returns row k (one vector) of the parameter block at base.
func row(base reg.GPVirtual, k int) Mem { return Mem{Base: base, Disp: 32 * k} }

// planeSums emits PlaneSums4x64 (squares false: s[l] += Σ (x_l + o_l)) or
// PlaneSquares4x64 (s[l] += Σ ((x_l + o_l) − m_l)²), over the planes
// x + l·ps, l < 4: blockStats' two sums.
func planeSums(squares bool) {
	name, what := "PlaneSums4x64", "(x_l[i] + p[0][l])"
	if squares {
		name, what = "PlaneSquares4x64", "((x_l[i] + p[0][l]) − p[1][l])²"
	}
	TEXT(name, NOSPLIT, "func(x *float64, ps, n int, p *[2][4]float64, s *[4]float64)")
	Pragma("noescape")
	Doc(name + " adds Σ_i " + what + " to s[l] in the order of i for the planes x_l = x + l·ps, l < 4 (ps and n in bytes, n a multiple of 32): see banert's blockStats.")
	g := group("x", "ps", 4)
	n, pp, sp := ld("n"), ld("p"), ld("s")
	acc := YMM()
	VMOVUPD(Mem{Base: sp}, acc)
	loop(name, n, func() {
		for _, c := range transpose4(g) {
			VADDPD(row(pp, 0), c, c)
			if squares {
				VSUBPD(row(pp, 1), c, c)
				VMULPD(c, c, c)
			}
			VADDPD(c, acc, acc)
		}
		g.advance(32)
	})
	VMOVUPD(acc, Mem{Base: sp})
	VZEROUPPER()
	RET()
}

// Rows of the parameter blocks of the layer kernels.
const (
	pBias, pMean, pInv, pScale, pOffset, pMu1, pMuz = 0, 1, 2, 3, 4, 5, 6
	pOne, pSlope, pZero                             = 5, 6, 7 // NormLayerRow64, NormLayerGradSums4x64
)

// leaky sets f to the leaky ReLU's factor of z: one where z > 0, the slope
// elsewhere (−0 and NaN included), as banert's leakyFactor; one, slope and
// zero are rows of the block at pp.
func leaky(z, f reg.VecVirtual, pp reg.GPVirtual, one, slope, zero int) {
	m := YMM()
	VCMPPD(U8(0x1e), row(pp, zero), z, m) // z > 0, ordered
	VMOVUPD(row(pp, slope), f)
	VBLENDVPD(m, row(pp, one), f, f)
}

// normLayerRow emits NormLayerRow64: banert's normLayer on one plane.
func normLayerRow() {
	TEXT("NormLayerRow64", NOSPLIT, "func(y, x *float64, n int, p *[8][4]float64)")
	Pragma("noescape")
	Doc("NormLayerRow64 sets y[i] = leaky(z)·z, z = γ·(((x[i] + b) − μ)·inv) + β, over n bytes (a multiple of 32); p's rows are b, μ, inv, γ, β, 1, the slope and 0, each in every lane (see banert's normLayer).")
	y, x, n, pp := ld("y"), ld("x"), ld("n"), ld("p")
	loop("NormLayerRow64", n, func() {
		z, f := YMM(), YMM()
		VMOVUPD(Mem{Base: x}, z)
		VADDPD(row(pp, pBias), z, z)
		VSUBPD(row(pp, pMean), z, z)
		VMULPD(row(pp, pInv), z, z)
		VMULPD(row(pp, pScale), z, z)
		VADDPD(row(pp, pOffset), z, z)
		leaky(z, f, pp, pOne, pSlope, pZero)
		VMULPD(z, f, f)
		VMOVUPD(f, Mem{Base: y})
		ADDQ(U32(32), x)
		ADDQ(U32(32), y)
	})
	VZEROUPPER()
	RET()
}

// normLayerGradSums emits NormLayerGradSums4x64: the four sums of the first
// pass of banert's normLayerBackward, four planes at a time.
func normLayerGradSums() {
	TEXT("NormLayerGradSums4x64", NOSPLIT, "func(x, u *float64, ps, n int, p *[16][4]float64, s *[4][4]float64)")
	Pragma("noescape")
	Doc("NormLayerGradSums4x64 adds, in the order of i, Σ d·z₂, Σ d and Σ e, Σ (e·(z₁ − μ))·inv to s[0…3][l] for the planes x_l = x + l·ps and u_l = u + l·ps (l < 4; ps and n in bytes, n a multiple of 32), where z₁ = x + b, z₂ = (z₁ − μ)·inv, z₃ = γ·z₂ + β, d = leaky(z₃)·u and e = γ·d + 0; p's rows 0…4 are b, μ, inv, γ, β a lane a plane, rows 5…7 are 1, the slope and 0, and rows 8…15 scratch (see banert's normLayerBackward).")
	gx := group("x", "ps", 4)
	u := ld("u")
	gu := ptrs{a: u, s: gx.s, s3: gx.s3}
	n, pp, sp := ld("n"), ld("p"), ld("s")
	var acc [4]reg.VecVirtual
	for k := range acc {
		acc[k] = YMM()
		VMOVUPD(row(sp, k), acc[k])
	}
	loop("NormLayerGradSums4x64", n, func() {
		for k, c := range transpose4(gx) {
			VMOVUPD(c, row(pp, 8+k))
		}
		for k, c := range transpose4(gu) {
			VMOVUPD(c, row(pp, 12+k))
		}
		for k := range 4 {
			t, z2, z3, f := YMM(), YMM(), YMM(), YMM()
			VMOVUPD(row(pp, 8+k), t)
			VADDPD(row(pp, pBias), t, t)
			VSUBPD(row(pp, pMean), t, t) // z₁ − μ
			VMULPD(row(pp, pInv), t, z2)
			VMULPD(row(pp, pScale), z2, z3)
			VADDPD(row(pp, pOffset), z3, z3)
			leaky(z3, f, pp, pOne, pSlope, pZero)
			VMULPD(row(pp, 12+k), f, f) // d
			VMULPD(f, z2, z2)
			VADDPD(z2, acc[0], acc[0])
			VADDPD(f, acc[1], acc[1])
			VMULPD(row(pp, pScale), f, f)
			VADDPD(row(pp, pZero), f, f) // e
			VADDPD(f, acc[2], acc[2])
			VMULPD(t, f, f)
			VMULPD(row(pp, pInv), f, f)
			VADDPD(f, acc[3], acc[3])
		}
		gx.advance(32)
		ADDQ(U32(32), u)
	})
	for k := range acc {
		VMOVUPD(acc[k], row(sp, k))
	}
	VZEROUPPER()
	RET()
}

// normLayerGrad emits NormLayerGrad4x64: the second pass of banert's
// normLayerBackward, four planes at a time.
func normLayerGrad() {
	TEXT("NormLayerGrad4x64", NOSPLIT, "func(dx, x, u *float64, ps, n int, p *[31][4]float64, s *[4]float64)")
	Pragma("noescape")
	Doc("NormLayerGrad4x64 sets dx_l[i] = inv·((e − μ₁) − z₂·μ_z), e = γ·(leaky(z₃)·u_l[i]) + 0 (z₁, z₂, z₃ as in NormLayerGradSums4x64), and adds Σ_i dx_l[i] in the order of i to s[l], for the planes dx_l, x_l, u_l = dx, x, u + l·ps (l < 4; ps and n in bytes, n a multiple of 32); p's row 7l+k is parameter k (b, μ, inv, γ, β, μ₁, μ_z) of plane l in every lane, rows 28…30 are 1, the slope and 0 (see banert's normLayerBackward).")
	gd := group("dx", "ps", 4)
	x, u := ld("x"), ld("u")
	gx := ptrs{a: x, s: gd.s, s3: gd.s3}
	gu := ptrs{a: u, s: gd.s, s3: gd.s3}
	n, pp, sp := ld("n"), ld("p"), ld("s")
	acc := YMM()
	VMOVUPD(Mem{Base: sp}, acc)
	loop("NormLayerGrad4x64", n, func() {
		var d [4]reg.VecVirtual
		for l := range d {
			q := func(k int) Mem { return row(pp, 7*l+k) }
			t, z2, z3, f := YMM(), YMM(), YMM(), YMM()
			VMOVUPD(gx.at(l), t)
			VADDPD(q(pBias), t, t)
			VSUBPD(q(pMean), t, t)
			VMULPD(q(pInv), t, z2)
			VMULPD(q(pScale), z2, z3)
			VADDPD(q(pOffset), z3, z3)
			leaky(z3, f, pp, 28, 29, 30)
			VMULPD(gu.at(l), f, f)
			VMULPD(q(pScale), f, f)
			VADDPD(row(pp, 30), f, f) // e
			VSUBPD(q(pMu1), f, f)
			VMULPD(q(pMuz), z2, z2)
			VSUBPD(z2, f, f)
			VMULPD(q(pInv), f, f)
			VMOVUPD(f, gd.at(l))
			d[l] = f
		}
		for _, c := range transposeRegs(d[0], d[1], d[2], d[3]) {
			VADDPD(c, acc, acc)
		}
		gd.advance(32)
		ADDQ(U32(32), x)
		ADDQ(U32(32), u)
	})
	VMOVUPD(acc, Mem{Base: sp})
	VZEROUPPER()
	RET()
}
