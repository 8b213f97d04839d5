package problem

import (
	"github.com/greedyl2o/greedyl2o/kernels"
)

// fusedScratchT is one worker's scratch for the fused evaluation.
type fusedScratchT[F kernels.Float] struct {
	blur blurScratchT[F]
	res  []F
	up   []F
}

// fusedScratch is the float64 scratch that Workspace keeps.
type fusedScratch = fusedScratchT[float64]

// fusedBlur reports whether o can be evaluated image by image with fused
// kernels: A = s·B for a separable blur B, and S Huber-TV or absent. It
// returns the blur, the scale s and whether there is a Huber-TV term.
func (o *Objective) fusedBlur() (b *Blur, s float64, tv *HuberTV, ok bool) {
	s = 1
	a := o.A
	if sc, isScaled := a.(*Scaled); isScaled {
		s, a = sc.Scale, sc.Op
	}
	b, isBlur := a.(*Blur)
	if !isBlur || b.sep == nil {
		return nil, 0, nil, false
	}
	if o.Alpha == 0 || o.Reg == nil || o.Reg.Zero() {
		return b, s, nil, true
	}
	switch r := o.Reg.(type) {
	case HuberTV:
		return b, s, &r, true
	case *HuberTV:
		return b, s, r, true
	}
	return nil, 0, nil, false
}

// fusedProblem is what the fused evaluation needs, in precision F:
// f_k(x) = ½‖s·B x − y_k‖² + α·S(x) on n images of h×w, S Huber-TV with
// parameter eps when tv is set. alpha and eps stay float64: values are
// accumulated in float64, and the gradient uses them rounded to F.
type fusedProblem[F kernels.Float] struct {
	sep     *separableT[F]
	s       F
	y       []F
	n, h, w int
	tv      bool
	alpha   float64
	eps     float64
}

// evalFused is Eval for objectives accepted by fusedBlur: every image goes
// through blur, residual, adjoint blur and Huber-TV while it is in cache,
// instead of each kernel sweeping the whole batch.
func (o *Objective) evalFused(vals, grad, x []float64, ws *Workspace, b *Blur, s float64, tv *HuberTV) {
	fp := fusedProblem[float64]{sep: b.sep, s: s, y: o.Y, n: o.N, h: o.H, w: o.W, tv: tv != nil, alpha: o.Alpha}
	if tv != nil {
		fp.eps = tv.Eps
	}
	nw := kernels.ParallelChunks(o.N, nil)
	for len(ws.fused) < nw {
		ws.fused = append(ws.fused, &fusedScratch{})
	}
	workerChunks(o.N, func(worker, lo, hi int) {
		fusedImages(fp, vals, grad, x, ws.fused[worker], lo, hi)
	})
}

// fusedImages evaluates f_k (into vals[k], unless vals is nil) and ∇f_k
// (into grad, unless grad is nil) for the images lo ≤ k < hi. The value of
// each image is accumulated in float64; the gradient is computed in F.
func fusedImages[F kernels.Float](fp fusedProblem[F], vals []float64, grad, x []F, sc *fusedScratchT[F], lo, hi int) {
	h, w, hw := fp.h, fp.w, fp.h*fp.w
	sc.res = growT(sc.res, hw)
	sc.up = growT(sc.up, 4*w) // w for huberTVImage's Ψ1 row, 3w for its vector kernel
	for k := lo; k < hi; k++ {
		xk, yk := x[k*hw:(k+1)*hw], fp.y[k*hw:(k+1)*hw]
		fp.sep.applyImage(sc.res, xk, h, w, fp.s, &sc.blur)
		var data float64
		res := sc.res[:len(yk)]
		if is32[F]() && residual32 != nil {
			data = residual32(as32(res), as32(yk))
		} else {
			for i, y := range yk {
				r := res[i] - y
				res[i] = r
				data += float64(r) * float64(r)
			}
		}
		var gk []F
		if grad != nil {
			gk = grad[k*hw : (k+1)*hw]
			fp.sep.adjointImage(gk, sc.res, h, w, fp.s, &sc.blur)
		}
		v := 0.5 * data
		if fp.tv {
			v += fp.alpha * huberTVImage(gk, xk, h, w, fp.eps, fp.alpha, sc.up)
		}
		if vals != nil {
			vals[k] = v
		}
	}
}

// huberTVImage returns S(x) = Σ h_ε(|(Dx)_ij|) for one h×w image and, if g is
// not nil, adds α·DᵀΨ to g with Ψ = Dx/max(|Dx|, ε). The formulas are those of
// kernels.Huber, Grad and GradAdjoint: forward differences with the last one
// in each direction zero, and
//
//	(DᵀΨ)[i,j] = Ψ1[i−1,j] − Ψ1[i,j] + Ψ2[i,j−1] − Ψ2[i,j].
//
// Per-pixel terms are computed in F (with ε/2, 1/(2ε), ε², ε and α rounded
// to F) and summed in float64. up is scratch for one row (w values; 3w
// lets float32 run the vector row kernel, huberTVRow32, and 4w float64
// huberTVRow64, where they are set).
func huberTVImage[F kernels.Float](g, x []F, h, w int, eps64, alpha64 float64, up []F) float64 {
	var s float64
	half, inv2 := F(eps64/2), F(1/(2*eps64))
	eps2 := F(eps64 * eps64)
	eps, alpha := F(eps64), F(alpha64)
	if g != nil {
		clear(up[:w])
	}
	// The vector row kernel (float32, AVX2) needs 2w more values of scratch
	// after up.
	vec := g != nil && is32[F]() && huberTVRow32 != nil && w > 1 && len(up) >= 3*w
	var vs []float32
	var half32, inv232, eps232, eps32, alpha32 float32
	if vec {
		vs = as32(up[w : 3*w])
		half32, inv232, eps232, eps32, alpha32 = float32(half), float32(inv2), float32(eps2), float32(eps), float32(alpha)
	}
	vec64 := g != nil && !is32[F]() && huberTVRow64 != nil && w > 1 && len(up) >= 4*w
	var vs64 []float64
	if vec64 {
		vs64 = as64(up[w : 4*w])
	}
	for i := 0; i < h; i++ {
		row := x[i*w : (i+1)*w]
		next := row // the last row has no vertical difference: d1 = 0
		if i+1 < h {
			next = x[(i+1)*w : (i+2)*w]
		}
		if g == nil {
			for j := 0; j < w; j++ {
				d1 := next[j] - row[j]
				var d2 F
				if j+1 < w {
					d2 = row[j+1] - row[j]
				}
				r2 := d1*d1 + d2*d2
				v := kernels.Sqrt(r2) - half
				if r2 <= eps2 {
					v = r2 * inv2
				}
				s += float64(v)
			}
			continue
		}
		gr := g[i*w : (i+1)*w][:w]
		up := up[:w]
		next = next[:w]
		var left F // Ψ2[i, j−1]
		j0 := 0
		if vec {
			sv, done := huberTVRow32(as32(gr), as32(row[:w]), as32(next), as32(up), vs, half32, inv232, eps232, eps32, alpha32)
			s += sv
			j0, left = done, F(vs[done])
		}
		if vec64 {
			done := huberTVRow64(as64(gr), as64(row[:w]), as64(next), as64(up), vs64,
				float64(half), float64(inv2), float64(eps2), float64(eps), float64(alpha))
			for _, v := range vs64[2*w : 2*w+done] {
				s += v
			}
			j0, left = done, F(vs64[done])
		}
		for j := j0; j < w-1; j++ {
			d1 := next[j] - row[j]
			d2 := row[j+1] - row[j]
			r2 := d1*d1 + d2*d2
			r := kernels.Sqrt(r2)
			v := r - half
			if r2 <= eps2 {
				v = r2 * inv2
			}
			s += float64(v)
			q := 1 / max(r, eps)
			p1, p2 := d1*q, d2*q
			gr[j] += alpha * (up[j] - p1 + left - p2)
			up[j], left = p1, p2
		}
		// Last column: d2 = 0.
		j := w - 1
		d1 := next[j] - row[j]
		r2 := d1 * d1
		r := kernels.Abs(d1)
		v := r - half
		if r2 <= eps2 {
			v = r2 * inv2
		}
		s += float64(v)
		p1 := d1 / max(r, eps)
		gr[j] += alpha * (up[j] - p1 + left)
		up[j] = p1
	}
	return s
}

// growT returns b resliced to n values, or a new slice if b is too short.
func growT[F kernels.Float](b []F, n int) []F {
	if cap(b) < n {
		return make([]F, n)
	}
	return b[:n]
}
