package greedy

import (
	"fmt"
	"math"

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
// condition is derived here (the paper states its own polynomial P, which we
// did not have at hand); it is conservative, never optimistic.
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

// CertifyParams computes ε1 = ‖G_θ − τI‖ and ε2 = ‖H_φ‖ (exact for PS, PP and
// PC, by power iteration otherwise) and the certificate for smoothness L.
func CertifyParams(m models.Method, theta, phi []float64, tau, l float64, h, w int) (Certificate, error) {
	ref := m.G.Reference(tau, h, w)
	diff := make([]float64, len(theta))
	for i := range diff {
		diff[i] = theta[i] - ref[i]
	}
	eps1, err := models.OpNorm(m.G, diff, h, w)
	if err != nil {
		return Certificate{}, fmt.Errorf("certificate: ‖G − τI‖: %w", err)
	}
	var eps2 float64
	if m.H != nil && len(phi) > 0 {
		if eps2, err = models.OpNorm(m.H, phi, h, w); err != nil {
			return Certificate{}, fmt.Errorf("certificate: ‖H‖: %w", err)
		}
	}
	return Certify(eps1, eps2, tau, l), nil
}
