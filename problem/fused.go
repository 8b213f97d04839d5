package problem

import (
	"math"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// fusedScratch is one worker's scratch for evalFused.
type fusedScratch struct {
	blur blurScratch
	res  []float64
	up   []float64
}

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

// evalFused is Eval for objectives accepted by fusedBlur: every image goes
// through blur, residual, adjoint blur and Huber-TV while it is in cache,
// instead of each kernel sweeping the whole batch.
func (o *Objective) evalFused(vals, grad, x []float64, ws *Workspace, b *Blur, s float64, tv *HuberTV) {
	h, w, hw := o.H, o.W, o.ImageLen()
	nw := kernels.ParallelChunks(o.N, nil)
	for len(ws.fused) < nw {
		ws.fused = append(ws.fused, &fusedScratch{})
	}
	workerChunks(o.N, func(worker, lo, hi int) {
		sc := ws.fused[worker]
		sc.res = grow(sc.res, hw)
		sc.up = grow(sc.up, w)
		for k := lo; k < hi; k++ {
			xk, yk := x[k*hw:(k+1)*hw], o.Y[k*hw:(k+1)*hw]
			b.sep.applyImage(sc.res, xk, h, w, s, &sc.blur)
			var data float64
			for i, y := range yk {
				r := sc.res[i] - y
				sc.res[i] = r
				data += r * r
			}
			var gk []float64
			if grad != nil {
				gk = grad[k*hw : (k+1)*hw]
				b.sep.adjointImage(gk, sc.res, h, w, s, &sc.blur)
			}
			v := 0.5 * data
			if tv != nil {
				v += o.Alpha * huberTVImage(gk, xk, h, w, tv.Eps, o.Alpha, sc.up)
			}
			if vals != nil {
				vals[k] = v
			}
		}
	})
}

// huberTVImage returns S(x) = Σ h_ε(|(Dx)_ij|) for one h×w image and, if g is
// not nil, adds α·DᵀΨ to g with Ψ = Dx/max(|Dx|, ε). The formulas are those of
// kernels.Huber, Grad and GradAdjoint: forward differences with the last one
// in each direction zero, and
//
//	(DᵀΨ)[i,j] = Ψ1[i−1,j] − Ψ1[i,j] + Ψ2[i,j−1] − Ψ2[i,j].
//
// up is scratch for one row (w values).
func huberTVImage(g, x []float64, h, w int, eps, alpha float64, up []float64) float64 {
	var s float64
	half, inv2 := eps/2, 1/(2*eps)
	eps2 := eps * eps
	if g != nil {
		clear(up[:w])
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
				var d2 float64
				if j+1 < w {
					d2 = row[j+1] - row[j]
				}
				r2 := d1*d1 + d2*d2
				v := math.Sqrt(r2) - half
				if r2 <= eps2 {
					v = r2 * inv2
				}
				s += v
			}
			continue
		}
		gr := g[i*w : (i+1)*w][:w]
		up := up[:w]
		next = next[:w]
		var left float64 // Ψ2[i, j−1]
		for j := 0; j < w-1; j++ {
			d1 := next[j] - row[j]
			d2 := row[j+1] - row[j]
			r2 := d1*d1 + d2*d2
			r := math.Sqrt(r2)
			v := r - half
			if r2 <= eps2 {
				v = r2 * inv2
			}
			s += v
			q := 1 / max(r, eps)
			p1, p2 := d1*q, d2*q
			gr[j] += alpha * (up[j] - p1 + left - p2)
			up[j], left = p1, p2
		}
		// Last column: d2 = 0.
		j := w - 1
		d1 := next[j] - row[j]
		r2 := d1 * d1
		r := math.Abs(d1)
		v := r - half
		if r2 <= eps2 {
			v = r2 * inv2
		}
		s += v
		p1 := d1 / max(r, eps)
		gr[j] += alpha * (up[j] - p1 + left)
		up[j] = p1
	}
	return s
}
