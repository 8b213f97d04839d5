package kernels

import "fmt"

// Grad computes forward differences of every image of an [N,H,W] batch into
// d ([N,2,H,W]): d[n,0,i,j] = x[n,i+1,j] − x[n,i,j] and
// d[n,1,i,j] = x[n,i,j+1] − x[n,i,j], with the last difference in each
// direction set to zero (Neumann boundary). d is overwritten. ‖D‖² ≤ 8.
// It is GradT for float64.
func Grad(d, x []float64, n, h, w int) error { return GradT(d, x, n, h, w) }

// GradT is Grad for either precision.
func GradT[F Float](d, x []F, n, h, w int) error {
	hw := h * w
	if len(x) != n*hw || len(d) != 2*n*hw {
		return fmt.Errorf("finite differences: got %d image values and %d gradient values, want %d and %d", len(x), len(d), n*hw, 2*n*hw)
	}
	ParallelFor(n, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			xk := x[k*hw : (k+1)*hw]
			d1 := d[2*k*hw : (2*k+1)*hw]
			d2 := d[(2*k+1)*hw : (2*k+2)*hw]
			for i := 0; i < h; i++ {
				row := xk[i*w : (i+1)*w]
				r1 := d1[i*w : (i+1)*w]
				if i+1 < h {
					next := xk[(i+1)*w : (i+2)*w]
					for j := range row {
						r1[j] = next[j] - row[j]
					}
				} else {
					clear(r1)
				}
				r2 := d2[i*w : (i+1)*w]
				for j := 0; j+1 < w; j++ {
					r2[j] = row[j+1] - row[j]
				}
				r2[w-1] = 0
			}
		}
	})
	return nil
}

// GradAdjoint computes x = Dᵀ d, the exact transpose of Grad (a negative
// divergence). x is overwritten. It is GradAdjointT for float64.
func GradAdjoint(x, d []float64, n, h, w int) error { return GradAdjointT(x, d, n, h, w) }

// GradAdjointT is GradAdjoint for either precision.
func GradAdjointT[F Float](x, d []F, n, h, w int) error {
	hw := h * w
	if len(x) != n*hw || len(d) != 2*n*hw {
		return fmt.Errorf("finite differences adjoint: got %d image values and %d gradient values, want %d and %d", len(x), len(d), n*hw, 2*n*hw)
	}
	ParallelFor(n, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			xk := x[k*hw : (k+1)*hw]
			d1 := d[2*k*hw : (2*k+1)*hw]
			d2 := d[(2*k+1)*hw : (2*k+2)*hw]
			for i := 0; i < h; i++ {
				row := xk[i*w : (i+1)*w]
				r1 := d1[i*w : (i+1)*w]
				r2 := d2[i*w : (i+1)*w]
				if i+1 < h {
					for j := range row {
						row[j] = -r1[j]
					}
				} else {
					clear(row)
				}
				if i > 0 {
					prev := d1[(i-1)*w : i*w]
					for j := range row {
						row[j] += prev[j]
					}
				}
				for j := 0; j+1 < w; j++ {
					row[j] -= r2[j]
					row[j+1] += r2[j]
				}
			}
		}
	})
	return nil
}

// HuberT is the isotropic Huber potential of a gradient field of element
// type F, Σ_{i,j} h_ε(√(d₁² + d₂²)) with h_ε(r) = r²/(2ε) for r ≤ ε and
// r − ε/2 otherwise. Fields are stored as [N,2,H,W]; the sums are per image.
// ε is given in float64 and rounded to F where it meets the field.
type HuberT[F Float] struct {
	Eps float64
}

// Huber is the float64 potential, HuberT[float64].
type Huber = HuberT[float64]

// Value writes Σ_{i,j} h_ε(|d[n,:,i,j]|) for every image n into vals (length
// N). The per-pixel terms are computed in F and summed in float64.
func (hb HuberT[F]) Value(vals []float64, d []F, n, hw int) error {
	if len(d) != 2*n*hw || len(vals) != n {
		return fmt.Errorf("huber: got %d field values and %d outputs, want %d and %d", len(d), len(vals), 2*n*hw, n)
	}
	eps := F(hb.Eps)
	ParallelFor(n, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			d1 := d[2*k*hw : (2*k+1)*hw]
			d2 := d[(2*k+1)*hw : (2*k+2)*hw]
			var s float64
			for i := range d1 {
				r2 := d1[i]*d1[i] + d2[i]*d2[i]
				if r2 <= eps*eps {
					s += float64(r2 / (2 * eps))
				} else {
					s += float64(Sqrt(r2) - eps/2)
				}
			}
			vals[k] = s
		}
	})
	return nil
}

// Derivative writes the gradient of the potential, g = d / max(|d|, ε) per pixel,
// into g ([N,2,H,W]). g is overwritten.
func (hb HuberT[F]) Derivative(g, d []F, n, hw int) error {
	if len(d) != 2*n*hw || len(g) != len(d) {
		return fmt.Errorf("huber derivative: got %d field values and %d outputs, want %d", len(d), len(g), 2*n*hw)
	}
	eps := F(hb.Eps)
	ParallelFor(n, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			d1 := d[2*k*hw : (2*k+1)*hw]
			d2 := d[(2*k+1)*hw : (2*k+2)*hw]
			g1 := g[2*k*hw : (2*k+1)*hw]
			g2 := g[(2*k+1)*hw : (2*k+2)*hw]
			for i := range d1 {
				r := Sqrt(d1[i]*d1[i] + d2[i]*d2[i])
				s := 1 / max(r, eps)
				g1[i] = d1[i] * s
				g2[i] = d2[i] * s
			}
		}
	})
	return nil
}

// HessVec writes the second derivative of the potential at d applied to u:
// u/ε where |d| < ε and (u − n⟨n,u⟩)/|d| with n = d/|d| elsewhere. out is overwritten.
func (hb HuberT[F]) HessVec(out, d, u []F, n, hw int) error {
	if len(d) != 2*n*hw || len(u) != len(d) || len(out) != len(d) {
		return fmt.Errorf("huber second derivative: got %d field, %d direction and %d output values, want %d each", len(d), len(u), len(out), 2*n*hw)
	}
	eps := F(hb.Eps)
	ParallelFor(n, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			d1 := d[2*k*hw : (2*k+1)*hw]
			d2 := d[(2*k+1)*hw : (2*k+2)*hw]
			u1 := u[2*k*hw : (2*k+1)*hw]
			u2 := u[(2*k+1)*hw : (2*k+2)*hw]
			o1 := out[2*k*hw : (2*k+1)*hw]
			o2 := out[(2*k+1)*hw : (2*k+2)*hw]
			for i := range d1 {
				r := Sqrt(d1[i]*d1[i] + d2[i]*d2[i])
				if r < eps {
					o1[i] = u1[i] / eps
					o2[i] = u2[i] / eps
					continue
				}
				n1, n2 := d1[i]/r, d2[i]/r
				p := n1*u1[i] + n2*u2[i]
				o1[i] = (u1[i] - n1*p) / r
				o2[i] = (u2[i] - n2*p) / r
			}
		}
	})
	return nil
}
