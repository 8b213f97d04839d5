package kernels

import (
	"math"
	"unsafe"
)

// cfftPlan is a mixed-radix Stockham (self-sorting) complex FFT of length n,
// applied to a batch of vectors stored interleaved: element k of vector q is
// at index k·batch + q, so every butterfly runs over a contiguous run of the
// batch and its twiddle factors are loaded once per run.
//
// Stage t of the decimation-in-frequency recursion, with radix r, sub-length
// L = r·m and stride s, reads x[q + s·(p + k·m)] (k < r) and writes
// y[q + s·(r·p + j)] = w_L^{j·p} · Σ_k ω_r^{j·k} x[q + s·(p + k·m)]; the next
// stage has stride r·s. After the last stage the result is in natural order.
//
// The plan is generic over the real type F (Complex[F] values): every
// butterfly is written once and compiled once per precision. Twiddle factors
// and butterfly constants are computed in float64 and rounded to F. For
// F = float64 the arithmetic, operation by operation, is the complex128
// arithmetic of the code before it was made generic, so results are bitwise
// unchanged.
type cfftPlan[F Float] struct {
	n      int
	stages []cfftStage[F]
}

type cfftStage[F Float] struct {
	radix, m int
	// tw[p·(r−1)+j−1] = exp(∓2πi·j·p/(r·m)), forward (−) and inverse (+).
	tw, twInv []Complex[F]
	// roots[t] = exp(∓2πi·t/r) and scratch, for the generic radix only.
	roots, rootsInv []Complex[F]
	scratch         []Complex[F]
}

// newCFFTPlan returns the plan for length n ≥ 1. Factors 4, 2, 3 and 5 have
// dedicated butterflies; any other prime factor p uses an O(p²) butterfly.
func newCFFTPlan[F Float](n int) *cfftPlan[F] {
	// Powers of two: as many radix-8 stages as possible, with 2^e for
	// e ≡ 1 (mod 3) finished as 4·4 rather than 8·2 (fewer operations).
	var radices []int
	rest := n
	e := 0
	for rest%2 == 0 {
		rest /= 2
		e++
	}
	switch {
	case e == 1:
		radices = append(radices, 2)
		e = 0
	case e%3 == 1:
		radices = append(radices, 4, 4)
		e -= 4
	case e%3 == 2:
		radices = append(radices, 4)
		e -= 2
	}
	for ; e > 0; e -= 3 {
		radices = append([]int{8}, radices...)
	}
	for _, p := range []int{3, 5} {
		for rest%p == 0 {
			radices = append(radices, p)
			rest /= p
		}
	}
	for p := 7; rest > 1; p += 2 {
		if p*p > rest {
			p = rest
		}
		for rest%p == 0 {
			radices = append(radices, p)
			rest /= p
		}
	}
	pl := &cfftPlan[F]{n: n}
	l := n
	for _, r := range radices {
		m := l / r
		st := cfftStage[F]{radix: r, m: m}
		st.tw = make([]Complex[F], m*(r-1))
		st.twInv = make([]Complex[F], m*(r-1))
		for p := 0; p < m; p++ {
			for j := 1; j < r; j++ {
				w := unitRoot(j*p, l)
				st.tw[p*(r-1)+j-1] = toComplex[F](w)
				st.twInv[p*(r-1)+j-1] = toComplex[F](conj(w))
			}
		}
		if r > 5 {
			st.roots = make([]Complex[F], r)
			st.rootsInv = make([]Complex[F], r)
			for t := range st.roots {
				w := unitRoot(t, r)
				st.roots[t] = toComplex[F](w)
				st.rootsInv[t] = toComplex[F](conj(w))
			}
			st.scratch = make([]Complex[F], r)
		}
		pl.stages = append(pl.stages, st)
		l = m
	}
	return pl
}

// unitRoot returns exp(−2πi·k/n) accurately (k is reduced modulo n first and
// the angle is folded into [−π/4, π/4] where possible).
func unitRoot(k, n int) complex128 {
	k %= n
	if k < 0 {
		k += n
	}
	switch {
	case 8*k == n:
		return complex(math.Sqrt2/2, -math.Sqrt2/2)
	case 4*k == n:
		return -1i
	case 2*k == n:
		return -1
	case 4*k == 3*n:
		return 1i
	}
	sin, cos := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
	return complex(cos, sin)
}

func conj(c complex128) complex128 { return complex(real(c), -imag(c)) }

// numStages is the number of ping-pong passes exec makes.
func (pl *cfftPlan[F]) numStages() int { return len(pl.stages) }

// exec transforms batch interleaved vectors of length n held in x, using y
// (same length) as the other ping-pong buffer, and returns the buffer that
// holds the result: x after an even number of stages, y after an odd one.
// The inverse transform is unnormalised.
func (pl *cfftPlan[F]) exec(x, y []Complex[F], batch int, inverse bool) []Complex[F] {
	size := pl.n * batch
	x, y = x[:size], y[:size]
	s := batch
	for i := range pl.stages {
		st := &pl.stages[i]
		tw, sign := st.tw, F(1)
		if inverse {
			tw, sign = st.twInv, -1.0
		}
		switch st.radix {
		case 2:
			radix2(y, x, s, st.m, tw)
		case 3:
			if !radix3Vec(y, x, s, st.m, tw, sign) {
				radix3(y, x, s, st.m, tw, sign)
			}
		case 4:
			if !radix4Vec(y, x, s, st.m, tw, sign) {
				radix4(y, x, s, st.m, tw, sign)
			}
		case 5:
			radix5(y, x, s, st.m, tw, sign)
		case 8:
			if !radix8Vec(y, x, s, st.m, tw, sign) {
				radix8(y, x, s, st.m, tw, sign)
			}
		default:
			roots := st.roots
			if inverse {
				roots = st.rootsInv
			}
			radixGeneric(y, x, s, st.m, st.radix, tw, roots, st.scratch)
		}
		x, y = y, x
		s *= st.radix
	}
	return x
}

// isFloat32 reports whether F is a 4-byte float (a constant per instantiation).
func isFloat32[F Float]() bool {
	var z F
	return unsafe.Sizeof(z) == 4
}

// The butterflies below spell complex arithmetic out on the parts rather
// than calling cadd/cmul: every inlined call leaves an inline mark in the
// loop that pins the stores after all the arithmetic, which costs register
// spills (about 10% on the float64 transform). Each product (a·w) is written
// as Go computes a complex128 product: (a.Re·w.Re − a.Im·w.Im,
// a.Re·w.Im + a.Im·w.Re).

func radix2[F Float](y, x []Complex[F], s, m int, tw []Complex[F]) {
	sm := s * m
	x0, x1 := x[:sm], x[sm:2*sm]
	for p := 0; p < m; p++ {
		a0 := x0[s*p : s*p+s]
		a1 := x1[s*p : s*p+s][:len(a0)]
		yb := y[2*s*p : 2*s*p+2*s]
		y0, y1 := yb[:len(a0)], yb[s : 2*s][:len(a0)]
		if p == 0 {
			for q, u := range a0 {
				v := a1[q]
				y0[q] = Complex[F]{u.Re + v.Re, u.Im + v.Im}
				y1[q] = Complex[F]{u.Re - v.Re, u.Im - v.Im}
			}
			continue
		}
		w1r, w1i := tw[p].Re, tw[p].Im
		for q, u := range a0 {
			v := a1[q]
			y0[q] = Complex[F]{u.Re + v.Re, u.Im + v.Im}
			dr, di := u.Re-v.Re, u.Im-v.Im
			y1[q] = Complex[F]{dr*w1r - di*w1i, dr*w1i + di*w1r}
		}
	}
}

func radix4[F Float](y, x []Complex[F], s, m int, tw []Complex[F], sign F) {
	sm := s * m
	x0, x1, x2, x3 := x[:sm], x[sm:2*sm], x[2*sm:3*sm], x[3*sm:4*sm]
	for p := 0; p < m; p++ {
		a0 := x0[s*p : s*p+s]
		n := len(a0)
		a1 := x1[s*p : s*p+s][:n]
		a2 := x2[s*p : s*p+s][:n]
		a3 := x3[s*p : s*p+s][:n]
		yb := y[4*s*p : 4*s*p+4*s]
		y0, y1, y2, y3 := yb[:n], yb[s : 2*s][:n], yb[2*s : 3*s][:n], yb[3*s : 4*s][:n]
		if p == 0 {
			for q, u0 := range a0 {
				u1, u2, u3 := a1[q], a2[q], a3[q]
				t0r, t0i := u0.Re+u2.Re, u0.Im+u2.Im
				t1r, t1i := u0.Re-u2.Re, u0.Im-u2.Im
				t2r, t2i := u1.Re+u3.Re, u1.Im+u3.Im
				dr, di := u1.Re-u3.Re, u1.Im-u3.Im
				t3r, t3i := sign*di, -sign*dr // ∓i·d
				y0[q] = Complex[F]{t0r + t2r, t0i + t2i}
				y1[q] = Complex[F]{t1r + t3r, t1i + t3i}
				y2[q] = Complex[F]{t0r - t2r, t0i - t2i}
				y3[q] = Complex[F]{t1r - t3r, t1i - t3i}
			}
			continue
		}
		w1, w2, w3 := tw[3*p], tw[3*p+1], tw[3*p+2]
		for q, u0 := range a0 {
			u1, u2, u3 := a1[q], a2[q], a3[q]
			t0r, t0i := u0.Re+u2.Re, u0.Im+u2.Im
			t1r, t1i := u0.Re-u2.Re, u0.Im-u2.Im
			t2r, t2i := u1.Re+u3.Re, u1.Im+u3.Im
			dr, di := u1.Re-u3.Re, u1.Im-u3.Im
			t3r, t3i := sign*di, -sign*dr
			y0[q] = Complex[F]{t0r + t2r, t0i + t2i}
			ar, ai := t1r+t3r, t1i+t3i
			y1[q] = Complex[F]{ar*w1.Re - ai*w1.Im, ar*w1.Im + ai*w1.Re}
			ar, ai = t0r-t2r, t0i-t2i
			y2[q] = Complex[F]{ar*w2.Re - ai*w2.Im, ar*w2.Im + ai*w2.Re}
			ar, ai = t1r-t3r, t1i-t3i
			y3[q] = Complex[F]{ar*w3.Re - ai*w3.Im, ar*w3.Im + ai*w3.Re}
		}
	}
}

func radix8[F Float](y, x []Complex[F], s, m int, tw []Complex[F], sign F) {
	const r = math.Sqrt2 / 2
	sm := s * m
	x0, x1, x2, x3 := x[:sm], x[sm:2*sm], x[2*sm:3*sm], x[3*sm:4*sm]
	x4, x5, x6, x7 := x[4*sm:5*sm], x[5*sm:6*sm], x[6*sm:7*sm], x[7*sm:8*sm]
	for p := 0; p < m; p++ {
		a0 := x0[s*p : s*p+s]
		n := len(a0)
		a1 := x1[s*p : s*p+s][:n]
		a2 := x2[s*p : s*p+s][:n]
		a3 := x3[s*p : s*p+s][:n]
		a4 := x4[s*p : s*p+s][:n]
		a5 := x5[s*p : s*p+s][:n]
		a6 := x6[s*p : s*p+s][:n]
		a7 := x7[s*p : s*p+s][:n]
		yb := y[8*s*p : 8*s*p+8*s]
		y0, y1, y2, y3 := yb[:n], yb[s : 2*s][:n], yb[2*s : 3*s][:n], yb[3*s : 4*s][:n]
		y4, y5, y6, y7 := yb[4*s : 5*s][:n], yb[5*s : 6*s][:n], yb[6*s : 7*s][:n], yb[7*s : 8*s][:n]
		var w [7]Complex[F]
		if p == 0 {
			for j := range w {
				w[j] = Complex[F]{1, 0}
			}
		} else {
			copy(w[:], tw[7*p:7*p+7])
		}
		for q, u0 := range a0 {
			// Even outputs: 4-point DFT of b_k = u_k + u_{k+4}.
			u1, u2, u3 := a1[q], a2[q], a3[q]
			u4, u5, u6, u7 := a4[q], a5[q], a6[q], a7[q]
			b0r, b0i := u0.Re+u4.Re, u0.Im+u4.Im
			b1r, b1i := u1.Re+u5.Re, u1.Im+u5.Im
			b2r, b2i := u2.Re+u6.Re, u2.Im+u6.Im
			b3r, b3i := u3.Re+u7.Re, u3.Im+u7.Im
			t0r, t0i := b0r+b2r, b0i+b2i
			t1r, t1i := b0r-b2r, b0i-b2i
			t2r, t2i := b1r+b3r, b1i+b3i
			dr, di := b1r-b3r, b1i-b3i
			t3r, t3i := sign*di, -sign*dr // ∓i·d
			y0[q] = Complex[F]{t0r + t2r, t0i + t2i}
			ar, ai := t1r+t3r, t1i+t3i
			y2[q] = Complex[F]{ar*w[1].Re - ai*w[1].Im, ar*w[1].Im + ai*w[1].Re}
			ar, ai = t0r-t2r, t0i-t2i
			y4[q] = Complex[F]{ar*w[3].Re - ai*w[3].Im, ar*w[3].Im + ai*w[3].Re}
			ar, ai = t1r-t3r, t1i-t3i
			y6[q] = Complex[F]{ar*w[5].Re - ai*w[5].Im, ar*w[5].Im + ai*w[5].Re}
			// Odd outputs: 4-point DFT of c_k·ω8^k, c_k = u_k − u_{k+4}. The
			// inputs are loaded again rather than kept in registers (x and y
			// never overlap), which saves spills.
			u0, u1, u2, u3 = a0[q], a1[q], a2[q], a3[q]
			u4, u5, u6, u7 = a4[q], a5[q], a6[q], a7[q]
			c0r, c0i := u0.Re-u4.Re, u0.Im-u4.Im
			c1r, c1i := u1.Re-u5.Re, u1.Im-u5.Im
			c2r, c2i := u2.Re-u6.Re, u2.Im-u6.Im
			c3r, c3i := u3.Re-u7.Re, u3.Im-u7.Im
			c1r, c1i = r*(c1r+sign*c1i), r*(c1i-sign*c1r)
			c2r, c2i = sign*c2i, -sign*c2r
			c3r, c3i = r*(sign*c3i-c3r), r*(-c3i-sign*c3r)
			t0r, t0i = c0r+c2r, c0i+c2i
			t1r, t1i = c0r-c2r, c0i-c2i
			t2r, t2i = c1r+c3r, c1i+c3i
			dr, di = c1r-c3r, c1i-c3i
			t3r, t3i = sign*di, -sign*dr
			ar, ai = t0r+t2r, t0i+t2i
			y1[q] = Complex[F]{ar*w[0].Re - ai*w[0].Im, ar*w[0].Im + ai*w[0].Re}
			ar, ai = t1r+t3r, t1i+t3i
			y3[q] = Complex[F]{ar*w[2].Re - ai*w[2].Im, ar*w[2].Im + ai*w[2].Re}
			ar, ai = t0r-t2r, t0i-t2i
			y5[q] = Complex[F]{ar*w[4].Re - ai*w[4].Im, ar*w[4].Im + ai*w[4].Re}
			ar, ai = t1r-t3r, t1i-t3i
			y7[q] = Complex[F]{ar*w[6].Re - ai*w[6].Im, ar*w[6].Im + ai*w[6].Re}
		}
	}
}

func radix3[F Float](y, x []Complex[F], s, m int, tw []Complex[F], sign F) {
	const c = -0.5                             // cos(2π/3)
	sn := F(-float64(sign) * math.Sqrt(3) / 2) // ∓sin(2π/3)
	sm := s * m
	x0, x1, x2 := x[:sm], x[sm:2*sm], x[2*sm:3*sm]
	for p := 0; p < m; p++ {
		a0 := x0[s*p : s*p+s]
		n := len(a0)
		a1 := x1[s*p : s*p+s][:n]
		a2 := x2[s*p : s*p+s][:n]
		yb := y[3*s*p : 3*s*p+3*s]
		y0, y1, y2 := yb[:n], yb[s : 2*s][:n], yb[2*s : 3*s][:n]
		w1, w2 := tw[2*p], tw[2*p+1]
		for q, u0 := range a0 {
			u1, u2 := a1[q], a2[q]
			tr, ti := u1.Re+u2.Re, u1.Im+u2.Im
			dr, di := u1.Re-u2.Re, u1.Im-u2.Im
			vr, vi := u0.Re+c*tr, u0.Im+c*ti
			rr, ri := -sn*di, sn*dr // i·sn·d
			y0[q] = Complex[F]{u0.Re + tr, u0.Im + ti}
			ar, ai := vr+rr, vi+ri
			y1[q] = Complex[F]{ar*w1.Re - ai*w1.Im, ar*w1.Im + ai*w1.Re}
			ar, ai = vr-rr, vi-ri
			y2[q] = Complex[F]{ar*w2.Re - ai*w2.Im, ar*w2.Im + ai*w2.Re}
		}
	}
}

func radix5[F Float](y, x []Complex[F], s, m int, tw []Complex[F], sign F) {
	c1 := F(math.Cos(2 * math.Pi / 5))
	c2 := F(math.Cos(4 * math.Pi / 5))
	s1 := F(-float64(sign) * math.Sin(2*math.Pi/5))
	s2 := F(-float64(sign) * math.Sin(4*math.Pi/5))
	sm := s * m
	x0, x1, x2, x3, x4 := x[:sm], x[sm:2*sm], x[2*sm:3*sm], x[3*sm:4*sm], x[4*sm:5*sm]
	for p := 0; p < m; p++ {
		a0 := x0[s*p : s*p+s]
		n := len(a0)
		a1 := x1[s*p : s*p+s][:n]
		a2 := x2[s*p : s*p+s][:n]
		a3 := x3[s*p : s*p+s][:n]
		a4 := x4[s*p : s*p+s][:n]
		yb := y[5*s*p : 5*s*p+5*s]
		y0, y1, y2, y3, y4 := yb[:n], yb[s : 2*s][:n], yb[2*s : 3*s][:n], yb[3*s : 4*s][:n], yb[4*s : 5*s][:n]
		w1, w2, w3, w4 := tw[4*p], tw[4*p+1], tw[4*p+2], tw[4*p+3]
		for q, u0 := range a0 {
			u1, u2, u3, u4 := a1[q], a2[q], a3[q], a4[q]
			tar, tai := u1.Re+u4.Re, u1.Im+u4.Im
			tbr, tbi := u2.Re+u3.Re, u2.Im+u3.Im
			dar, dai := u1.Re-u4.Re, u1.Im-u4.Im
			dbr, dbi := u2.Re-u3.Re, u2.Im-u3.Im
			var_, vai := u0.Re+(c1*tar+c2*tbr), u0.Im+(c1*tai+c2*tbi)
			vbr, vbi := u0.Re+(c2*tar+c1*tbr), u0.Im+(c2*tai+c1*tbi)
			// ra = i·(s1·da + s2·db), rb = i·(s2·da − s1·db)
			rar, rai := -(s1*dai + s2*dbi), s1*dar+s2*dbr
			rbr, rbi := -(s2*dai - s1*dbi), s2*dar-s1*dbr
			y0[q] = Complex[F]{(u0.Re + tar) + tbr, (u0.Im + tai) + tbi}
			ar, ai := var_+rar, vai+rai
			y1[q] = Complex[F]{ar*w1.Re - ai*w1.Im, ar*w1.Im + ai*w1.Re}
			ar, ai = var_-rar, vai-rai
			y4[q] = Complex[F]{ar*w4.Re - ai*w4.Im, ar*w4.Im + ai*w4.Re}
			ar, ai = vbr+rbr, vbi+rbi
			y2[q] = Complex[F]{ar*w2.Re - ai*w2.Im, ar*w2.Im + ai*w2.Re}
			ar, ai = vbr-rbr, vbi-rbi
			y3[q] = Complex[F]{ar*w3.Re - ai*w3.Im, ar*w3.Im + ai*w3.Re}
		}
	}
}

func radixGeneric[F Float](y, x []Complex[F], s, m, r int, tw, roots, a []Complex[F]) {
	sm := s * m
	for p := 0; p < m; p++ {
		for q := 0; q < s; q++ {
			for k := 0; k < r; k++ {
				a[k] = x[k*sm+s*p+q]
			}
			for j := 0; j < r; j++ {
				var sr, si F
				t := 0
				for k := 0; k < r; k++ {
					ak, rt := a[k], roots[t]
					sr, si = sr+(ak.Re*rt.Re-ak.Im*rt.Im), si+(ak.Re*rt.Im+ak.Im*rt.Re)
					t += j
					if t >= r {
						t -= r
					}
				}
				if j > 0 {
					w := tw[p*(r-1)+j-1]
					sr, si = sr*w.Re-si*w.Im, sr*w.Im+si*w.Re
				}
				y[s*(r*p+j)+q] = Complex[F]{sr, si}
			}
		}
	}
}
