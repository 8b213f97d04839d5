package learned_test

import (
	"math"
	"math/big"
	"testing"

	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
)

// relClose reports |got − want| ≤ tol·|want|.
func relClose(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Abs(want)
}

// paperTerms recomputes C1 = A − γB and C2 = γD − E term by term, independently
// of the package.
func paperTerms(e1, e2, tau, l float64) (a, b, d, e float64) {
	r := math.Abs(tau*l - 1)
	a = tau*(1-tau*l/2) - (e1+e2/2)*r - (l/2)*e1*(e1+e2)
	b = (tau + e1) * (tau + e1 + e2)
	d = 1 - e2*(e1+e2+tau)
	e = (e2 / 2) * (r + l*(e1+e2))
	return a, b, d, e
}

func TestPaperPAtOrigin(t *testing.T) {
	for _, tau := range []float64{0.1, 0.5, 1 / 1.32, 1, 2} {
		for _, l := range []float64{0.3 / tau, 1 / tau, 1.32, 1.5 / tau, 3 / tau} {
			want := -tau * (1 - tau*l/2)
			if got := learned.PaperP(0, 0, tau, l); !relClose(got, want, 1e-12) {
				t.Errorf("P(0, 0) at τ = %g, L = %g: %.17g, want −τ(1 − τL/2) = %.17g", tau, l, got, want)
			}
			c := learned.CertifyPaper(0, 0, tau, l)
			if c.Certified != (tau*l < 2) {
				t.Errorf("τ = %g, L = %g: gradient descent certified = %v, want τL < 2", tau, l, c.Certified)
			}
		}
		if got, want := learned.PaperH1(0, 0, tau), 2/tau; !relClose(got, want, 1e-12) {
			t.Errorf("h1(0, 0) at τ = %g: %.17g, want 2/τ = %.17g", tau, got, want)
		}
		// h2(0, 0) = τ/(τ²/2) = 2/τ too: gradient descent needs nothing more.
		if got, want := learned.PaperH2(0, 0, tau), 2/tau; !relClose(got, want, 1e-12) {
			t.Errorf("h2(0, 0) at τ = %g: %.17g, want 2/τ = %.17g", tau, got, want)
		}
	}
}

// TestPaperPCorollary checks P at L = 1/τ against the corollary's
// 2τ[ε2(τ+ε1)(τ+ε1+ε2)(ε1+ε2) − (τ² − ε1² − ε1ε2)(1 − ε2(ε1+ε2+τ))]/(4τ²).
func TestPaperPCorollary(t *testing.T) {
	for _, tau := range []float64{0.5, 1 / 1.32, 1, 2} {
		l := 1 / tau
		for _, e := range [][2]float64{{0, 0}, {0.1, 0}, {0, 0.1}, {0.2, 0.05}, {0.05, 0.3}, {0.4, 0.4}, {1, 0.2}, {0.3, 1.5}} {
			e1, e2 := e[0]*tau, e[1]*tau
			want := 2 * tau * (e2*(tau+e1)*(tau+e1+e2)*(e1+e2) - (tau*tau-e1*e1-e1*e2)*(1-e2*(e1+e2+tau))) / (4 * tau * tau)
			if got := learned.PaperP(e1, e2, tau, l); !relClose(got, want, 1e-12) {
				t.Errorf("τ = %g, (ε1, ε2) = (%g, %g): P = %.17g, corollary %.17g", tau, e1, e2, got, want)
			}
		}
	}
}

// ratP evaluates the paper's P exactly.
func ratP(e1, e2, tau, l *big.Rat) *big.Rat {
	n := func() *big.Rat { return new(big.Rat) }
	one, half := big.NewRat(1, 1), big.NewRat(1, 2)
	r := n().Sub(n().Mul(tau, l), one)
	r.Abs(r)
	s1 := n().Add(e1, e2)                                           // ε1 + ε2
	b := n().Mul(n().Add(tau, e1), n().Add(n().Add(tau, e1), e2))   // (τ+ε1)(τ+ε1+ε2)
	d := n().Sub(one, n().Mul(e2, n().Add(s1, tau)))                // 1 − ε2(ε1+ε2+τ)
	e := n().Mul(n().Mul(half, e2), n().Add(r, n().Mul(l, s1)))     // (ε2/2)(r + L(ε1+ε2))
	a := n().Mul(tau, n().Sub(one, n().Mul(half, n().Mul(tau, l)))) // τ(1 − τL/2)
	a.Sub(a, n().Mul(n().Add(e1, n().Mul(half, e2)), r))            // − (ε1 + ε2/2) r
	a.Sub(a, n().Mul(n().Mul(half, l), n().Mul(e1, s1)))            // − (L/2) ε1(ε1+ε2)
	return n().Sub(n().Mul(e, b), n().Mul(a, d))
}

// TestPaperClosedForm checks the corollary's example ε1 = τ/2,
// ε2 = τ/(3(1 + τ²)) at L = 1/τ. In exact rational arithmetic,
//
//	8τ²P/ε2³ = −27τ⁴ − 86τ² − 63   (that is, 2P/ε2³ = −(27τ⁴ + 86τ² + 63)/(4τ²)),
//
// whereas the paper prints −27τ⁴ − 90τ² − 63. At τ = 1/1.32:
//
//	P            = −0.10907053575671830
//	8τ²P/ε2³     = −121.25061281485023  (ours, exact value)
//	paper's form = −123.54629692871616  (1.893 % larger in magnitude)
//
// Both are negative, so the example's conclusion (certified) stands.
func TestPaperClosedForm(t *testing.T) {
	ours := func(tau float64) float64 { return -27*math.Pow(tau, 4) - 86*tau*tau - 63 }
	paper := func(tau float64) float64 { return -27*math.Pow(tau, 4) - 90*tau*tau - 63 }

	// Exact: the coefficient is 86, not 90, for every rational τ tried.
	for _, tr := range []*big.Rat{big.NewRat(100, 132), big.NewRat(1, 1), big.NewRat(1, 2), big.NewRat(3, 2), big.NewRat(2, 7)} {
		e1 := new(big.Rat).Mul(tr, big.NewRat(1, 2))
		tt := new(big.Rat).Mul(tr, tr)
		e2 := new(big.Rat).Quo(tr, new(big.Rat).Mul(big.NewRat(3, 1), new(big.Rat).Add(big.NewRat(1, 1), tt)))
		l := new(big.Rat).Inv(tr)
		p := ratP(e1, e2, tr, l)
		q := new(big.Rat).Mul(p, new(big.Rat).Mul(big.NewRat(8, 1), tt))
		q.Quo(q, new(big.Rat).Mul(e2, new(big.Rat).Mul(e2, e2)))
		poly := func(c int64) *big.Rat { // −27τ⁴ − cτ² − 63
			v := new(big.Rat).Mul(big.NewRat(-27, 1), new(big.Rat).Mul(tt, tt))
			v.Sub(v, new(big.Rat).Mul(big.NewRat(c, 1), tt))
			return v.Sub(v, big.NewRat(63, 1))
		}
		if q.Cmp(poly(86)) != 0 {
			t.Errorf("τ = %s: 8τ²P/ε2³ = %s, want −27τ⁴ − 86τ² − 63 = %s", tr.RatString(), q.RatString(), poly(86).RatString())
		}
		if q.Cmp(poly(90)) == 0 {
			t.Errorf("τ = %s: the paper's −27τ⁴ − 90τ² − 63 holds exactly", tr.RatString())
		}
		// The float implementation agrees with the exact value.
		tf, _ := tr.Float64()
		e1f, e2f := tf/2, tf/(3*(1+tf*tf))
		want, _ := p.Float64()
		if got := learned.PaperP(e1f, e2f, tf, 1/tf); !relClose(got, want, 1e-12) {
			t.Errorf("τ = %g: learned.PaperP = %.17g, exact %.17g", tf, got, want)
		}
	}

	tau := 1 / 1.32
	e1, e2 := tau/2, tau/(3*(1+tau*tau))
	p := learned.PaperP(e1, e2, tau, 1.32)
	if !(p < 0) || !learned.CertifyPaper(e1, e2, tau, 1.32).Certified {
		t.Fatalf("P(τ/2, τ/(3(1+τ²))) = %g at L = 1/τ, want negative and certified", p)
	}
	if want := -0.10907053575671830; !relClose(p, want, 1e-12) {
		t.Errorf("P = %.17g, want %.17g", p, want)
	}
	got := 8 * tau * tau * p / (e2 * e2 * e2)
	if want := -121.25061281485023; !relClose(got, want, 1e-12) {
		t.Errorf("8τ²P/ε2³ = %.17g, want %.17g", got, want)
	}
	if !relClose(got, ours(tau), 1e-12) {
		t.Errorf("8τ²P/ε2³ = %.17g, −27τ⁴ − 86τ² − 63 = %.17g", got, ours(tau))
	}
	if want := -123.54629692871616; !relClose(paper(tau), want, 1e-12) {
		t.Errorf("paper's closed form %.17g, want %.17g", paper(tau), want)
	}
	gap := (paper(tau) - got) / got
	if gap < 0.01 || gap > 0.03 {
		t.Errorf("paper's closed form %.6g vs ours %.6g: relative gap %.4g, want 1–3 %%", paper(tau), got, gap)
	}
	t.Logf("τ = 1/1.32: P = %.17g, 8τ²P/ε2³ = %.10g (exact: −27τ⁴ − 86τ² − 63), paper −27τ⁴ − 90τ² − 63 = %.10g, gap %.3f %%",
		p, got, paper(tau), 100*gap)
}

// TestPaperGamma checks that P < 0 with 1 − ε2(ε1 + ε2 + τ) > 0 is exactly
// the existence of γ > 0 with C1(γ), C2(γ) > 0, that the reported midpoint is
// such a γ, and that P < 0 alone does not suffice when that factor is ≤ 0.
func TestPaperGamma(t *testing.T) {
	for _, tau := range []float64{0.1, 0.5, 1 / 1.32, 1, 2} {
		for _, lt := range []float64{0.05, 0.4, 0.9, 1, 1.2, 1.8} {
			l := lt / tau
			for i := 0; i <= 30; i++ {
				for j := 0; j <= 30; j++ {
					e1, e2 := 0.05*tau*float64(i), 0.05*tau*float64(j)
					c := learned.CertifyPaper(e1, e2, tau, l)
					a, b, d, e := paperTerms(e1, e2, tau, l)
					if want := e*b - a*d; !relClose(c.P, want, 1e-12) {
						t.Fatalf("P(%g, %g) at τ = %g, L = %g: %.17g, want %.17g", e1, e2, tau, l, c.P, want)
					}
					if math.Abs(c.P) < 1e-12*(math.Abs(e*b)+math.Abs(a*d)) {
						continue // on the boundary P = 0: rounding decides
					}
					if c.Certified != (c.P < 0 && d > 0) {
						t.Fatalf("(%g, %g) τ = %g L = %g: certified %v with P = %g, D = %g", e1, e2, tau, l, c.Certified, c.P, d)
					}
					if !c.Certified {
						// No γ on a fine logarithmic grid makes both positive.
						for k := -60; k <= 40; k++ {
							g := math.Pow(10, float64(k)/10)
							if learned.PaperC1(e1, e2, tau, l, g) > 0 && learned.PaperC2(e1, e2, tau, l, g) > 0 {
								t.Fatalf("(%g, %g) τ = %g L = %g: not certified but C1, C2 > 0 at γ = %g", e1, e2, tau, l, g)
							}
						}
						continue
					}
					if !(c.Gamma > 0 && c.GammaLo < c.Gamma && c.Gamma < c.GammaHi) {
						t.Fatalf("(%g, %g) τ = %g L = %g: γ = %g not inside (%g, %g)", e1, e2, tau, l, c.Gamma, c.GammaLo, c.GammaHi)
					}
					c1, c2 := learned.PaperC1(e1, e2, tau, l, c.Gamma), learned.PaperC2(e1, e2, tau, l, c.Gamma)
					if !(c1 > 0 && c2 > 0) {
						t.Fatalf("(%g, %g) τ = %g L = %g: certified, but C1 = %g, C2 = %g at γ = %g", e1, e2, tau, l, c1, c2, c.Gamma)
					}
					if !relClose(c1, a-c.Gamma*b, 1e-12) || !relClose(c2, c.Gamma*d-e, 1e-12) {
						t.Fatalf("C1, C2 = %g, %g; recomputed %g, %g", c1, c2, a-c.Gamma*b, c.Gamma*d-e)
					}
				}
			}
		}
	}

	// P < 0 where 1 − ε2(ε1 + ε2 + τ) < 0: for τL < 1/2, P ~ (ε2³/2)(2τL − 1)
	// as ε2 → ∞. C2(γ) < 0 for every γ > 0, so this is not a certificate,
	// although P < 0 and the paper's rule L < h2 both hold.
	tau, l, e1, e2 := 1/1.32, 0.1, 0.0, 3.0
	c := learned.CertifyPaper(e1, e2, tau, l)
	if _, _, d, _ := paperTerms(e1, e2, tau, l); !(c.P < 0 && d < 0) || c.Certified || !c.ByThreshold {
		t.Errorf("(ε1, ε2) = (%g, %g), τ = %g, L = %g: P = %g, D = %g, certified %v, rule %v; want P < 0, D < 0, not certified, rule true",
			e1, e2, tau, l, c.P, d, c.Certified, c.ByThreshold)
	}
	for k := -60; k <= 60; k++ {
		if g := math.Pow(10, float64(k)/10); learned.PaperC2(e1, e2, tau, l, g) > 0 {
			t.Fatalf("C2(%g) > 0 with D < 0", g)
		}
	}
}

// TestPaperThresholds compares the sign of P with the paper's rule on L
// (1/τ ≤ L < h1 or L < min(1/τ, h2)).
//
// For τL ≥ 1, P = (B/2)(L − h1) identically (B = (τ+ε1)(τ+ε1+ε2) > 0): the
// rule and P always agree, and P < 0 there implies 1 − ε2(ε1+ε2+τ) > 0, so
// P < 0 is a certificate.
//
// For τL < 1, P = K(L − h2), K the denominator of h2, which factors as
// K = (1/2)(τ − ε1 − ε2)(τ − ε1 − 2τε2(τ + ε1 + ε2)). Where K > 0 the rule and
// P agree; where K < 0 they disagree in both directions. K < 0 needs
// ε1 + ε2 < τ < ε1 + 2τε2(τ+ε1+ε2), possible only for τ > 1/2, or
// ε1 + ε2 > τ > ε1 + 2τε2(τ+ε1+ε2), only for τ < 1/2; at τ = 1/2 they agree
// everywhere.
func TestPaperThresholds(t *testing.T) {
	disagree := map[float64]int{}
	for _, tau := range []float64{0.1, 0.3, 0.5, 1 / 1.32, 1, 2} {
		for _, lt := range []float64{0.05, 0.2, 0.4, 0.5, 0.7, 0.9, 0.99, 1, 1.01, 1.2, 1.5, 1.9, 2.5} {
			l := lt / tau
			for i := 0; i <= 40; i++ {
				for j := 0; j <= 40; j++ {
					e1, e2 := 0.0513*tau*float64(i), 0.0513*tau*float64(j)
					c := learned.CertifyPaper(e1, e2, tau, l)
					a, b, d, e := paperTerms(e1, e2, tau, l)
					scale := math.Abs(e*b) + math.Abs(a*d)
					if math.Abs(c.P) < 1e-9*scale {
						continue // on the boundary P = 0: rounding decides
					}
					if tau*l >= 1 {
						s := tau + e1
						num := (2*tau + 2*e1 + e2) + e2*s*s + 2*e2*e2*s + e2*e2*e2
						tol := 1e-12 * (scale + num + b*(l+math.Abs(c.H1)))
						if want := b / 2 * (l - c.H1); math.Abs(c.P-want) > tol {
							t.Fatalf("τ = %g L = %g (%g, %g): P = %.17g, (B/2)(L − h1) = %.17g", tau, l, e1, e2, c.P, want)
						}
						if (c.P < 0) != c.ByThreshold || (c.P < 0) != c.Certified {
							t.Fatalf("τ = %g L = %g (%g, %g): P = %g, h1 = %g, D = %g: rule %v, certified %v", tau, l, e1, e2, c.P, c.H1, d, c.ByThreshold, c.Certified)
						}
						continue
					}
					k := 0.5 * (tau - e1 - e2) * (tau - e1 - 2*tau*e2*(tau+e1+e2))
					// h2's numerator and denominator cancel: allow for
					// rounding relative to their terms.
					q := (tau*tau/2 - e1*tau - e2*tau/2 + e1*e1/2 + e1*e2/2) * d
					den := math.Abs(e2/2*(e1+e2-tau)*b) + math.Abs(q)
					num := math.Abs((tau-e1-e2/2)*d) + math.Abs(e2/2*b)
					tol := 1e-12 * (scale + num + den*(l+math.Abs(c.H2)))
					if want := k * (l - c.H2); math.Abs(c.P-want) > tol && !math.IsInf(c.H2, 0) {
						t.Fatalf("τ = %g L = %g (%g, %g): P = %.17g, K(L − h2) = %.17g", tau, l, e1, e2, c.P, want)
					}
					if (c.P < 0) != c.ByThreshold {
						disagree[tau]++
						if k > 0 {
							t.Fatalf("τ = %g L = %g (%g, %g): P = %g, h2 = %g, K = %g > 0, yet the rule says %v", tau, l, e1, e2, c.P, c.H2, k, c.ByThreshold)
						}
					}
				}
			}
		}
	}
	if disagree[0.5] != 0 {
		t.Errorf("τ = 1/2: %d disagreements, want none", disagree[0.5])
	}
	for _, tau := range []float64{0.1, 1 / 1.32, 2} {
		if disagree[tau] == 0 {
			t.Errorf("τ = %g: no disagreement between P and the h2 rule found", tau)
		}
	}
	t.Logf("disagreements (all τL < 1, K < 0) per τ: %v", disagree)

	// The two directions, at the paper's τ = 1/1.32.
	tau := 1 / 1.32
	// Rule certifies, P does not: ε1 = 0, ε2 = 0.5, L = 0.5 (K < 0, h2 ≈ 1.98).
	c := learned.CertifyPaper(0, 0.5, tau, 0.5)
	if h, name := c.H(); name != "h2" || !(h > 1/tau) || !c.ByThreshold || !(c.P > 0) || c.Certified {
		t.Errorf("(0, 0.5), L = 0.5: %s = %g, rule %v, P = %g, certified %v; want h2 > 1/τ, rule true, P > 0", name, h, c.ByThreshold, c.P, c.Certified)
	}
	// P certifies (with γ), the rule does not: ε1 = 0.2τ, ε2 = 0.45τ, L = 0.4/τ (h2 < 0).
	c = learned.CertifyPaper(0.2*tau, 0.45*tau, tau, 0.4/tau)
	if !(c.H2 < 0) || c.ByThreshold || !(c.P < 0) || !c.Certified {
		t.Errorf("(0.2τ, 0.45τ), L = 0.4/τ: h2 = %g, rule %v, P = %g, certified %v; want h2 < 0, rule false, certified", c.H2, c.ByThreshold, c.P, c.Certified)
	}
}

// TestCertificatesPaperVsLyapunov compares the two certificates on a grid of
// (ε1, ε2) at the paper's L = 1.32, τ = 1/1.32. Both certify (0, 0); on the
// 81×81 grid over [0, 0.8]² the paper's certificate contains the Lyapunov one
// (ε1 up to τ against τ(√5 − 2) ≈ 0.1789 on ε2 = 0; ε2 up to 0.4882, the root
// of ε2(τ + ε2)² = τ, against ≈ 0.1910 on ε1 = 0). The Lyapunov certificate is
// not always weaker: at L = 0.066 (τL = 0.05) it certifies (0, 0.4725), which
// the paper's does not.
func TestCertificatesPaperVsLyapunov(t *testing.T) {
	tau, l := 1/1.32, 1.32
	both, paperOnly, lyapOnly := 0, 0, 0
	for i := 0; i <= 80; i++ {
		for j := 0; j <= 80; j++ {
			e1, e2 := 0.01*float64(i), 0.01*float64(j)
			p := learned.Certified(learned.CertificatePaper, e1, e2, tau, l)
			y := learned.Certified(learned.CertificateLyapunov, e1, e2, tau, l)
			switch {
			case p && y:
				both++
			case p:
				paperOnly++
			case y:
				lyapOnly++
				t.Errorf("(%g, %g): the Lyapunov certificate certifies, the paper's does not", e1, e2)
			}
		}
	}
	t.Logf("L = 1.32, τ = 1/1.32, 81×81 grid on [0, 0.8]²: both %d, paper only %d, Lyapunov only %d", both, paperOnly, lyapOnly)
	if both == 0 || paperOnly == 0 {
		t.Errorf("both %d, paper only %d: want some of each", both, paperOnly)
	}

	for _, tc := range []struct {
		e1, e2, l  float64
		paper, lya bool
	}{
		{0, 0, 1.32, true, true},
		{0.1, 0.05, 1.32, true, true},
		{0.17, 0, 1.32, true, true},
		{0, 0.18, 1.32, true, true},
		{0.19, 0, 1.32, true, false},
		{0.5, 0, 1.32, true, false},
		{0.75, 0, 1.32, true, false},
		{0, 0.2, 1.32, true, false},
		{0, 0.48, 1.32, true, false},
		{0.2, 0.2, 1.32, true, false},
		{0.77, 0, 1.32, false, false},
		{0, 0.49, 1.32, false, false},
		{0, 0.4725, 0.066, false, true},
	} {
		p := learned.Certified(learned.CertificatePaper, tc.e1, tc.e2, tau, tc.l)
		y := learned.Certified(learned.CertificateLyapunov, tc.e1, tc.e2, tau, tc.l)
		if p != tc.paper || y != tc.lya {
			t.Errorf("(%g, %g), L = %g: paper %v, Lyapunov %v; want %v, %v (P = %g)", tc.e1, tc.e2, tc.l, p, y, tc.paper, tc.lya,
				learned.PaperP(tc.e1, tc.e2, tau, tc.l))
		}
	}

	// Boundaries on the axes.
	bisect := func(ok func(x float64) bool) float64 {
		lo, hi := 0.0, 1.0
		for k := 0; k < 60; k++ {
			if m := (lo + hi) / 2; ok(m) {
				lo = m
			} else {
				hi = m
			}
		}
		return lo
	}
	if got, want := bisect(func(x float64) bool { return learned.Certified(learned.CertificatePaper, x, 0, tau, l) }), tau; !relClose(got, want, 1e-12) {
		t.Errorf("paper, ε2 = 0: largest ε1 %.17g, want τ = %.17g", got, want)
	}
	if got, want := bisect(func(x float64) bool { return learned.Certified(learned.CertificateLyapunov, x, 0, tau, l) }), tau*(math.Sqrt(5)-2); !relClose(got, want, 1e-9) {
		t.Errorf("Lyapunov, ε2 = 0: largest ε1 %.17g, want τ(√5 − 2) = %.17g", got, want)
	}
	got := bisect(func(x float64) bool { return learned.Certified(learned.CertificatePaper, 0, x, tau, l) })
	if res := got*(tau+got)*(tau+got) - tau; math.Abs(res) > 1e-12 {
		t.Errorf("paper, ε1 = 0: largest ε2 %.17g, ε2(τ + ε2)² − τ = %g", got, res)
	}
}

func TestCertificateKind(t *testing.T) {
	for s, want := range map[string]learned.CertificateKind{
		"paper": learned.CertificatePaper, " Paper ": learned.CertificatePaper,
		"lyapunov": learned.CertificateLyapunov, "LYAPUNOV": learned.CertificateLyapunov,
		"": learned.DefaultCertificate,
	} {
		if got, err := learned.ParseCertificateKind(s); err != nil || got != want {
			t.Errorf("ParseCertificateKind(%q) = %q, %v; want %q", s, got, err, want)
		}
	}
	if _, err := learned.ParseCertificateKind("both"); err == nil {
		t.Error("ParseCertificateKind(\"both\"): no error")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Certified with an unknown kind did not panic")
			}
		}()
		learned.Certified("nope", 0, 0, 1, 1)
	}()
	tau := 1 / 1.32
	for _, e := range [][2]float64{{0, 0}, {0.3, 0.1}, {0.1, 0.3}, {0.9, 0.9}} {
		c := learned.CertifyBoth(e[0], e[1], tau, 1.32)
		for _, k := range []learned.CertificateKind{learned.CertificatePaper, learned.CertificateLyapunov} {
			if c.Certified(k) != learned.Certified(k, e[0], e[1], tau, 1.32) {
				t.Errorf("%v, %s: learned.Certificates.Certified and learned.Certified disagree", e, k)
			}
		}
		if c.Lyapunov != learned.Certify(e[0], e[1], tau, 1.32) || c.Paper != learned.CertifyPaper(e[0], e[1], tau, 1.32) {
			t.Errorf("%v: learned.CertifyBoth differs from learned.Certify, learned.CertifyPaper", e)
		}
	}
}

// TestCertifyParamsBoth: for M-PP, ε1 = max |θ − τ| and ε2 = max |φ|, and
// both certificates come from those norms.
func TestCertifyParamsBoth(t *testing.T) {
	m, err := models.ParseMethod("m-pp")
	if err != nil {
		t.Fatal(err)
	}
	const h, w, tau, l = 4, 4, 1 / 1.32, 1.32
	theta, phi := make([]float64, h*w), make([]float64, h*w)
	for i := range theta {
		theta[i] = tau + 0.1*math.Sin(float64(i))
		phi[i] = 0.05 * math.Cos(float64(3*i))
	}
	theta[5], phi[7] = tau-0.2, -0.08
	e1, e2, err := learned.ParamNorms(m, theta, phi, tau, h, w)
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(e1, 0.2, 1e-12) || !relClose(e2, 0.08, 1e-12) {
		t.Fatalf("ε1, ε2 = %.17g, %.17g; want 0.2, 0.08", e1, e2)
	}
	c, err := learned.CertifyParamsBoth(m, theta, phi, tau, l, h, w)
	if err != nil {
		t.Fatal(err)
	}
	if want := learned.CertifyBoth(e1, e2, tau, l); c != want {
		t.Errorf("CertifyParamsBoth = %+v, want %+v", c, want)
	}
	single, err := learned.CertifyParams(m, theta, phi, tau, l, h, w)
	if err != nil || single != c.Lyapunov {
		t.Errorf("CertifyParams = %+v, %v; want %+v", single, err, c.Lyapunov)
	}
	if !c.Paper.Certified || c.Lyapunov.P < 0 {
		t.Errorf("(0.2, 0.08): paper certified %v, Lyapunov P = %g; want paper only", c.Paper.Certified, c.Lyapunov.P)
	}
}
