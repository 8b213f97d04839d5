package steploss

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"gorgonia.org/tensor"
)

// affineForm is the engine's affine capability (engine.affine),
// for methods whose terms have one parameter each and bind with their own
// operators (PS and M-PS: G = θI, H = φI). The bound maps are linear
// (models.Bound), so G_θ g = θ dG with dG = G_1 g, likewise
// H_φ p = φ dH, and the next iterate x⁺ = x − θ dG + φ dH is affine in two
// scalars. With fk(x) = ½‖Ax − yk‖² + α Σψ(Kx) (a regularizer implementing
// problem.Analysis), the residual and the analysis at x⁺ are the same
// combinations of Ax − y, A dG, A dH and Kx, K dG, K dH, which load
// computes once per step from the directions the terms give. An evaluation is then pointwise work, with no A,
// Aᵀ, K or Kᵀ:
//
//	r = (Ax − y) − θ A dG + φ A dH,   z = Kx − θ K dG + φ K dH
//	fk = ½‖rk‖² + α Σψ(zk)
//	∂θ = −(1/N) Σk ⟨rk, A dGk⟩ + α⟨ψ'(zk), K dGk⟩,   ∂φ likewise with dH and +
//
// For PS, dG = g and dH = p. For WCRR this removes the multi-channel
// convolutions W and Wᵀ from every evaluation; for CT, the ray transform and
// its adjoint.
type affineForm struct {
	o  *problem.Objective
	an problem.Analysis // nil: S ≡ 0 or α = 0
	// weights, for a family of regularisation weights, gives function k's
	// weight relative to α (an is then the unweighted S's).
	weights  problem.FunctionWeights
	momentum bool
	m, a     int // data and analysis lengths of one image

	x, g, p    []float64 // x, dG, dH
	rx, rg, rp []float64 // Ax − y, A dG, A dH
	kx, kg, kp []float64 // Kx, K dG, K dH
	z          []float64 // responses at x⁺, then ψ'
	vals, regv []float64
	dTheta     []float64 // per-image partial derivatives
	dPhi       []float64
	loaded     bool
}

// newAffineForm returns the affine form of a method with terms (1 or 2)
// one-parameter terms on o, or nil if o's regularizer does not implement
// problem.Analysis.
func newAffineForm(terms int, o *problem.Objective) *affineForm {
	f := &affineForm{o: o, momentum: terms > 1, m: o.DataLen()}
	if !o.LeastSquares() {
		reg := o.Reg
		if w, ok := reg.(problem.FunctionWeights); ok {
			reg, f.weights = w.Unweighted(), w // function k's potential times its weight
		}
		an, ok := reg.(problem.Analysis)
		if !ok {
			return nil
		}
		f.an, f.a = an, an.AnalysisLen(o.H, o.W)
	}
	n, hw := o.N, o.ImageLen()
	f.x, f.g = make([]float64, n*hw), make([]float64, n*hw)
	f.rx, f.rg = make([]float64, n*f.m), make([]float64, n*f.m)
	if f.momentum {
		f.p = make([]float64, n*hw)
		f.rp = make([]float64, n*f.m)
	}
	if f.an != nil {
		f.kx, f.kg, f.z = make([]float64, n*f.a), make([]float64, n*f.a), make([]float64, n*f.a)
		if f.momentum {
			f.kp = make([]float64, n*f.a)
		}
	}
	f.vals, f.regv = make([]float64, n), make([]float64, n)
	f.dTheta, f.dPhi = make([]float64, n), make([]float64, n)
	return f
}

// direction writes d = G_1 v for the bound map bd of v into dst.
func direction(dst []float64, bd models.Bound) error {
	clear(dst)
	if err := bd.AddApply(dst, []float64{1}, 1); err != nil {
		return fmt.Errorf("step loss: %w", err)
	}
	return nil
}

// load takes x and the step's bound maps (G's, then H's), computes the
// directions dG, dH and applies A and K to x, dG and dH.
func (f *affineForm) load(x []float64, bounds []models.Bound) error {
	o := f.o
	copy(f.x, x)
	if err := direction(f.g, bounds[0]); err != nil {
		return err
	}
	in := tensor.Shape{o.N, o.H, o.W}
	type job struct{ dst, src []float64 }
	data := []job{{f.rx, f.x}, {f.rg, f.g}}
	ana := []job{{f.kx, f.x}, {f.kg, f.g}}
	if f.momentum {
		if err := direction(f.p, bounds[1]); err != nil {
			return err
		}
		data = append(data, job{f.rp, f.p})
		ana = append(ana, job{f.kp, f.p})
	}
	for _, j := range data {
		if err := o.A.Apply(j.dst, j.src, in); err != nil {
			return fmt.Errorf("step loss: applying %s: %w", o.A, err)
		}
	}
	for i, y := range o.Y {
		f.rx[i] -= y
	}
	if f.an != nil {
		for _, j := range ana {
			if err := f.an.Analyze(j.dst, j.src, o.N, o.H, o.W); err != nil {
				return fmt.Errorf("step loss: analysis operator of %s: %w", o.Reg, err)
			}
		}
	}
	f.loaded = true
	return nil
}

// scalars returns θ and φ (0 without momentum) of params.
func (f *affineForm) scalars(params [][]float64) (theta, phi float64, err error) {
	if !f.loaded {
		return 0, 0, fmt.Errorf("step loss: SetStep was not called")
	}
	if len(params[0]) != 1 || (f.momentum && len(params[1]) != 1) {
		return 0, 0, fmt.Errorf("step loss: the affine form takes one parameter a term")
	}
	theta = params[0][0]
	if f.momentum {
		phi = params[1][0]
	}
	return theta, phi, nil
}

// next writes x⁺ = x − θ dG + φ dH into dst.
func (f *affineForm) next(dst []float64, params [][]float64) error {
	theta, phi, err := f.scalars(params)
	if err != nil {
		return err
	}
	for i := range dst {
		dst[i] = f.x[i] - theta*f.g[i]
	}
	if f.momentum {
		for i := range dst {
			dst[i] += phi * f.p[i]
		}
	}
	return nil
}

// pass computes the values fk(xk⁺) and, for the terms with grads[i] not
// nil, the partial derivatives of the form's functions, per function. In
// block mode nothing is worth freezing (x⁺ is pointwise work on vectors
// fixed within the step): the frozen term's partial derivative is not
// formed.
func (f *affineForm) pass(params, grads [][]float64) error {
	theta, phi, err := f.scalars(params)
	if err != nil {
		return err
	}
	o := f.o
	needT, needP := active(grads, 0), active(grads, 1)
	errs := make([]error, o.N)
	kernels.ParallelFor(o.N, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			fv, dt, dp := f.dataImage(k, theta, phi, needT, needP)
			fv *= 0.5
			if f.an != nil {
				rv, rt, rp, err := f.analysisImage(k, theta, phi, needT, needP)
				if err != nil {
					errs[k] = err
					continue
				}
				fv += rv
				if needT || needP {
					dt += rt
					dp += rp
				}
			}
			f.vals[k], f.dTheta[k], f.dPhi[k] = fv, -dt, dp
		}
	})
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("step loss: regularizer %s: %w", o.Reg, err)
		}
	}
	return nil
}

// addTo adds the last pass's values and partial derivatives to the running
// sums acc (value, dots[0] for θ, dots[1] for φ), in function order.
func (f *affineForm) addTo(acc *partialSums) {
	for k := range f.vals {
		acc.value += f.vals[k]
		acc.dots[0] += f.dTheta[k]
		acc.dots[1] += f.dPhi[k]
	}
}

// finish returns acc's mean value and adds ∂θ to grads[0][0] and ∂φ to
// grads[1][0] for those that are active; inv is 1/N.
func (f *affineForm) finish(acc *partialSums, grads [][]float64, inv float64) float64 {
	if active(grads, 0) {
		grads[0][0] += acc.dots[0] * inv
	}
	if f.momentum && active(grads, 1) {
		grads[1][0] += acc.dots[1] * inv
	}
	return acc.value * inv
}

// dataImage returns ‖r_k‖² for the residual r_k = (Ax − y) − θ A dG + φ A dH
// of image k and, where asked, ⟨r_k, A dG⟩ and ⟨r_k, A dH⟩; one loop per
// case, so that the sums run as they always have.
func (f *affineForm) dataImage(k int, theta, phi float64, needT, needP bool) (fv, dt, dp float64) {
	m := f.m
	rx, rg := f.rx[k*m:(k+1)*m], f.rg[k*m:(k+1)*m]
	if !f.momentum {
		for i, v := range rx {
			r := v - theta*rg[i]
			fv += r * r
			dt += r * rg[i]
		}
		return fv, dt, dp
	}
	rp := f.rp[k*m : (k+1)*m][:len(rx)]
	rg = rg[:len(rx)]
	switch {
	case needT && needP:
		for i, v := range rx {
			r := v - theta*rg[i] + phi*rp[i]
			fv += r * r
			dt += r * rg[i]
			dp += r * rp[i]
		}
	case needT:
		for i, v := range rx {
			r := v - theta*rg[i] + phi*rp[i]
			fv += r * r
			dt += r * rg[i]
		}
	case needP:
		for i, v := range rx {
			r := v - theta*rg[i] + phi*rp[i]
			fv += r * r
			dp += r * rp[i]
		}
	default:
		for i, v := range rx {
			r := v - theta*rg[i] + phi*rp[i]
			fv += r * r
		}
	}
	return fv, dt, dp
}

// analysisImage returns α·Σψ(z_k) for the responses z_k = Kx − θ K dG + φ K dH
// of image k and, where asked, α⟨ψ'(z_k), K dG⟩ and α⟨ψ'(z_k), K dH⟩.
func (f *affineForm) analysisImage(k int, theta, phi float64, needT, needP bool) (fv, dt, dp float64, err error) {
	o, a := f.o, f.a
	z := f.z[k*a : (k+1)*a]
	kx, kg := f.kx[k*a:(k+1)*a], f.kg[k*a:(k+1)*a]
	var kp []float64
	if f.momentum {
		kp = f.kp[k*a : (k+1)*a]
		for i, v := range kx {
			z[i] = v - theta*kg[i] + phi*kp[i]
		}
	} else {
		for i, v := range kx {
			z[i] = v - theta*kg[i]
		}
	}
	withGrad := needT || needP
	var deriv []float64
	if withGrad {
		deriv = z
	}
	if err := f.an.Potential(f.regv[k:k+1], deriv, z, 1, o.H, o.W); err != nil {
		return 0, 0, 0, err
	}
	alpha := o.Alpha
	if f.weights != nil {
		alpha *= f.weights.FunctionWeight(k)
	}
	fv = alpha * f.regv[k]
	if !withGrad {
		return fv, 0, 0, nil
	}
	var st, sp float64
	if needT {
		for i, d := range z {
			st += d * kg[i]
		}
	}
	if needP {
		for i, d := range z {
			sp += d * kp[i]
		}
	}
	return fv, alpha * st, alpha * sp, nil
}

// bytes is the memory the affine form holds.
func (f *affineForm) bytes() int64 {
	var t int
	for _, b := range [][]float64{f.x, f.g, f.p, f.rx, f.rg, f.rp, f.kx, f.kg, f.kp, f.z, f.vals, f.regv, f.dTheta, f.dPhi} {
		t += len(b)
	}
	return int64(8 * t)
}
