package learned

import (
	"fmt"
	"math"
	"strings"

	"github.com/greedyl2o/greedyl2o/models"
)

// Certificate bounds how far a learned step is from gradient descent with step
// τ, and whether its repetition is guaranteed to converge on every L-smooth
// function.
//
// With ε1 = ‖G − τI‖ and ε2 = ‖H‖, the update x⁺ = x − G∇f(x) + H(x − x⁻)
// satisfies, for any c > 0 and V(x, x⁻) = f(x) + c‖x − x⁻‖², writing a = ‖∇f(x)‖
// and b = ‖x − x⁻‖ and using the descent lemma and ‖x⁺ − x‖ ≤ (τ+ε1)a + ε2 b,
//
//	V⁺ − V ≤ [a b] M(c) [a b]ᵀ,
//	M11 = −(τ − ε1) + (L/2 + c)(τ + ε1)²,
//	M12 = ε2 (1 + 2(L/2 + c)(τ + ε1))/2,
//	M22 = (L/2 + c) ε2² − c.
//
// If P(ε1, ε2) = min over c > 0 of λmax(M(c)) is negative, V decreases by at
// least |P|‖∇f‖² per iteration, so Σt ‖∇f(x^t)‖² < ∞ and ∇f(x^t) → 0 for every
// L-smooth f bounded below (for convex f with bounded level sets, f(x^t) → f*).
// With ε1 = ε2 = 0 this reduces to gradient descent's τ < 2/L. This sufficient
// condition, the "lyapunov" certificate, is derived here; the paper's own is
// PaperCertificate. Neither contains the other: see the tests for where each
// certifies and the other does not.
type Certificate struct {
	Eps1, Eps2 float64
	Tau, L     float64
	// P is min_c λmax(M(c)); negative certifies convergence.
	P float64
	// C is the Lyapunov weight c attaining P.
	C float64
	// LMax is the largest L for which P < 0 (the L-smooth functions this
	// learned step is guaranteed to solve); 0 if none.
	LMax float64
}

// Polynomial returns λmax(M(c)) for the given ε1, ε2, τ, L and weight c.
func Polynomial(eps1, eps2, tau, l, c float64) float64 {
	h := l/2 + c
	m11 := -(tau - eps1) + h*(tau+eps1)*(tau+eps1)
	m12 := eps2 * (1 + 2*h*(tau+eps1)) / 2
	m22 := h*eps2*eps2 - c
	tr, det := m11+m22, m11*m22-m12*m12
	disc := math.Sqrt(math.Max(tr*tr/4-det, 0))
	return tr/2 + disc
}

// bestP minimises Polynomial over c on a logarithmic grid refined by golden-section search.
func bestP(eps1, eps2, tau, l float64) (p, c float64) {
	p, c = math.Inf(1), 0
	for e := -12.0; e <= 4; e += 0.25 {
		cc := math.Pow(10, e)
		if v := Polynomial(eps1, eps2, tau, l, cc); v < p {
			p, c = v, cc
		}
	}
	lo, hi := c/math.Pow(10, 0.25), c*math.Pow(10, 0.25)
	const phi = 0.6180339887498949
	for i := 0; i < 60; i++ {
		a := hi - phi*(hi-lo)
		b := lo + phi*(hi-lo)
		if Polynomial(eps1, eps2, tau, l, a) < Polynomial(eps1, eps2, tau, l, b) {
			hi = b
		} else {
			lo = a
		}
	}
	mid := (lo + hi) / 2
	if v := Polynomial(eps1, eps2, tau, l, mid); v < p {
		p, c = v, mid
	}
	return p, c
}

// Certify returns the certificate for given ε1, ε2, τ and L.
func Certify(eps1, eps2, tau, l float64) Certificate {
	p, c := bestP(eps1, eps2, tau, l)
	cert := Certificate{Eps1: eps1, Eps2: eps2, Tau: tau, L: l, P: p, C: c}
	// P is increasing in L: bisect for the largest certified L.
	if pz, _ := bestP(eps1, eps2, tau, 1e-12); pz < 0 {
		lo, hi := 1e-12, 2/tau
		for i := 0; i < 100; i++ {
			mid := (lo + hi) / 2
			if pm, _ := bestP(eps1, eps2, tau, mid); pm < 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		cert.LMax = lo
	}
	return cert
}

// ParamNorms returns ε1 = ‖G_θ − τI‖ and ε2 = ‖H_φ‖ (0 without momentum),
// exact for PS, PP and PC and by power iteration otherwise. Both certificates
// depend on the parameters only through these two norms.
func ParamNorms(m models.Method, theta, phi []float64, tau float64, h, w int) (eps1, eps2 float64, err error) {
	ref := m.G.Reference(tau, h, w)
	diff := make([]float64, len(theta))
	for i := range diff {
		diff[i] = theta[i] - ref[i]
	}
	eps1, err = models.OpNorm(m.G, diff, h, w)
	if err != nil {
		return 0, 0, fmt.Errorf("certificate: ‖G − τI‖: %w", err)
	}
	if m.H != nil && len(phi) > 0 {
		if eps2, err = models.OpNorm(m.H, phi, h, w); err != nil {
			return 0, 0, fmt.Errorf("certificate: ‖H‖: %w", err)
		}
	}
	return eps1, eps2, nil
}

// CertifyParams computes ε1 = ‖G_θ − τI‖ and ε2 = ‖H_φ‖ (see ParamNorms) and
// the Lyapunov certificate for smoothness L. CertifyParamsBoth also returns
// the paper's certificate from the same norms.
func CertifyParams(m models.Method, theta, phi []float64, tau, l float64, h, w int) (Certificate, error) {
	eps1, eps2, err := ParamNorms(m, theta, phi, tau, h, w)
	if err != nil {
		return Certificate{}, err
	}
	return Certify(eps1, eps2, tau, l), nil
}

// CertificateKind names a convergence certificate.
type CertificateKind string

const (
	// CertificateLyapunov is the certificate derived in this package (see
	// Certificate): P = min_c λmax(M(c)) < 0.
	CertificateLyapunov CertificateKind = "lyapunov"
	// CertificatePaper is the paper's certificate, verbatim (see
	// PaperCertificate): some γ > 0 makes C1 and C2 positive.
	CertificatePaper CertificateKind = "paper"
	// DefaultCertificate is the kind an empty name selects.
	DefaultCertificate = CertificateLyapunov
)

// ParseCertificateKind returns the kind named s ("paper" or "lyapunov",
// case-insensitive, surrounding spaces ignored); the empty string selects
// DefaultCertificate.
func ParseCertificateKind(s string) (CertificateKind, error) {
	switch k := CertificateKind(strings.ToLower(strings.TrimSpace(s))); k {
	case "":
		return DefaultCertificate, nil
	case CertificatePaper, CertificateLyapunov:
		return k, nil
	}
	return "", fmt.Errorf("certificate: unknown kind %q (want %q or %q)", s, CertificatePaper, CertificateLyapunov)
}

// Certified reports whether the certificate of the given kind guarantees that
// repeating a learned step with ε1 = ‖G − τI‖ and ε2 = ‖H‖ converges on every
// L-smooth function. It panics if kind is neither CertificatePaper nor
// CertificateLyapunov.
func Certified(kind CertificateKind, eps1, eps2, tau, l float64) bool {
	switch kind {
	case CertificatePaper:
		return CertifyPaper(eps1, eps2, tau, l).Certified
	case CertificateLyapunov:
		p, _ := bestP(eps1, eps2, tau, l)
		return p < 0
	}
	panic(fmt.Sprintf("greedy: unknown certificate kind %q", kind))
}

// PaperCertificate is the paper's convergence certificate for the update
// x⁺ = x − G∇f(x) + H(x − x⁻) with ε1 = ‖G − τI‖ and ε2 = ‖H‖, transcribed
// verbatim. With r = |τL − 1|, the paper shows convergence on every L-smooth
// function when some γ > 0 makes both
//
//	C1(γ) = τ(1 − τL/2) − (ε1 + ε2/2) r − (L/2) ε1(ε1 + ε2) − γ(τ + ε1)(τ + ε1 + ε2)
//	C2(γ) = γ(1 − ε2(ε1 + ε2 + τ)) − (ε2/2)(r + L(ε1 + ε2))
//
// positive, and eliminates γ into the polynomial
//
//	P(ε1, ε2) = (ε2/2)(r + L(ε1 + ε2))(τ + ε1)(τ + ε1 + ε2)
//	          − [τ(1 − τL/2) − (ε1 + ε2/2) r − (L/2) ε1(ε1 + ε2)](1 − ε2(ε1 + ε2 + τ)),
//
// to be negative, and into thresholds on L: convergence for 1/τ ≤ L < h1 or
// L < min(1/τ, h2) (see PaperH1, PaperH2).
//
// Write C1(γ) = A − γB and C2(γ) = γD − E, with B = (τ + ε1)(τ + ε1 + ε2) > 0,
// D = 1 − ε2(ε1 + ε2 + τ) and E ≥ 0, so P = EB − AD. When D > 0, both are
// positive exactly for E/D < γ < A/B, an interval that is non-empty if and
// only if P < 0. When D ≤ 0, no γ > 0 makes C2 positive, yet P can be
// negative (A < 0 and |A||D| > EB; as ε2 → ∞, P ~ (ε2³/2)(2τL − 1), so for
// τL < 1/2 and large ε2): P < 0 alone does not certify there, and Certified
// requires D > 0 as well. For example, at τ = 1/1.32, L = 0.1, ε1 = 0, ε2 = 3,
// P = −1.527 and L < h2 = 0.1834, but D = −10.27. For τL ≥ 1 this cannot
// happen: D ≤ 0 gives h1 ≤ 1/(τ + ε1 + ε2) < 1/τ ≤ L, so P > 0.
//
// The thresholds agree with the sign of P for τL ≥ 1, where P = (B/2)(L − h1)
// identically. For τL < 1, P = K(L − h2) with K the denominator of h2,
//
//	K = (1/2)(τ − ε1 − ε2)(τ − ε1 − 2τε2(τ + ε1 + ε2)),
//
// so the rule L < h2 is P < 0 only where K > 0; where K < 0, P < 0 means
// L > h2 instead. K < 0 needs ε1 + ε2 < τ < ε1 + 2τε2(τ + ε1 + ε2), possible
// only for τ > 1/2 (e.g. ε1 = 0, ε2 < τ, 2ε2(τ + ε2) > 1), or
// ε1 + ε2 > τ > ε1 + 2τε2(τ + ε1 + ε2), possible only for τ < 1/2; for τ = 1/2
// the rule and P always agree. At τ = 1/1.32 they disagree both ways: at
// ε1 = 0, ε2 = 0.5, L = 0.5 the rule holds (h2 = 1.98) but P = 0.0372 > 0; at
// ε1 = 0.2τ, ε2 = 0.45τ, L = 0.4/τ, P = −0.0591 < 0 (γ in (0.2554, 0.346))
// but h2 = −10.72. Certified follows the γ condition above, never the
// thresholds, which are reported in H1, H2 and ByThreshold.
type PaperCertificate struct {
	Eps1, Eps2 float64
	Tau, L     float64
	// P is PaperP(ε1, ε2, τ, L).
	P float64
	// H1 and H2 are PaperH1 and PaperH2; H1 applies for τL ≥ 1, H2 for τL < 1.
	H1, H2 float64
	// GammaLo and GammaHi bound the open interval of γ for which C1(γ) and
	// C2(γ) are both positive, (E/D, A/B); both are 0 unless Certified.
	GammaLo, GammaHi float64
	// Gamma is the midpoint of (GammaLo, GammaHi), 0 unless Certified.
	Gamma float64
	// Certified reports that some γ > 0 makes C1 and C2 positive, that is
	// P < 0 and 1 − ε2(ε1 + ε2 + τ) > 0, and that Gamma is such a γ in
	// floating point (which only matters within rounding of P = 0).
	Certified bool
	// ByThreshold is the paper's rule on L: 1/τ ≤ L < h1 or L < min(1/τ, h2).
	ByThreshold bool
}

// H returns the threshold that applies to the certificate's L: H1 when
// τL ≥ 1, H2 otherwise, and its name, "h1" or "h2".
func (c PaperCertificate) H() (h float64, name string) {
	if c.Tau*c.L >= 1 {
		return c.H1, "h1"
	}
	return c.H2, "h2"
}

// paperTerms returns the terms of C1(γ) = A − γB and C2(γ) = γD − E.
func paperTerms(eps1, eps2, tau, l float64) (a, b, d, e float64) {
	r := math.Abs(tau*l - 1)
	a = tau*(1-tau*l/2) - (eps1+eps2/2)*r - l/2*eps1*(eps1+eps2)
	b = (tau + eps1) * (tau + eps1 + eps2)
	d = 1 - eps2*(eps1+eps2+tau)
	e = eps2 / 2 * (r + l*(eps1+eps2))
	return a, b, d, e
}

// PaperC1 returns the paper's
//
//	C1(γ) = τ(1 − τL/2) − (ε1 + ε2/2) r − (L/2) ε1(ε1 + ε2) − γ(τ + ε1)(τ + ε1 + ε2)
//
// with r = |τL − 1|.
func PaperC1(eps1, eps2, tau, l, gamma float64) float64 {
	a, b, _, _ := paperTerms(eps1, eps2, tau, l)
	return a - gamma*b
}

// PaperC2 returns the paper's
//
//	C2(γ) = γ(1 − ε2(ε1 + ε2 + τ)) − (ε2/2)(r + L(ε1 + ε2))
//
// with r = |τL − 1|.
func PaperC2(eps1, eps2, tau, l, gamma float64) float64 {
	_, _, d, e := paperTerms(eps1, eps2, tau, l)
	return gamma*d - e
}

// PaperP returns the paper's polynomial
//
//	P(ε1, ε2) = (ε2/2)(r + L(ε1 + ε2))(τ + ε1)(τ + ε1 + ε2)
//	          − [τ(1 − τL/2) − (ε1 + ε2/2) r − (L/2) ε1(ε1 + ε2)](1 − ε2(ε1 + ε2 + τ))
//
// with r = |τL − 1|. P(0, 0) = −τ(1 − τL/2), gradient descent's τ < 2/L. At
// L = 1/τ it is the corollary's
//
//	P = 2τ[ε2(τ + ε1)(τ + ε1 + ε2)(ε1 + ε2) − (τ² − ε1² − ε1ε2)(1 − ε2(ε1 + ε2 + τ))] / (4τ²);
//
// at ε1 = τ/2, ε2 = τ/(3(1 + τ²)) this gives, exactly,
//
//	8τ²P/ε2³ = −27τ⁴ − 86τ² − 63,
//
// where the paper prints −27τ⁴ − 90τ² − 63 (for 2P/ε2³ with P the bracket
// 2τ[…] = 4τ²P above). At τ = 1/1.32 that is −121.2506 against the paper's
// −123.5463, 1.89 % apart; the sign, and so the example's conclusion that
// P < 0, is unaffected. The coefficient 86 is checked in exact rational
// arithmetic in the tests.
func PaperP(eps1, eps2, tau, l float64) float64 {
	a, b, d, e := paperTerms(eps1, eps2, tau, l)
	return e*b - a*d
}

// PaperH1 returns the paper's threshold for L ≥ 1/τ,
//
//	h1 = [(2τ + 2ε1 + ε2) − ε2(τ + ε1)² − 2ε2²(τ + ε1) − ε2³] / [(τ + ε1)(τ + ε1 + ε2)];
//
// for τL ≥ 1, PaperP is negative exactly when L < h1. h1(0, 0) = 2/τ.
func PaperH1(eps1, eps2, tau float64) float64 {
	s := tau + eps1
	num := (2*tau + 2*eps1 + eps2) - eps2*s*s - 2*eps2*eps2*s - eps2*eps2*eps2
	return num / (s * (s + eps2))
}

// PaperH2 returns the paper's threshold for L < 1/τ,
//
//	h2 = [(τ − ε1 − ε2/2)(1 − ε2(ε1 + ε2 + τ)) − (ε2/2)(τ + ε1)(τ + ε1 + ε2)]
//	   / [(ε2/2)(ε1 + ε2 − τ)(τ + ε1)(τ + ε1 + ε2) + (τ²/2 − ε1τ − ε2τ/2 + ε1²/2 + ε1ε2/2)(1 − ε2(ε1 + ε2 + τ))].
//
// For τL < 1, PaperP is negative exactly when L < h2 only if the denominator
// is positive; see PaperCertificate. The result is ±Inf or NaN where the
// denominator vanishes.
func PaperH2(eps1, eps2, tau float64) float64 {
	s := tau + eps1
	b := s * (s + eps2)
	d := 1 - eps2*(eps1+eps2+tau)
	num := (tau-eps1-eps2/2)*d - eps2/2*b
	den := eps2/2*(eps1+eps2-tau)*b + (tau*tau/2-eps1*tau-eps2*tau/2+eps1*eps1/2+eps1*eps2/2)*d
	return num / den
}

// CertifyPaper returns the paper's certificate for given ε1, ε2, τ and L.
func CertifyPaper(eps1, eps2, tau, l float64) PaperCertificate {
	a, b, d, e := paperTerms(eps1, eps2, tau, l)
	c := PaperCertificate{
		Eps1: eps1, Eps2: eps2, Tau: tau, L: l,
		P:  e*b - a*d,
		H1: PaperH1(eps1, eps2, tau),
		H2: PaperH2(eps1, eps2, tau),
	}
	if tau*l >= 1 {
		c.ByThreshold = l < c.H1
	} else {
		c.ByThreshold = l < c.H2
	}
	if c.P < 0 && d > 0 {
		// Within rounding of P = 0 the interval may be empty in floating
		// point: certify only with a witness.
		lo, hi := e/d, a/b
		g := (lo + hi) / 2
		if g > 0 && a-g*b > 0 && g*d-e > 0 {
			c.Certified = true
			c.GammaLo, c.GammaHi, c.Gamma = lo, hi, g
		}
	}
	return c
}

// Certificates holds both certificates for the same ε1, ε2, τ and L.
type Certificates struct {
	Lyapunov Certificate
	Paper    PaperCertificate
}

// Certified reports the verdict of the certificate of the given kind. It
// panics if kind is neither CertificatePaper nor CertificateLyapunov.
func (c Certificates) Certified(kind CertificateKind) bool {
	switch kind {
	case CertificatePaper:
		return c.Paper.Certified
	case CertificateLyapunov:
		return c.Lyapunov.P < 0
	}
	panic(fmt.Sprintf("greedy: unknown certificate kind %q", kind))
}

// CertifyBoth returns the Lyapunov and the paper's certificates for given ε1,
// ε2, τ and L.
func CertifyBoth(eps1, eps2, tau, l float64) Certificates {
	return Certificates{Lyapunov: Certify(eps1, eps2, tau, l), Paper: CertifyPaper(eps1, eps2, tau, l)}
}

// CertifyParamsBoth is CertifyParams returning both certificates, from norms
// computed once.
func CertifyParamsBoth(m models.Method, theta, phi []float64, tau, l float64, h, w int) (Certificates, error) {
	eps1, eps2, err := ParamNorms(m, theta, phi, tau, h, w)
	if err != nil {
		return Certificates{}, err
	}
	return CertifyBoth(eps1, eps2, tau, l), nil
}
