package kernels

import "math"

// cfftPlan is a mixed-radix Stockham (self-sorting) complex FFT of length n,
// applied to a batch of vectors stored interleaved: element k of vector q is
// at index k·batch + q, so every butterfly runs over a contiguous run of the
// batch and its twiddle factors are loaded once per run.
//
// Stage t of the decimation-in-frequency recursion, with radix r, sub-length
// L = r·m and stride s, reads x[q + s·(p + k·m)] (k < r) and writes
// y[q + s·(r·p + j)] = w_L^{j·p} · Σ_k ω_r^{j·k} x[q + s·(p + k·m)]; the next
// stage has stride r·s. After the last stage the result is in natural order.
type cfftPlan struct {
	n      int
	stages []cfftStage
}

type cfftStage struct {
	radix, m int
	// tw[p·(r−1)+j−1] = exp(∓2πi·j·p/(r·m)), forward (−) and inverse (+).
	tw, twInv []complex128
	// roots[t] = exp(∓2πi·t/r) and scratch, for the generic radix only.
	roots, rootsInv []complex128
	scratch         []complex128
}

// newCFFTPlan returns the plan for length n ≥ 1. Factors 4, 2, 3 and 5 have
// dedicated butterflies; any other prime factor p uses an O(p²) butterfly.
func newCFFTPlan(n int) *cfftPlan {
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
	pl := &cfftPlan{n: n}
	l := n
	for _, r := range radices {
		m := l / r
		st := cfftStage{radix: r, m: m}
		st.tw = make([]complex128, m*(r-1))
		st.twInv = make([]complex128, m*(r-1))
		for p := 0; p < m; p++ {
			for j := 1; j < r; j++ {
				w := unitRoot(j*p, l)
				st.tw[p*(r-1)+j-1] = w
				st.twInv[p*(r-1)+j-1] = conj(w)
			}
		}
		if r > 5 {
			st.roots = make([]complex128, r)
			st.rootsInv = make([]complex128, r)
			for t := range st.roots {
				st.roots[t] = unitRoot(t, r)
				st.rootsInv[t] = conj(st.roots[t])
			}
			st.scratch = make([]complex128, r)
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
func (pl *cfftPlan) numStages() int { return len(pl.stages) }

// exec transforms batch interleaved vectors of length n held in x, using y
// (same length) as the other ping-pong buffer, and returns the buffer that
// holds the result: x after an even number of stages, y after an odd one.
// The inverse transform is unnormalised.
func (pl *cfftPlan) exec(x, y []complex128, batch int, inverse bool) []complex128 {
	size := pl.n * batch
	x, y = x[:size], y[:size]
	s := batch
	for i := range pl.stages {
		st := &pl.stages[i]
		tw, sign := st.tw, 1.0
		if inverse {
			tw, sign = st.twInv, -1.0
		}
		switch st.radix {
		case 2:
			radix2(y, x, s, st.m, tw)
		case 3:
			radix3(y, x, s, st.m, tw, sign)
		case 4:
			radix4(y, x, s, st.m, tw, sign)
		case 5:
			radix5(y, x, s, st.m, tw, sign)
		case 8:
			radix8(y, x, s, st.m, tw, sign)
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

func radix2(y, x []complex128, s, m int, tw []complex128) {
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
				y0[q] = u + v
				y1[q] = u - v
			}
			continue
		}
		w1 := tw[p]
		for q, u := range a0 {
			v := a1[q]
			y0[q] = u + v
			y1[q] = (u - v) * w1
		}
	}
}

func radix4(y, x []complex128, s, m int, tw []complex128, sign float64) {
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
				t0, t1 := u0+u2, u0-u2
				t2, d := u1+u3, u1-u3
				t3 := complex(sign*imag(d), -sign*real(d)) // ∓i·d
				y0[q] = t0 + t2
				y1[q] = t1 + t3
				y2[q] = t0 - t2
				y3[q] = t1 - t3
			}
			continue
		}
		w1, w2, w3 := tw[3*p], tw[3*p+1], tw[3*p+2]
		for q, u0 := range a0 {
			u1, u2, u3 := a1[q], a2[q], a3[q]
			t0, t1 := u0+u2, u0-u2
			t2, d := u1+u3, u1-u3
			t3 := complex(sign*imag(d), -sign*real(d))
			y0[q] = t0 + t2
			y1[q] = (t1 + t3) * w1
			y2[q] = (t0 - t2) * w2
			y3[q] = (t1 - t3) * w3
		}
	}
}

func radix8(y, x []complex128, s, m int, tw []complex128, sign float64) {
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
		var w [7]complex128
		if p == 0 {
			for j := range w {
				w[j] = 1
			}
		} else {
			copy(w[:], tw[7*p:7*p+7])
		}
		for q, u0 := range a0 {
			u4 := a4[q]
			b0, c0 := u0+u4, u0-u4
			u1, u5 := a1[q], a5[q]
			b1, c1 := u1+u5, u1-u5
			u2, u6 := a2[q], a6[q]
			b2, c2 := u2+u6, u2-u6
			u3, u7 := a3[q], a7[q]
			b3, c3 := u3+u7, u3-u7
			// Even outputs: 4-point DFT of b.
			t0, t1 := b0+b2, b0-b2
			t2, d := b1+b3, b1-b3
			t3 := complex(sign*imag(d), -sign*real(d)) // ∓i·d
			y0[q] = t0 + t2
			y2[q] = (t1 + t3) * w[1]
			y4[q] = (t0 - t2) * w[3]
			y6[q] = (t1 - t3) * w[5]
			// Odd outputs: 4-point DFT of c_k·ω8^k.
			c1 = complex(r*(real(c1)+sign*imag(c1)), r*(imag(c1)-sign*real(c1)))
			c2 = complex(sign*imag(c2), -sign*real(c2))
			c3 = complex(r*(sign*imag(c3)-real(c3)), r*(-imag(c3)-sign*real(c3)))
			t0, t1 = c0+c2, c0-c2
			t2, d = c1+c3, c1-c3
			t3 = complex(sign*imag(d), -sign*real(d))
			y1[q] = (t0 + t2) * w[0]
			y3[q] = (t1 + t3) * w[2]
			y5[q] = (t0 - t2) * w[4]
			y7[q] = (t1 - t3) * w[6]
		}
	}
}

func radix3(y, x []complex128, s, m int, tw []complex128, sign float64) {
	const c = -0.5                 // cos(2π/3)
	sn := -sign * math.Sqrt(3) / 2 // ∓sin(2π/3)
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
			t, d := u1+u2, u1-u2
			v := u0 + complex(c*real(t), c*imag(t))
			r := complex(-sn*imag(d), sn*real(d)) // i·sn·d
			y0[q] = u0 + t
			y1[q] = (v + r) * w1
			y2[q] = (v - r) * w2
		}
	}
}

func radix5(y, x []complex128, s, m int, tw []complex128, sign float64) {
	c1 := math.Cos(2 * math.Pi / 5)
	c2 := math.Cos(4 * math.Pi / 5)
	s1 := -sign * math.Sin(2*math.Pi/5)
	s2 := -sign * math.Sin(4*math.Pi/5)
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
			ta, tb := u1+u4, u2+u3
			da, db := u1-u4, u2-u3
			va := u0 + complex(c1*real(ta)+c2*real(tb), c1*imag(ta)+c2*imag(tb))
			vb := u0 + complex(c2*real(ta)+c1*real(tb), c2*imag(ta)+c1*imag(tb))
			// ra = i·(s1·da + s2·db), rb = i·(s2·da − s1·db)
			ra := complex(-(s1*imag(da) + s2*imag(db)), s1*real(da)+s2*real(db))
			rb := complex(-(s2*imag(da) - s1*imag(db)), s2*real(da)-s1*real(db))
			y0[q] = u0 + ta + tb
			y1[q] = (va + ra) * w1
			y4[q] = (va - ra) * w4
			y2[q] = (vb + rb) * w2
			y3[q] = (vb - rb) * w3
		}
	}
}

func radixGeneric(y, x []complex128, s, m, r int, tw, roots, a []complex128) {
	sm := s * m
	for p := 0; p < m; p++ {
		for q := 0; q < s; q++ {
			for k := 0; k < r; k++ {
				a[k] = x[k*sm+s*p+q]
			}
			for j := 0; j < r; j++ {
				var sum complex128
				t := 0
				for k := 0; k < r; k++ {
					sum += a[k] * roots[t]
					t += j
					if t >= r {
						t -= r
					}
				}
				if j > 0 {
					sum *= tw[p*(r-1)+j-1]
				}
				y[s*(r*p+j)+q] = sum
			}
		}
	}
}
