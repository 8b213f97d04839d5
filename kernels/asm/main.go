// Command asm generates the AVX2 kernels of package kernels/vec
// (vec_amd64.s and stubs_amd64.go) with avo. It is a module of its own, so
// that the project's go.mod does not name avo; run it with `make asm` (or
// `cd kernels/asm && go run . -out ../vec/vec_amd64.s -stubs ../vec/stubs_amd64.go -pkg vec`).
//
// Every kernel works lane by lane on independent elements: each lane performs
// the operations of the scalar Go loop it replaces, in its order, and no
// float64 kernel fuses a multiply with an add, so float64 results are the
// scalar loop's bit for bit. Loop counts are in bytes, multiples of 32 (one
// vector); the Go wrappers do the rest.
package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// prec is one floating-point precision's instructions, in Go's operand order
// (sources first, destination last).
type prec struct {
	name             string // "32" or "64"
	typ              string // Go element type
	size             int    // bytes an element
	add, sub, mul    func(b, a, dst Op)
	addsub           func(b, a, dst Op) // dst = a ∓ b (even lanes −, odd +)
	swap             func(src, dst Op)  // exchange real and imaginary parts
	bcast            func(mem, dst Op)
	load             func(mem, dst Op)
	store            func(src, mem Op)
	dupEven, dupOdd  func(src, dst Op)
	div, maxf        func(b, a, dst Op)
	sqrt             func(src, dst Op)
	lanes, complexes int
}

var f32 = prec{
	name: "32", typ: "float32", size: 4, lanes: 8, complexes: 4,
	add: func(b, a, d Op) { VADDPS(b, a, d) }, sub: func(b, a, d Op) { VSUBPS(b, a, d) },
	mul: func(b, a, d Op) { VMULPS(b, a, d) }, addsub: func(b, a, d Op) { VADDSUBPS(b, a, d) },
	div: func(b, a, d Op) { VDIVPS(b, a, d) }, maxf: func(b, a, d Op) { VMAXPS(b, a, d) },
	sqrt:    func(s, d Op) { VSQRTPS(s, d) },
	swap:    func(s, d Op) { VPERMILPS(U8(0xb1), s, d) },
	bcast:   func(m, d Op) { VBROADCASTSS(m, d) },
	load:    func(m, d Op) { VMOVUPS(m, d) },
	store:   func(s, m Op) { VMOVUPS(s, m) },
	dupEven: func(s, d Op) { VMOVSLDUP(s, d) }, dupOdd: func(s, d Op) { VMOVSHDUP(s, d) },
}

var f64 = prec{
	name: "64", typ: "float64", size: 8, lanes: 4, complexes: 2,
	add: func(b, a, d Op) { VADDPD(b, a, d) }, sub: func(b, a, d Op) { VSUBPD(b, a, d) },
	mul: func(b, a, d Op) { VMULPD(b, a, d) }, addsub: func(b, a, d Op) { VADDSUBPD(b, a, d) },
	div: func(b, a, d Op) { VDIVPD(b, a, d) }, maxf: func(b, a, d Op) { VMAXPD(b, a, d) },
	sqrt:    func(s, d Op) { VSQRTPD(s, d) },
	swap:    func(s, d Op) { VPERMILPD(U8(0x5), s, d) },
	bcast:   func(m, d Op) { VBROADCASTSD(m, d) },
	load:    func(m, d Op) { VMOVUPD(m, d) },
	store:   func(s, m Op) { VMOVUPD(s, m) },
	dupEven: func(s, d Op) { VMOVDDUP(s, d) }, dupOdd: func(s, d Op) { VPERMILPD(U8(0xf), s, d) },
}

func main() {
	ConstraintExpr("!purego")
	for _, p := range []prec{f32, f64} {
		radix3(p)
		radix4(p, true)
		radix4(p, false)
		radix8(p)
		combine(p, 3)
		combine(p, 5)
		correlate(p, 3, false)
		correlate(p, 5, false)
		correlate(p, 3, true)
		correlate(p, 5, true)
		addProduct(p)
		rowDot(p, 3)
		rowDot(p, 5)
		if p.size == 4 {
			convTile(p) // float32 only: float64 runs convAcc3
		}
		convRow(p)
		convWeightsRow(p)
	}
	dot32()
	dot64()
	axpyDot64()
	narrow()
	widen()
	huberRow(f32)
	huberRow(f64)
	residual32()
	accumulateConjProduct32()
	combineScalars32()
	addImages32()
	tile4x8()
	adjTile4x8()
	convAcc3()
	planeSums(false)
	planeSums(true)
	normLayerRow()
	normLayerGradSums()
	normLayerGrad()
	planeKernels32()
	Generate()
}

// ptrs is a group of pointers base + k·stride (k < 4, or k < 8 with a second
// base at 4·stride) addressed from registers.
type ptrs struct {
	a, b, s, s3 reg.GPVirtual
}

func group(base, stride string, k int) ptrs {
	var g ptrs
	g.a = ld(base)
	g.s = ld(stride)
	if k > 2 {
		g.s3 = GP64()
		LEAQ(Mem{Base: g.s, Index: g.s, Scale: 2}, g.s3)
	}
	if k > 4 {
		g.b = GP64()
		LEAQ(Mem{Base: g.a, Index: g.s, Scale: 4}, g.b)
	}
	return g
}

func (g ptrs) at(k int) Mem {
	base := g.a
	if k >= 4 {
		base, k = g.b, k-4
	}
	switch k {
	case 0:
		return Mem{Base: base}
	case 1:
		return Mem{Base: base, Index: g.s, Scale: 1}
	case 2:
		return Mem{Base: base, Index: g.s, Scale: 2}
	default:
		return Mem{Base: base, Index: g.s3, Scale: 1}
	}
}

func (g ptrs) advance(bytes int) {
	ADDQ(U32(bytes), g.a)
	if g.b != nil {
		ADDQ(U32(bytes), g.b)
	}
}

// loop emits `for n > 0 { body(); n -= 32 }` over the parameter n (bytes).
func loop(name string, n reg.GPVirtual, body func()) {
	Label(name + "loop")
	CMPQ(n, U32(0))
	JLE(LabelRef(name + "done"))
	body()
	SUBQ(U32(32), n)
	JMP(LabelRef(name + "loop"))
	Label(name + "done")
}

// twiddle stores a·w for the complex w at mem (parts wr, wi) into dst:
// (ar·wr, ai·wr) ∓ (ai·wi, ar·wi), the scalar (ar·wr − ai·wi, ar·wi + ai·wr).
func twiddle(p prec, a reg.VecVirtual, w Mem, dst Op) {
	t1, t2, t3 := YMM(), YMM(), YMM()
	p.bcast(w, t1)
	p.mul(t1, a, t1)
	p.swap(a, t2)
	p.bcast(w.Offset(p.size), t3)
	p.mul(t3, t2, t2)
	p.addsub(t2, t1, t1)
	p.store(t1, dst)
}

// rot returns swap(d)·pm, pm = (sign, −sign, …): ∓i·d.
func rot(p prec, d, pm reg.VecVirtual) reg.VecVirtual {
	r := YMM()
	p.swap(d, r)
	p.mul(pm, r, r)
	return r
}

func binop(op func(b, a, d Op), a, b Op) reg.VecVirtual {
	d := YMM()
	op(b, a, d)
	return d
}

func fftSig(p prec) string {
	return fmt.Sprintf("func(y, x *%[1]s, ys, xs, n int, tw, c *%[1]s)", p.typ)
}

// radix3 is radix3's inner loop for one p: c = (msn vector, −0.5 vector).
func radix3(p prec) {
	TEXT("Radix3x"+p.name, NOSPLIT, fftSig(p))
	Pragma("noescape")
	Doc("Radix3x" + p.name + " is one radix-3 butterfly run (see kernels' radix3).")
	x, y := group("x", "xs", 2), group("y", "ys", 2)
	n := ld("n")
	tw := ld("tw")
	cp := ld("c")
	msn, c := YMM(), YMM()
	p.load(Mem{Base: cp}, msn)
	p.load(Mem{Base: cp, Disp: 32}, c)
	loop("r3"+p.name, n, func() {
		u0, u1 := YMM(), YMM()
		p.load(x.at(0), u0)
		p.load(x.at(1), u1)
		t := binop(p.add, u1, x.at(2))
		d := binop(p.sub, u1, x.at(2))
		v := binop(p.mul, c, t)
		p.add(v, u0, v)
		r := YMM()
		p.swap(d, r)
		p.mul(msn, r, r)
		p.add(t, u0, u0)
		p.store(u0, y.at(0))
		twiddle(p, binop(p.add, v, r), Mem{Base: tw}, y.at(1))
		twiddle(p, binop(p.sub, v, r), Mem{Base: tw, Disp: 2 * p.size}, y.at(2))
		x.advance(32)
		y.advance(32)
	})
	VZEROUPPER()
	RET()
}

// radix4 is radix4's inner loop for one p, with twiddles tw[0..2] or (first
// false... p = 0) without: c = pm.
func radix4(p prec, twiddled bool) {
	name := "Radix4x" + p.name
	if !twiddled {
		name = "Radix4n" + p.name
	}
	TEXT(name, NOSPLIT, fftSig(p))
	Pragma("noescape")
	Doc(name + " is one radix-4 butterfly run (see kernels' radix4); Radix4n for p = 0.")
	x, y := group("x", "xs", 4), group("y", "ys", 4)
	n := ld("n")
	var tw reg.GPVirtual
	if twiddled {
		tw = ld("tw")
	}
	cp := ld("c")
	pm := YMM()
	p.load(Mem{Base: cp}, pm)
	loop("r4"+name, n, func() {
		u0, u1 := YMM(), YMM()
		p.load(x.at(0), u0)
		p.load(x.at(1), u1)
		t0 := binop(p.add, u0, x.at(2))
		t1 := binop(p.sub, u0, x.at(2))
		t2 := binop(p.add, u1, x.at(3))
		t3 := rot(p, binop(p.sub, u1, x.at(3)), pm)
		p.store(binop(p.add, t0, t2), y.at(0))
		if !twiddled {
			p.store(binop(p.add, t1, t3), y.at(1))
			p.store(binop(p.sub, t0, t2), y.at(2))
			p.store(binop(p.sub, t1, t3), y.at(3))
		} else {
			twiddle(p, binop(p.add, t1, t3), Mem{Base: tw}, y.at(1))
			twiddle(p, binop(p.sub, t0, t2), Mem{Base: tw, Disp: 2 * p.size}, y.at(2))
			twiddle(p, binop(p.sub, t1, t3), Mem{Base: tw, Disp: 4 * p.size}, y.at(3))
		}
		x.advance(32)
		y.advance(32)
	})
	VZEROUPPER()
	RET()
}

// radix8 is radix8's inner loop for one p, twiddles tw[0..6] (ones for p =
// 0): c = (pm vector, √2/2 vector).
func radix8(p prec) {
	TEXT("Radix8x"+p.name, NOSPLIT, fftSig(p))
	Pragma("noescape")
	Doc("Radix8x" + p.name + " is one radix-8 butterfly run (see kernels' radix8).")
	x, y := group("x", "xs", 8), group("y", "ys", 8)
	n := ld("n")
	tw := ld("tw")
	cp := ld("c")
	pm, rv := YMM(), YMM()
	p.load(Mem{Base: cp}, pm)
	p.load(Mem{Base: cp, Disp: 32}, rv)
	w := func(j int) Mem { return Mem{Base: tw, Disp: 2 * j * p.size} }
	loop("r8"+p.name, n, func() {
		var b [4]reg.VecVirtual
		for k := range b {
			u := YMM()
			p.load(x.at(k), u)
			b[k] = binop(p.add, u, x.at(k+4))
		}
		t0, t1 := binop(p.add, b[0], b[2]), binop(p.sub, b[0], b[2])
		t2, t3 := binop(p.add, b[1], b[3]), rot(p, binop(p.sub, b[1], b[3]), pm)
		p.store(binop(p.add, t0, t2), y.at(0))
		twiddle(p, binop(p.add, t1, t3), w(1), y.at(2))
		twiddle(p, binop(p.sub, t0, t2), w(3), y.at(4))
		twiddle(p, binop(p.sub, t1, t3), w(5), y.at(6))
		var c [4]reg.VecVirtual
		for k := range c {
			u := YMM()
			p.load(x.at(k), u)
			c[k] = binop(p.sub, u, x.at(k+4))
		}
		s := rot(p, c[1], pm) // (sign·c1i, −sign·c1r)
		p.add(s, c[1], s)
		p.mul(s, rv, s)
		c[1] = s
		c[2] = rot(p, c[2], pm)
		s = rot(p, c[3], pm)
		p.sub(c[3], s, s)
		p.mul(s, rv, s)
		c[3] = s
		t0, t1 = binop(p.add, c[0], c[2]), binop(p.sub, c[0], c[2])
		t2, t3 = binop(p.add, c[1], c[3]), rot(p, binop(p.sub, c[1], c[3]), pm)
		twiddle(p, binop(p.add, t0, t2), w(0), y.at(1))
		twiddle(p, binop(p.add, t1, t3), w(2), y.at(3))
		twiddle(p, binop(p.sub, t0, t2), w(4), y.at(5))
		twiddle(p, binop(p.sub, t1, t3), w(6), y.at(7))
		x.advance(32)
		y.advance(32)
	})
	VZEROUPPER()
	RET()
}

// combine is out[j] = c0·r0[j] + c1·r1[j] + … (k rows src + u·stride, in
// this order), for n bytes.
func combine(p prec, k int) {
	name := fmt.Sprintf("Combine%dx%s", k, p.name)
	TEXT(name, NOSPLIT, fmt.Sprintf("func(out, src *%[1]s, stride, n int, c *%[1]s)", p.typ))
	Pragma("noescape")
	Doc(name + " writes out[j] = Σ_u c[u]·src[u·stride+j] in the order of u (stride in bytes).")
	out := ld("out")
	src := group("src", "stride", k)
	n := ld("n")
	cp := ld("c")
	cs := make([]reg.VecVirtual, k)
	for u := range cs {
		cs[u] = YMM()
		p.bcast(Mem{Base: cp, Disp: u * p.size}, cs[u])
	}
	loop(name, n, func() {
		acc := binop(p.mul, cs[0], src.at(0))
		for u := 1; u < k; u++ {
			t := binop(p.mul, cs[u], src.at(u))
			p.add(t, acc, acc)
		}
		p.store(acc, Mem{Base: out})
		ADDQ(U32(32), out)
		src.advance(32)
	})
	VZEROUPPER()
	RET()
}

// correlate is out[j] = r0·in[j] + r1·in[j+1] + … for n bytes, or with add
// out[j] += (r0·in[j] + r1·in[j+1] + …).
func correlate(p prec, k int, add bool) {
	name := fmt.Sprintf("Correlate%dx%s", k, p.name)
	doc := name + " writes out[j] = Σ_v r[v]·in[j+v] in the order of v."
	if add {
		name = fmt.Sprintf("CorrelateAdd%dx%s", k, p.name)
		doc = name + " adds Σ_v r[v]·in[j+v], summed in the order of v, to out[j]."
	}
	TEXT(name, NOSPLIT, fmt.Sprintf("func(out, in *%[1]s, n int, r *%[1]s)", p.typ))
	Pragma("noescape")
	Doc(doc)
	out := ld("out")
	in := ld("in")
	n := ld("n")
	rp := ld("r")
	rs := make([]reg.VecVirtual, k)
	for v := range rs {
		rs[v] = YMM()
		p.bcast(Mem{Base: rp, Disp: v * p.size}, rs[v])
	}
	loop(name, n, func() {
		acc := binop(p.mul, rs[0], Mem{Base: in})
		for v := 1; v < k; v++ {
			t := binop(p.mul, rs[v], Mem{Base: in, Disp: v * p.size})
			p.add(t, acc, acc)
		}
		if add {
			p.add(Mem{Base: out}, acc, acc)
		}
		p.store(acc, Mem{Base: out})
		ADDQ(U32(32), out)
		ADDQ(U32(32), in)
	})
	VZEROUPPER()
	RET()
}

// addProduct is dst += t·v for complex values: with P = dupEven(t)·v and
// Q = dupOdd(t)·swap(v), dst + (P ∓ Q), the scalar
// (tr·vr − ti·vi, tr·vi + ti·vr) added to dst.
func addProduct(p prec) {
	name := "AddProduct" + p.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(dst, t, v *%s, n int)", p.typ))
	Pragma("noescape")
	Doc(name + " adds t·v to dst for complex values (n bytes of each).")
	d := ld("dst")
	t := ld("t")
	v := ld("v")
	n := ld("n")
	loop(name, n, func() {
		a, b := YMM(), YMM()
		p.dupEven(Mem{Base: t}, a)
		p.mul(Mem{Base: v}, a, a)
		p.dupOdd(Mem{Base: t}, b)
		s := YMM()
		p.swap(Mem{Base: v}, s)
		p.mul(s, b, b)
		p.addsub(b, a, a)
		p.add(Mem{Base: d}, a, a)
		p.store(a, Mem{Base: d})
		for _, r := range []reg.GPVirtual{d, t, v} {
			ADDQ(U32(32), r)
		}
	})
	VZEROUPPER()
	RET()
}

// dot32 accumulates a[j]·b[j] in float64 into four lanes (j mod 4), each in
// the order of j: DotT's s0…s3.
func dot32() {
	TEXT("Dot32", NOSPLIT, "func(a, b *float32, n int, s *[4]float64)")
	Pragma("noescape")
	Doc("Dot32 adds float64(a[j])·float64(b[j]) to s[j mod 4] in the order of j (n/16 vectors of 4).")
	a := ld("a")
	b := ld("b")
	n := ld("n")
	sp := ld("s")
	acc := YMM()
	VMOVUPD(Mem{Base: sp}, acc)
	Label("dotloop")
	CMPQ(n, U32(0))
	JLE(LabelRef("dotdone"))
	x, y := YMM(), YMM()
	VCVTPS2PD(Mem{Base: a}, x)
	VCVTPS2PD(Mem{Base: b}, y)
	VMULPD(y, x, x)
	VADDPD(x, acc, acc)
	ADDQ(U32(16), a)
	ADDQ(U32(16), b)
	SUBQ(U32(16), n)
	JMP(LabelRef("dotloop"))
	Label("dotdone")
	VMOVUPD(acc, Mem{Base: sp})
	VZEROUPPER()
	RET()
}

// huberRow is huberTVImage's loop over the columns of one row with a
// gradient, a vector of columns at a time, in two passes (see huberTVRow32
// in package problem): c = (ε/2, 1/(2ε), ε², ε, α, 1). The float32 kernel
// adds the values, in float64, to the eight lanes of s; the float64 kernel
// stores them in vals for the caller to add in order.
func huberRow(p prec) {
	name := "HuberRow" + p.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(gr, row, next, up, p2, tt, vals *%[1]s, n int, c *[6]%[1]s, s *[8]float64)", p.typ))
	Pragma("noescape")
	Doc(name + " is the vector part of huberTVRow32 (and its float64 twin) in package problem, over n bytes of columns.")
	gr, row, next, up := ld("gr"), ld("row"), ld("next"), ld("up")
	p2, tt, vals, n, cp, sp := ld("p2"), ld("tt"), ld("vals"), ld("n"), ld("c"), ld("s")
	var k [6]reg.VecVirtual
	for i := range k {
		k[i] = YMM()
		p.bcast(Mem{Base: cp, Disp: p.size * i}, k[i])
	}
	half, inv2, eps2, eps, alpha, one := k[0], k[1], k[2], k[3], k[4], k[5]
	a, b := YMM(), YMM()
	if p.size == 4 {
		VMOVUPD(Mem{Base: sp}, a)
		VMOVUPD(Mem{Base: sp, Disp: 32}, b)
	}
	o := GP64()
	XORQ(o, o)
	at := func(base reg.GPVirtual, disp int) Mem { return Mem{Base: base, Index: o, Scale: 1, Disp: disp} }
	cmpLE := func(b, a, d Op) { VCMPPS(U8(2), b, a, d) }
	blend := func(m, x, y, d Op) { VBLENDVPS(m, x, y, d) }
	if p.size == 8 {
		cmpLE = func(b, a, d Op) { VCMPPD(U8(2), b, a, d) }
		blend = func(m, x, y, d Op) { VBLENDVPD(m, x, y, d) }
	}
	Label(name + "p1loop")
	CMPQ(o, n)
	JGE(LabelRef(name + "p1done"))
	x, d1, d2 := YMM(), YMM(), YMM()
	p.load(at(row, 0), x)
	p.load(at(next, 0), d1)
	p.sub(x, d1, d1)
	p.load(at(row, p.size), d2)
	p.sub(x, d2, d2)
	r2, t := YMM(), YMM()
	p.mul(d1, d1, r2)
	p.mul(d2, d2, t)
	p.add(t, r2, r2)
	r := YMM()
	p.sqrt(r2, r)
	va, vb, m := YMM(), YMM(), YMM()
	p.mul(inv2, r2, va)
	p.sub(half, r, vb)
	cmpLE(eps2, r2, m) // r2 ≤ ε²
	blend(m, va, vb, va)
	if p.size == 4 {
		lo, hi := YMM(), YMM()
		VCVTPS2PD(va.AsX(), lo)
		hx := XMM()
		VEXTRACTF128(U8(1), va, hx)
		VCVTPS2PD(hx, hi)
		VADDPD(lo, a, a)
		VADDPD(hi, b, b)
	} else {
		p.store(va, at(vals, 0))
	}
	q := YMM()
	p.maxf(eps, r, q)
	p.div(q, one, q)
	p1 := YMM()
	p.mul(q, d1, p1)
	u := YMM()
	p.load(at(up, 0), u)
	p.sub(p1, u, u)
	p.store(u, at(tt, 0))
	p.store(p1, at(up, 0))
	p.mul(q, d2, d2)
	p.store(d2, at(p2, p.size))
	ADDQ(U32(32), o)
	JMP(LabelRef(name + "p1loop"))
	Label(name + "p1done")
	XORQ(o, o)
	Label(name + "p2loop")
	CMPQ(o, n)
	JGE(LabelRef(name + "p2done"))
	w := YMM()
	p.load(at(tt, 0), w)
	p.add(at(p2, 0), w, w)
	p.sub(at(p2, p.size), w, w)
	p.mul(w, alpha, w)
	p.add(at(gr, 0), w, w)
	p.store(w, at(gr, 0))
	ADDQ(U32(32), o)
	JMP(LabelRef(name + "p2loop"))
	Label(name + "p2done")
	if p.size == 4 {
		VMOVUPD(a, Mem{Base: sp})
		VMOVUPD(b, Mem{Base: sp, Disp: 32})
	}
	VZEROUPPER()
	RET()
}

// dot64 accumulates a[j]·b[j] into four lanes (j mod 4), each in the order
// of j: DotT's s0…s3 for float64.
func dot64() {
	TEXT("Dot64", NOSPLIT, "func(a, b *float64, n int, s *[4]float64)")
	Pragma("noescape")
	Doc("Dot64 adds a[j]·b[j] to s[j mod 4] in the order of j (n bytes, 32 a vector of 4).")
	a, b, n, sp := ld("a"), ld("b"), ld("n"), ld("s")
	acc := YMM()
	VMOVUPD(Mem{Base: sp}, acc)
	loop("dot64", n, func() {
		x := YMM()
		VMOVUPD(Mem{Base: a}, x)
		VMULPD(Mem{Base: b}, x, x)
		VADDPD(x, acc, acc)
		ADDQ(U32(32), a)
		ADDQ(U32(32), b)
	})
	VMOVUPD(acc, Mem{Base: sp})
	VZEROUPPER()
	RET()
}

// residual32 sets res −= y and adds the squares, in float64, to s: lanes
// 0–3 take the first four values of each vector of 8, lanes 4–7 the last.
func residual32() {
	TEXT("Residual32", NOSPLIT, "func(res, y *float32, n int, s *[8]float64)")
	Pragma("noescape")
	Doc("Residual32 replaces res by res − y and adds float64(r)² to s (see residual32 in package problem).")
	r := ld("res")
	y := ld("y")
	n := ld("n")
	sp := ld("s")
	a, b := YMM(), YMM()
	VMOVUPD(Mem{Base: sp}, a)
	VMOVUPD(Mem{Base: sp, Disp: 32}, b)
	loop("res32", n, func() {
		v := YMM()
		VMOVUPS(Mem{Base: r}, v)
		VSUBPS(Mem{Base: y}, v, v)
		VMOVUPS(v, Mem{Base: r})
		lo, hi := YMM(), YMM()
		VCVTPS2PD(v.AsX(), lo)
		hx := XMM()
		VEXTRACTF128(U8(1), v, hx)
		VCVTPS2PD(hx, hi)
		VMULPD(lo, lo, lo)
		VMULPD(hi, hi, hi)
		VADDPD(lo, a, a)
		VADDPD(hi, b, b)
		ADDQ(U32(32), r)
		ADDQ(U32(32), y)
	})
	VMOVUPD(a, Mem{Base: sp})
	VMOVUPD(b, Mem{Base: sp, Disp: 32})
	VZEROUPPER()
	RET()
}

// plusMinus is the vector (1, −1, 1, −1) of float64.
var plusMinus Mem

// accumulateConjProduct32 is acc += conj(v)·z with float32 parts and a
// float64 accumulator: (vr·zr + vi·zi, vr·zi − vi·zr), the products in
// float64, two complex values a vector.
func accumulateConjProduct32() {
	plusMinus = GLOBL("plusminus", RODATA|NOPTR)
	for i := 0; i < 4; i++ {
		DATA(8*i, U64(math.Float64bits(1-2*float64(i%2))))
	}
	TEXT("AccumulateConjProduct32", NOSPLIT, "func(acc *float64, v, z *float32, n int)")
	Pragma("noescape")
	Doc("AccumulateConjProduct32 adds conj(v)·z to acc (n bytes of acc, in float64).")
	acc := ld("acc")
	v := ld("v")
	z := ld("z")
	n := ld("n")
	pm := YMM()
	VMOVUPD(plusMinus, pm)
	loop("acp", n, func() {
		a, b := YMM(), YMM()
		VCVTPS2PD(Mem{Base: v}, a) // (vr0, vi0, vr1, vi1)
		VCVTPS2PD(Mem{Base: z}, b)
		re, im, sw := YMM(), YMM(), YMM()
		VMOVDDUP(a, re)
		VPERMILPD(U8(0xf), a, im)
		VPERMILPD(U8(0x5), b, sw)
		VMULPD(b, re, re)
		VMULPD(sw, im, im)
		VMULPD(pm, im, im)
		VADDPD(im, re, re)
		VADDPD(Mem{Base: acc}, re, re)
		VMOVUPD(re, Mem{Base: acc})
		ADDQ(U32(32), acc)
		ADDQ(U32(16), v)
		ADDQ(U32(16), z)
	})
	VZEROUPPER()
	RET()
}

// combineScalars32 is xp = float32((x + c0·v0) + c1·v1) in float64, four
// values a vector.
func combineScalars32() {
	TEXT("CombineScalars32", NOSPLIT, "func(xp, x, v0, v1 *float32, n int, c0, c1 float64)")
	Pragma("noescape")
	Doc("CombineScalars32 writes xp = float32((x + c0·v0) + c1·v1), each sum in float64 (n bytes of xp).")
	xp := ld("xp")
	x := ld("x")
	v0 := ld("v0")
	v1 := ld("v1")
	n := ld("n")
	a, b := YMM(), YMM()
	VBROADCASTSD(Load(Param("c0"), XMM()), a)
	VBROADCASTSD(Load(Param("c1"), XMM()), b)
	Label("csloop")
	CMPQ(n, U32(0))
	JLE(LabelRef("csdone"))
	s, t := YMM(), YMM()
	VCVTPS2PD(Mem{Base: x}, s)
	VCVTPS2PD(Mem{Base: v0}, t)
	VMULPD(t, a, t)
	VADDPD(t, s, s)
	u := YMM()
	VCVTPS2PD(Mem{Base: v1}, u)
	VMULPD(u, b, u)
	VADDPD(u, s, s)
	o := XMM()
	VCVTPD2PSY(s, o)
	VMOVUPS(o, Mem{Base: xp})
	for _, r := range []reg.GPVirtual{xp, x, v0, v1} {
		ADDQ(U32(16), r)
	}
	SUBQ(U32(16), n)
	JMP(LabelRef("csloop"))
	Label("csdone")
	VZEROUPPER()
	RET()
}

// addImages32 is xp = x + img.
func addImages32() {
	TEXT("AddImages32", NOSPLIT, "func(xp, x, img *float32, n int)")
	Pragma("noescape")
	Doc("AddImages32 writes xp = x + img (n bytes).")
	xp := ld("xp")
	x := ld("x")
	img := ld("img")
	n := ld("n")
	loop("addimg", n, func() {
		a := YMM()
		VMOVUPS(Mem{Base: x}, a)
		VADDPS(Mem{Base: img}, a, a)
		VMOVUPS(a, Mem{Base: xp})
		for _, r := range []reg.GPVirtual{xp, x, img} {
			ADDQ(U32(32), r)
		}
	})
	VZEROUPPER()
	RET()
}

// tile4x8 sets s[q][kk] = Σ_j slab[j·32 + q]·b[j·n + kk] (q < 4, kk < 8) in
// the order of j, a product and then a sum.
func tile4x8() {
	TEXT("Tile4x8", NOSPLIT, "func(s *[4][8]float64, slab, b *float64, r, n int)")
	Pragma("noescape")
	Doc("Tile4x8 sets s[q][kk] = Σ_j slab[32j+q]·b[jn+kk] in the order of j (see kernels' MatMulAddT).")
	sp := ld("s")
	slab := ld("slab")
	b := ld("b")
	r := ld("r")
	n := ld("n")
	SHLQ(U8(3), n)
	var c [8]reg.VecVirtual
	for i := range c {
		c[i] = YMM()
		VXORPD(c[i], c[i], c[i])
	}
	tileLoop("t48", r, slab, b, n, c)
	for i := range c {
		VMOVUPD(c[i], Mem{Base: sp, Disp: 32 * i})
	}
	VZEROUPPER()
	RET()
}

// tileLoop is c[2q+h] += slab[q]·b[4h:4h+4] for j < r, slab advancing by 32
// values and b by n bytes.
func tileLoop(name string, r, slab, b, n reg.GPVirtual, c [8]reg.VecVirtual) {
	Label(name + "loop")
	CMPQ(r, U32(0))
	JLE(LabelRef(name + "done"))
	x0, x1 := YMM(), YMM()
	VMOVUPD(Mem{Base: b}, x0)
	VMOVUPD(Mem{Base: b, Disp: 32}, x1)
	for q := 0; q < 4; q++ {
		e := YMM()
		VBROADCASTSD(Mem{Base: slab, Disp: 8 * q}, e)
		t := YMM()
		VMULPD(x0, e, t)
		VADDPD(t, c[2*q], c[2*q])
		VMULPD(x1, e, t)
		VADDPD(t, c[2*q+1], c[2*q+1])
	}
	ADDQ(U32(32*8), slab)
	ADDQ(n, b)
	DECQ(r)
	JMP(LabelRef(name + "loop"))
	Label(name + "done")
}

// adjTile4x8 adds Σ_k slab[k·32 + q]·b[k·r + jj] to dst[q·r + jj] in the
// order of k (q < 4, jj < 8), a product and then a sum, in place.
func adjTile4x8() {
	TEXT("AdjTile4x8", NOSPLIT, "func(dst, slab, b *float64, r, n int)")
	Pragma("noescape")
	Doc("AdjTile4x8 adds Σ_k slab[32k+q]·b[kr+jj] to dst[qr+jj] in the order of k (see kernels' MatTMulAdd).")
	d := ld("dst")
	slab := ld("slab")
	b := ld("b")
	r := ld("r")
	n := ld("n")
	SHLQ(U8(3), r)
	rows := []Mem{{Base: d}, {Base: d, Index: r, Scale: 1}, {Base: d, Index: r, Scale: 2}}
	r3 := GP64()
	LEAQ(Mem{Base: r, Index: r, Scale: 2}, r3)
	rows = append(rows, Mem{Base: d, Index: r3, Scale: 1})
	var c [8]reg.VecVirtual
	for q := 0; q < 4; q++ {
		c[2*q], c[2*q+1] = YMM(), YMM()
		VMOVUPD(rows[q], c[2*q])
		VMOVUPD(rows[q].Offset(32), c[2*q+1])
	}
	tileLoop("adj", n, slab, b, r, c)
	for q := 0; q < 4; q++ {
		VMOVUPD(c[2*q], rows[q])
		VMOVUPD(c[2*q+1], rows[q].Offset(32))
	}
	VZEROUPPER()
	RET()
}

// ld loads the integer or pointer parameter name into a new register.
func ld(name string) reg.GPVirtual {
	r := GP64()
	Load(Param(name), r)
	return r
}

// rowDot sets a[v·L + l] = Σ_j y[j]·xt[L(j+v) + l] for v < k and the L
// lanes l of a vector, each sum from zero in the order of j, a product and
// then a sum: the interior sums of mconv's rowDot for L input channels at
// once (xt interleaves their rows).
func rowDot(p prec, k int) {
	name := fmt.Sprintf("RowDot%dx%s", k, p.name)
	TEXT(name, NOSPLIT, fmt.Sprintf("func(y, xt *%[1]s, n int, a *%[1]s)", p.typ))
	Pragma("noescape")
	Doc(name + " sets a[vL+l] = Σ_{j<n} y[j]·xt[L(j+v)+l] in the order of j, L lanes (see mconv's AdjointWeights).")
	y, xt, n, ap := ld("y"), ld("xt"), ld("n"), ld("a")
	acc := make([]reg.VecVirtual, k)
	for v := range acc {
		acc[v] = YMM()
		VXORPD(acc[v], acc[v], acc[v])
	}
	Label(name + "loop")
	CMPQ(n, U32(0))
	JLE(LabelRef(name + "done"))
	yb := YMM()
	p.bcast(Mem{Base: y}, yb)
	for v := range acc {
		t := YMM()
		p.mul(Mem{Base: xt, Disp: 32 * v}, yb, t)
		p.add(t, acc[v], acc[v])
	}
	ADDQ(U32(p.size), y)
	ADDQ(U32(32), xt)
	DECQ(n)
	JMP(LabelRef(name + "loop"))
	Label(name + "done")
	for v := range acc {
		p.store(acc[v], Mem{Base: ap, Disp: 32 * v})
	}
	VZEROUPPER()
	RET()
}

// convTile is mconv's multi-channel 3×3 correlation in float32 for a tile of
// eight outputs × twelve columns with the outputs in the lanes: acc_p holds
// the eight outputs of column p, from init; for every input b and each of
// nu rows u of the filter, the three vectors of taps r_v (eight outputs
// each) stay in registers while the fourteen input values of the row are
// broadcast one at a time, and acc_p += r_v·x[p+v] for the columns p it
// reaches, fused multiply-adds in the order of v. The filters are packed
// [b][u][v][q], 72 values per input. At the end the twelve vectors are
// transposed into eight rows of twelve columns. (float64 runs convAcc3.)
func convTile(p prec) {
	name := "ConvTile3x" + p.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(dst, src, w, init *%[1]s, nb, nu, ds, ps, rs int)", p.typ))
	Pragma("noescape")
	Doc(name + " sets dst[q·ds+j] = init[q] + Σ_b Σ_{u<nu} Σ_v w[72b+24u+8v+q]·src[b·ps+u·rs+j+v] for q < 8 and j < 12 (fused multiply-adds in the order of b, u and v); ds, ps and rs in bytes (see mconv's Forward).")
	dst, src, w, ini := ld("dst"), ld("src"), ld("w"), ld("init")
	nb, nu, ps, rs := ld("nb"), ld("nu"), ld("ps"), ld("rs")
	var acc [pixTile]reg.VecVirtual
	for j := range acc {
		acc[j] = YMM()
		VMOVUPS(Mem{Base: ini}, acc[j])
	}
	filterLoops(name, src, w, nb, nu, ps, rs, 24*p.size, 72*p.size, nil, func(r, wu reg.GPVirtual) {
		var t [3]reg.VecVirtual
		for v := range t {
			t[v] = YMM()
			VMOVUPS(Mem{Base: wu, Disp: 32 * v}, t[v])
		}
		for c := 0; c < pixTile+2; c++ {
			x := YMM()
			VBROADCASTSS(Mem{Base: r, Disp: c * p.size}, x)
			for v := range t {
				if j := c - v; j >= 0 && j < pixTile {
					VFMADD231PS(x, t[v], acc[j])
				}
			}
		}
	})
	ds := ld("ds")
	// Columns 8…11: two 4×4 transposes, one a 128-bit half; the low half of
	// row k goes to output k, the high half to output k+4.
	tail := transposeHalves(acc[8], acc[9], acc[10], acc[11])
	d4 := GP64()
	LEAQ(Mem{Base: dst, Index: ds, Scale: 4}, d4)
	d := GP64()
	MOVQ(dst, d)
	for k := range tail {
		VMOVUPS(tail[k].AsX(), Mem{Base: d, Disp: 32})
		VEXTRACTF128(U8(1), tail[k], Mem{Base: d4, Disp: 32})
		ADDQ(ds, d)
		ADDQ(ds, d4)
	}
	lo := transposeHalves(acc[0], acc[1], acc[2], acc[3])
	hi := transposeHalves(acc[4], acc[5], acc[6], acc[7])
	for k := range lo {
		out := YMM()
		VPERM2F128(U8(0x20), hi[k], lo[k], out)
		VMOVUPS(out, Mem{Base: dst})
		VPERM2F128(U8(0x31), hi[k], lo[k], out)
		VMOVUPS(out, Mem{Base: dst, Index: ds, Scale: 4})
		ADDQ(ds, dst)
	}
	VZEROUPPER()
	RET()
}

// pixTile is the number of columns of a ConvTile3x32 tile.
const pixTile = 12

// transposeHalves transposes the 4×4 blocks of float32 in each 128-bit half
// of the rows a, b, c, d: row k of the result holds column k of the four
// rows' low halves in its low half, of their high halves in its high half.
func transposeHalves(a, b, c, d reg.VecVirtual) [4]reg.VecVirtual {
	t0, t1, t2, t3 := YMM(), YMM(), YMM(), YMM()
	VUNPCKLPS(b, a, t0) // a0 b0 a1 b1
	VUNPCKHPS(b, a, t1) // a2 b2 a3 b3
	VUNPCKLPS(d, c, t2) // c0 d0 c1 d1
	VUNPCKHPS(d, c, t3) // c2 d2 c3 d3
	var r [4]reg.VecVirtual
	for k := range r {
		r[k] = YMM()
	}
	VUNPCKLPD(t2, t0, r[0]) // a0 b0 c0 d0
	VUNPCKHPD(t2, t0, r[1]) // a1 b1 c1 d1
	VUNPCKLPD(t3, t1, r[2])
	VUNPCKHPD(t3, t1, r[3])
	return r
}

// convWeightsRow adds to sums[o][v] (o < 4, v < 3, a vector each) the sums of
// one row of mconv's AdjointWeights for four outputs and L input channels:
// the interior sum Σ_{0<j<n−1} y_o[j]·xt[L(j−1+v)+l] from zero in the order
// of j, then the border products y_o[0]·xt[L(v−1)+l] (v > 0) and
// y_o[n−1]·xt[L(n−2+v)+l] (v < 2). In float64 each a product and then a sum
// (the scalar loop's operations); in float32 the interior terms are fused
// multiply-adds.
func convWeightsRow(p prec) {
	name := "ConvWeightsRow3x" + p.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(sums, y *%[1]s, ys int, xt *%[1]s, n int)", p.typ))
	Pragma("noescape")
	Doc(name + " adds one row's sums of mconv's AdjointWeights (K = 3) to sums[o][v] for four outputs y + o·ys (ys in bytes) and the lanes of xt, n ≥ 3 columns.")
	g, y0, ys, xt0, n := ld("sums"), ld("y"), ld("ys"), ld("xt"), ld("n")
	ys3 := GP64()
	LEAQ(Mem{Base: ys, Index: ys, Scale: 2}, ys3)
	row := func(base reg.GPVirtual, o int) Mem {
		switch o {
		case 0:
			return Mem{Base: base}
		case 3:
			return Mem{Base: base, Index: ys3, Scale: 1}
		}
		return Mem{Base: base, Index: ys, Scale: uint8(o)}
	}
	var acc [4][3]reg.VecVirtual
	for o := range acc {
		for v := range acc[o] {
			acc[o][v] = YMM()
			VXORPS(acc[o][v], acc[o][v], acc[o][v])
		}
	}
	yp, xp, cnt := GP64(), GP64(), GP64()
	LEAQ(Mem{Base: y0, Disp: p.size}, yp)
	MOVQ(xt0, xp)
	MOVQ(n, cnt)
	SUBQ(U8(2), cnt)
	Label(name + "loop")
	if p.size == 4 {
		var x [3]reg.VecVirtual
		for v := range x {
			x[v] = YMM()
			p.load(Mem{Base: xp, Disp: 32 * v}, x[v])
		}
		for o := range acc {
			yb := YMM()
			p.bcast(row(yp, o), yb)
			for v := range x {
				VFMADD231PS(yb, x[v], acc[o][v])
			}
		}
	} else {
		// Two of the three vectors of xt in registers (all sixteen are
		// then in use), the third read by each product.
		x := [3]Op{YMM(), YMM(), Mem{Base: xp, Disp: 64}}
		for v := range 2 {
			p.load(Mem{Base: xp, Disp: 32 * v}, x[v])
		}
		for o := range acc {
			yb := YMM()
			p.bcast(row(yp, o), yb)
			for v := range acc[o] {
				t := YMM()
				p.mul(x[v], yb, t)
				p.add(t, acc[o][v], acc[o][v])
			}
		}
	}
	ADDQ(U32(p.size), yp)
	ADDQ(U32(32), xp)
	DECQ(cnt)
	JNZ(LabelRef(name + "loop"))
	// yp is now column n−1 of y, xp column n−2 of xt.
	for o := range acc {
		for v := range acc[o] {
			dst := Mem{Base: g, Disp: 32 * (3*o + v)}
			s := YMM()
			p.load(dst, s)
			p.add(acc[o][v], s, s)
			if v > 0 {
				yb, t := YMM(), YMM()
				p.bcast(row(y0, o), yb)
				p.mul(Mem{Base: xt0, Disp: 32 * (v - 1)}, yb, t)
				p.add(t, s, s)
			}
			if v < 2 {
				yb, t := YMM(), YMM()
				p.bcast(row(yp, o), yb)
				p.mul(Mem{Base: xp, Disp: 32 * v}, yb, t)
				p.add(t, s, s)
			}
			p.store(s, dst)
		}
	}
	VZEROUPPER()
	RET()
}

// convRow is convTile for one output and four vectors of columns (the
// layers with fewer outputs than a tile): acc_k = init, then for every input
// b and each of nu filter rows u, acc_k += r0·x0 + r1·x1 + r2·x2 on vector k
// of the row, in float64 a product per tap summed in the order of v and then
// added, in float32 fused. The taps are packed [b][u][v], 9 per input.
func convRow(p prec) {
	name := "ConvRow3x" + p.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(dst, src, w, init *%[1]s, nb, nu, ps, rs int)", p.typ))
	Pragma("noescape")
	Doc(name + " sets dst[j] = init[0] + Σ_b Σ_{u<nu} Σ_v w[9b+3u+v]·src[b·ps+u·rs+j+v] for four vectors of j (float64: a product per tap, summed in the order of v, then added; float32: fused); ps and rs in bytes (see mconv's Forward).")
	dst, src, w, ini := ld("dst"), ld("src"), ld("w"), ld("init")
	nb, nu, ps, rs := ld("nb"), ld("nu"), ld("ps"), ld("rs")
	const nv = 4
	var acc [nv]reg.VecVirtual
	for k := range acc {
		acc[k] = YMM()
		p.bcast(Mem{Base: ini}, acc[k])
	}
	filterLoops(name, src, w, nb, nu, ps, rs, 3*p.size, 9*p.size, nil, func(r, wu reg.GPVirtual) {
		var t [3]reg.VecVirtual
		for v := range t {
			t[v] = YMM()
			p.bcast(Mem{Base: wu, Disp: v * p.size}, t[v])
		}
		for k := range acc {
			x := func(v int) Mem { return Mem{Base: r, Disp: 32*k + v*p.size} }
			if p.size == 4 {
				for v := range t {
					VFMADD231PS(x(v), t[v], acc[k])
				}
				continue
			}
			a, c := YMM(), YMM()
			p.mul(x(0), t[0], a)
			for v := 1; v < 3; v++ {
				p.mul(x(v), t[v], c)
				p.add(c, a, a)
			}
			p.add(a, acc[k], acc[k])
		}
	})
	for k := range acc {
		p.store(acc[k], Mem{Base: dst, Disp: 32 * k})
	}
	VZEROUPPER()
	RET()
}

// convAcc3 is mconv's multi-channel 3×3 correlation in float64 with the
// sums in memory: for every input b and each of nu filter rows u, one row of
// the input (the padded row r = src + b·ps + u·rs, its columns in the lanes)
// is correlated with the three taps of 3·groups outputs, the nine taps of a
// group of three outputs broadcast once and kept in registers while the row
// is swept, and added to the outputs' rows in acc: acc_o[j] += (r_o0·x[j] +
// r_o1·x[j+1]) + r_o2·x[j+2], a product per tap, summed in the order of the
// taps and then added (the scalar loop's operations). The outputs' rows are
// 32n bytes apart (n vectors a row); the taps are packed [b][u][o][v].
// No sum stays in a register from one input row to the next, so the
// products of a row are independent and keep the multipliers and adders
// busy.
func convAcc3() {
	name := "ConvAcc3x64"
	TEXT(name, NOSPLIT, "func(acc, src, w *float64, nb, nu, ps, rs, groups, n int)")
	Pragma("noescape")
	Doc(name + " adds Σ_b Σ_{u<nu} (w[t+3o]·x[j] + w[t+3o+1]·x[j+1]) + w[t+3o+2]·x[j+2] to acc[4n·o+j], x = src[b·ps+u·rs:], t = 9·groups·(3b+u) (w at the first row of the nu), for o < 3·groups and j < 4n, in the order of b and u (a product per tap, summed in the order of the taps, then added: no FMA); ps and rs in bytes (see mconv's Forward).")
	src, w, nb := ld("src"), ld("w"), ld("nb")
	Label(name + "b")
	r, cu, wr := GP64(), ld("nu"), GP64()
	MOVQ(src, r)
	MOVQ(w, wr)
	Label(name + "u")
	a, cg := ld("acc"), ld("groups")
	Label(name + "g")
	var t [3][3]reg.VecVirtual
	for o := range t {
		for v := range t[o] {
			t[o][v] = YMM()
			VBROADCASTSD(Mem{Base: wr, Disp: 8 * (3*o + v)}, t[o][v])
		}
	}
	os, os2, xr, ck := ld("n"), GP64(), GP64(), GP64()
	MOVQ(os, ck)
	SHLQ(U8(5), os)
	LEAQ(Mem{Base: os, Index: os, Scale: 1}, os2)
	MOVQ(r, xr)
	Label(name + "k")
	var x [3]reg.VecVirtual
	for v := range x {
		x[v] = YMM()
		VMOVUPD(Mem{Base: xr, Disp: 8 * v}, x[v])
	}
	for o := range t {
		dst := Mem{Base: a}
		switch o {
		case 1:
			dst = Mem{Base: a, Index: os, Scale: 1}
		case 2:
			dst = Mem{Base: a, Index: os, Scale: 2}
		}
		s, c := YMM(), YMM()
		VMULPD(x[0], t[o][0], s)
		VMULPD(x[1], t[o][1], c)
		VADDPD(c, s, s)
		VMULPD(x[2], t[o][2], c)
		VADDPD(c, s, s)
		VADDPD(dst, s, s)
		VMOVUPD(s, dst)
	}
	ADDQ(U8(32), xr)
	ADDQ(U8(32), a)
	DECQ(ck)
	JNZ(LabelRef(name + "k"))
	// a is now past the first output's row: on to the next group's.
	ADDQ(os2, a)
	ADDQ(U8(72), wr)
	DECQ(cg)
	JNZ(LabelRef(name + "g"))
	ADDQ(Load(Param("rs"), GP64()), r)
	DECQ(cu)
	JNZ(LabelRef(name + "u"))
	ADDQ(Load(Param("ps"), GP64()), src)
	wb := Load(Param("groups"), GP64()) // the taps of an input: 216 bytes a group
	IMUL3Q(U32(216), wb, wb)
	ADDQ(wb, w)
	DECQ(nb)
	JNZ(LabelRef(name + "b"))
	VZEROUPPER()
	RET()
}

// filterLoops emits the loops of the 3×3 tile kernels: for each of nb
// inputs (src advancing by ps bytes, w by wb), for each of nu filter rows
// (the row r advancing by rs bytes, the taps wu by wr), body(r, wu). after,
// if not nil, follows the rows of an input.
func filterLoops(name string, src, w, nb, nu, ps, rs reg.GPVirtual, wr, wb int, after func(r reg.GPVirtual), body func(r, wu reg.GPVirtual)) {
	Label(name + "b")
	r, cu, wu := GP64(), GP64(), GP64()
	MOVQ(src, r)
	MOVQ(nu, cu)
	MOVQ(w, wu)
	Label(name + "u")
	body(r, wu)
	ADDQ(rs, r)
	ADDQ(U32(wr), wu)
	DECQ(cu)
	JNZ(LabelRef(name + "u"))
	if after != nil {
		after(r)
	}
	ADDQ(ps, src)
	ADDQ(U32(wb), w)
	DECQ(nb)
	JNZ(LabelRef(name + "b"))
}
