package greedy

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/param"
	"github.com/greedyl2o/greedyl2o/problem"
	"gorgonia.org/tensor"
)

// affineStep evaluates the step loss of PS and M-PS (G = θI, H = φI), whose
// next iterate x⁺ = x − θg + φp is affine in two scalars. With
// fk(x) = ½‖Ax − yk‖² + α Σψ(Kx) (a regularizer implementing
// problem.Analysis), the residual and the analysis at x⁺ are the same
// combinations of Ax − y, Ag, Ap and Kx, Kg, Kp, which setStep computes
// once per step. An evaluation is then pointwise work, with no A, Aᵀ, K or
// Kᵀ:
//
//	r = (Ax − y) − θ Ag + φ Ap,   z = Kx − θ Kg + φ Kp
//	fk = ½‖rk‖² + α Σψ(zk)
//	∂θ = −(1/N) Σk ⟨rk, Agk⟩ + α⟨ψ'(zk), Kgk⟩,   ∂φ = (1/N) Σk ⟨rk, Apk⟩ + α⟨ψ'(zk), Kpk⟩
//
// For WCRR this removes the multi-channel convolutions W and Wᵀ from every
// evaluation; for CT, the ray transform and its adjoint.
type affineStep struct {
	o        *problem.Objective
	an       problem.Analysis // nil: S ≡ 0 or α = 0
	momentum bool
	m, a     int // data and analysis lengths of one image

	x, g, p    []float64
	rx, rg, rp []float64 // Ax − y, Ag, Ap
	kx, kg, kp []float64 // Kx, Kg, Kp
	z          []float64 // responses at x⁺, then ψ'
	vals, regv []float64
	dTheta     []float64 // per-image partial derivatives
	dPhi       []float64
}

// newAffineStep returns the affine evaluator for m on o, or nil if m is not
// PS or M-PS or the regularizer does not implement problem.Analysis.
func newAffineStep(m param.Method, o *problem.Objective) *affineStep {
	if _, ok := m.G.(param.Scalar); !ok {
		return nil
	}
	if m.H != nil {
		if _, ok := m.H.(param.Scalar); !ok {
			return nil
		}
	}
	f := &affineStep{o: o, momentum: m.H != nil, m: o.DataLen()}
	if !o.LeastSquares() {
		an, ok := o.Reg.(problem.Analysis)
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

// setStep applies A and K to x, g and p.
func (f *affineStep) setStep(x, g, p []float64) error {
	o := f.o
	n := o.N * o.ImageLen()
	if len(x) != n || len(g) != n || (f.momentum && len(p) != n) {
		return fmt.Errorf("step loss: x, ∇f(x), p have %d, %d, %d values, want %d each", len(x), len(g), len(p), n)
	}
	copy(f.x, x)
	copy(f.g, g)
	in := tensor.Shape{o.N, o.H, o.W}
	type job struct{ dst, src []float64 }
	data := []job{{f.rx, x}, {f.rg, g}}
	ana := []job{{f.kx, x}, {f.kg, g}}
	if f.momentum {
		copy(f.p, p)
		data = append(data, job{f.rp, p})
		ana = append(ana, job{f.kp, p})
	}
	for _, j := range data {
		if err := o.A.Apply(j.dst, j.src, in); err != nil {
			return fmt.Errorf("step loss: applying %s: %w", o.A, err)
		}
	}
	for i, y := range o.Y {
		f.rx[i] -= y
	}
	if f.an == nil {
		return nil
	}
	for _, j := range ana {
		if err := f.an.Analyze(j.dst, j.src, o.N, o.H, o.W); err != nil {
			return fmt.Errorf("step loss: analysis operator of %s: %w", o.Reg, err)
		}
	}
	return nil
}

// scalars returns θ and φ (0 without momentum) of params.
func (f *affineStep) scalars(params [][]float64) (theta, phi float64, err error) {
	if len(params[0]) != 1 || (f.momentum && len(params[1]) != 1) {
		return 0, 0, fmt.Errorf("step loss: scalar parametrizations take one parameter each")
	}
	theta = params[0][0]
	if f.momentum {
		phi = params[1][0]
	}
	return theta, phi, nil
}

// next writes x⁺ = x − θg + φp into dst.
func (f *affineStep) next(dst []float64, params [][]float64) error {
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

// eval returns (1/N) Σ fk(x⁺) and adds its derivatives in θ and φ to
// grads (grads may be nil).
func (f *affineStep) eval(params, grads [][]float64) (float64, error) {
	theta, phi, err := f.scalars(params)
	if err != nil {
		return 0, err
	}
	o, m, a := f.o, f.m, f.a
	withGrad := grads != nil
	errs := make([]error, o.N)
	kernels.ParallelFor(o.N, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			var fv, dt, dp float64
			rx, rg := f.rx[k*m:(k+1)*m], f.rg[k*m:(k+1)*m]
			if f.momentum {
				rp := f.rp[k*m : (k+1)*m]
				for i, v := range rx {
					r := v - theta*rg[i] + phi*rp[i]
					fv += r * r
					dt += r * rg[i]
					dp += r * rp[i]
				}
			} else {
				for i, v := range rx {
					r := v - theta*rg[i]
					fv += r * r
					dt += r * rg[i]
				}
			}
			fv *= 0.5
			if f.an != nil {
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
				var deriv []float64
				if withGrad {
					deriv = z
				}
				if err := f.an.Potential(f.regv[k:k+1], deriv, z, 1, o.H, o.W); err != nil {
					errs[k] = err
					continue
				}
				fv += o.Alpha * f.regv[k]
				if withGrad {
					var st, sp float64
					for i, d := range z {
						st += d * kg[i]
					}
					if f.momentum {
						for i, d := range z {
							sp += d * kp[i]
						}
					}
					dt += o.Alpha * st
					dp += o.Alpha * sp
				}
			}
			f.vals[k], f.dTheta[k], f.dPhi[k] = fv, -dt, dp
		}
	})
	for _, err := range errs {
		if err != nil {
			return 0, fmt.Errorf("step loss: regularizer %s: %w", o.Reg, err)
		}
	}
	inv := 1 / float64(o.N)
	var sum, st, sp float64
	for k := range f.vals {
		sum += f.vals[k]
		st += f.dTheta[k]
		sp += f.dPhi[k]
	}
	if withGrad {
		grads[0][0] += st * inv
		if f.momentum {
			grads[1][0] += sp * inv
		}
	}
	return sum * inv, nil
}

// bytes is the memory the affine evaluator holds.
func (f *affineStep) bytes() int64 {
	var t int
	for _, b := range [][]float64{f.x, f.g, f.p, f.rx, f.rg, f.rp, f.kx, f.kg, f.kp, f.z, f.vals, f.regv, f.dTheta, f.dPhi} {
		t += len(b)
	}
	return int64(8 * t)
}
