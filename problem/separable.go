package problem

import (
	"math"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// separableT is a K×K correlation kernel of rank one, k[u,v] = col[u]·row[v]
// (a Gaussian blur, for instance), applied as a pass along rows and a pass
// along columns: 2K instead of K² multiplications per pixel. It is written
// once for both precisions (kernels.Float); separable is the float64 one.
type separableT[F kernels.Float] struct {
	col, row []F
	k        int
	boundary kernels.Boundary
}

// separable is the float64 separable kernel that Blur keeps.
type separable = separableT[float64]

// convertSeparable returns sp in precision D with the scale s folded into
// the column factor: col[u] = D(s·col[u]) (s·col[u] rounded once), so that
// applying the result with scale 1 computes s·(k ⋆ x).
func convertSeparable[D kernels.Float](sp *separable, s float64) *separableT[D] {
	out := &separableT[D]{col: make([]D, len(sp.col)), row: make([]D, len(sp.row)), k: sp.k, boundary: sp.boundary}
	for u, c := range sp.col {
		out.col[u] = D(s * c)
	}
	kernels.Convert(out.row, sp.row)
	return out
}

// factorRankOne returns col, row with k[u,v] = col[u]·row[v] to within 1e-14
// of the largest entry, or ok = false if k is not of rank one.
func factorRankOne(k []float64, kk int) (col, row []float64, ok bool) {
	if kk < 1 || len(k) != kk*kk {
		return nil, nil, false
	}
	// Pivot on the largest entry.
	piv, big := 0, 0.0
	for i, v := range k {
		if math.Abs(v) > big {
			piv, big = i, math.Abs(v)
		}
	}
	if big == 0 {
		return nil, nil, false
	}
	pu, pv := piv/kk, piv%kk
	col, row = make([]float64, kk), make([]float64, kk)
	for u := 0; u < kk; u++ {
		col[u] = k[u*kk+pv] / k[piv]
	}
	copy(row, k[pu*kk:(pu+1)*kk])
	for u := 0; u < kk; u++ {
		for v := 0; v < kk; v++ {
			if math.Abs(col[u]*row[v]-k[u*kk+v]) > 1e-14*big {
				return nil, nil, false
			}
		}
	}
	return col, row, true
}

// blurScratchT is one worker's scratch for a separable blur of h×w images.
type blurScratchT[F kernels.Float] struct {
	pad        []F // (h+2p)×(w+2p)
	tmp        []F // (h+2p)×w
	zrows      []F // (h+4p)×w
	zrow       []F // w+4p
	coef, flip []F
}

// blurScratch is the float64 scratch.
type blurScratch = blurScratchT[float64]

func (s *blurScratchT[F]) size(h, w, p int) {
	if n := (h + 4*p) * w; len(s.zrows) != n {
		s.zrows = make([]F, n)
	}
	if n := w + 4*p; len(s.zrow) != n {
		s.zrow = make([]F, n)
	}
	if n := (h + 2*p) * (w + 2*p); len(s.pad) != n {
		s.pad = make([]F, n)
	}
	if n := (h + 2*p) * w; len(s.tmp) != n {
		s.tmp = make([]F, n)
	}
}

// padImage writes the extension of x (h×w) into dst ((h+2p)×(w+2p)).
func (sp *separableT[F]) padImage(dst, x []F, h, w int) {
	p := sp.k / 2
	pw := w + 2*p
	for i := -p; i < h+p; i++ {
		row := dst[(i+p)*pw : (i+p+1)*pw]
		si := sp.boundary.Extend(i, h)
		if si < 0 {
			clear(row)
			continue
		}
		src := x[si*w : (si+1)*w]
		copy(row[p:p+w], src)
		for j := 0; j < p; j++ {
			row[j], row[p+w+j] = 0, 0
			if sj := sp.boundary.Extend(j-p, w); sj >= 0 {
				row[j] = src[sj]
			}
			if sj := sp.boundary.Extend(w+j, w); sj >= 0 {
				row[p+w+j] = src[sj]
			}
		}
	}
}

// foldImage is the transpose of padImage: dst (h×w) = Σ of the entries of
// src ((h+2p)×(w+2p)) that extend each pixel. dst is overwritten.
func (sp *separableT[F]) foldImage(dst, src []F, h, w int) {
	p := sp.k / 2
	pw := w + 2*p
	for i := 0; i < h; i++ {
		copy(dst[i*w:(i+1)*w], src[(i+p)*pw+p:(i+p)*pw+p+w])
	}
	if p == 0 || sp.boundary == kernels.Zero {
		return
	}
	for i := -p; i < h+p; i++ {
		si := sp.boundary.Extend(i, h)
		row := src[(i+p)*pw : (i+p+1)*pw]
		drow := dst[si*w : (si+1)*w]
		if i < 0 || i >= h {
			// A whole extended row folds onto row si.
			for j := -p; j < w+p; j++ {
				drow[sp.boundary.Extend(j, w)] += row[j+p]
			}
			continue
		}
		for j := -p; j < 0; j++ {
			drow[sp.boundary.Extend(j, w)] += row[j+p]
		}
		for j := w; j < w+p; j++ {
			drow[sp.boundary.Extend(j, w)] += row[j+p]
		}
	}
}

// applyImage writes s·(k ⋆ x̄) into dst for one h×w image x.
func (sp *separableT[F]) applyImage(dst, x []F, h, w int, s F, sc *blurScratchT[F]) {
	p := sp.k / 2
	sc.size(h, w, p)
	pw, ph := w+2*p, h+2*p
	sp.padImage(sc.pad, x, h, w)
	// Rows: tmp[i,j] = Σ_v row[v]·pad[i, j+v].
	for i := 0; i < ph; i++ {
		correlateRow(sc.tmp[i*w:(i+1)*w], sc.pad[i*pw:(i+1)*pw], sp.row)
	}
	// Columns: dst[i,j] = s·Σ_u col[u]·tmp[i+u, j].
	sc.coef = sc.coef[:0]
	for _, c := range sp.col {
		sc.coef = append(sc.coef, s*c)
	}
	for i := 0; i < h; i++ {
		combineRows(dst[i*w:(i+1)*w], sc.tmp[i*w:], w, sc.coef)
	}
}

// adjointImage writes s·Kᵀy into dst for one h×w image y: the transpose of
// applyImage.
func (sp *separableT[F]) adjointImage(dst, y []F, h, w int, s F, sc *blurScratchT[F]) {
	p := sp.k / 2
	sc.size(h, w, p)
	pw, ph := w+2*p, h+2*p
	// Columns, transposed: tmp[i', j] = s·Σ_u col[u]·y[i'−u, j] (y zero
	// outside its rows), a correlation of y padded by 2p zero rows with the
	// flipped column.
	yz := sc.zrows[:(h+4*p)*w]
	clear(yz[:2*p*w])
	copy(yz[2*p*w:], y[:h*w])
	clear(yz[(h+2*p)*w:])
	sc.coef = sc.coef[:0]
	for u := sp.k - 1; u >= 0; u-- {
		sc.coef = append(sc.coef, s*sp.col[u])
	}
	for i := 0; i < ph; i++ {
		combineRows(sc.tmp[i*w:(i+1)*w], yz[i*w:], w, sc.coef)
	}
	// Rows, transposed: pad[i, j'] = Σ_v row[v]·tmp[i, j'−v], a correlation
	// of the row padded by 2p zeros with the flipped row kernel.
	zr := sc.zrow[:w+4*p]
	clear(zr)
	sc.flip = sc.flip[:0]
	for v := sp.k - 1; v >= 0; v-- {
		sc.flip = append(sc.flip, sp.row[v])
	}
	for i := 0; i < ph; i++ {
		copy(zr[2*p:2*p+w], sc.tmp[i*w:(i+1)*w])
		correlateRow(sc.pad[i*pw:(i+1)*pw], zr, sc.flip)
	}
	sp.foldImage(dst, sc.pad, h, w)
}

// combineRows writes out[j] = Σ_u c[u]·src[u·stride + j].
func combineRows[F kernels.Float](out, src []F, stride int, c []F) {
	if is32[F]() && combineRows32 != nil && combineRows32(as32(out), as32(src), stride, as32(c)) {
		return
	}
	if !is32[F]() && combineRows64 != nil && combineRows64(as64(out), as64(src), stride, as64(c)) {
		return
	}
	n := len(out)
	if len(c) == 5 {
		c0, c1, c2, c3, c4 := c[0], c[1], c[2], c[3], c[4]
		r0, r1, r2 := src[:n], src[stride:stride+n], src[2*stride:2*stride+n]
		r3, r4 := src[3*stride:3*stride+n], src[4*stride:4*stride+n]
		for j := range out {
			out[j] = c0*r0[j] + c1*r1[j] + c2*r2[j] + c3*r3[j] + c4*r4[j]
		}
		return
	}
	if len(c) == 3 {
		c0, c1, c2 := c[0], c[1], c[2]
		r0, r1, r2 := src[:n], src[stride:stride+n], src[2*stride:2*stride+n]
		for j := range out {
			out[j] = c0*r0[j] + c1*r1[j] + c2*r2[j]
		}
		return
	}
	// Other sizes: the rows are added in order, c0·r0 + c1·r1 + …, three
	// rows a pass after the first.
	r0 := src[:n]
	for j := range out {
		out[j] = c[0] * r0[j]
	}
	u := 1
	for ; u+3 <= len(c); u += 3 {
		c1, c2, c3 := c[u], c[u+1], c[u+2]
		r1, r2, r3 := src[u*stride:u*stride+n], src[(u+1)*stride:(u+1)*stride+n], src[(u+2)*stride:(u+2)*stride+n]
		for j := range out {
			out[j] = out[j] + c1*r1[j] + c2*r2[j] + c3*r3[j]
		}
	}
	for ; u < len(c); u++ {
		kernels.Axpy(out, c[u], src[u*stride:u*stride+n])
	}
}

// correlateRow writes out[j] = Σ_v r[v]·in[j+v], len(in) ≥ len(out)+len(r)−1.
func correlateRow[F kernels.Float](out, in, r []F) {
	if is32[F]() && correlateRow32 != nil && correlateRow32(as32(out), as32(in), as32(r)) {
		return
	}
	if !is32[F]() && correlateRow64 != nil && correlateRow64(as64(out), as64(in), as64(r)) {
		return
	}
	if len(r) == 5 {
		r0, r1, r2, r3, r4 := r[0], r[1], r[2], r[3], r[4]
		for j := range out {
			b := in[j : j+5 : j+5]
			out[j] = r0*b[0] + r1*b[1] + r2*b[2] + r3*b[3] + r4*b[4]
		}
		return
	}
	if len(r) == 3 {
		r0, r1, r2 := r[0], r[1], r[2]
		for j := range out {
			b := in[j : j+3 : j+3]
			out[j] = r0*b[0] + r1*b[1] + r2*b[2]
		}
		return
	}
	for j := range out {
		var s F
		for v, rv := range r {
			s += rv * in[j+v]
		}
		out[j] = s
	}
}

// workerChunks runs body(worker, lo, hi) over parallel chunks of [0, n), with
// worker ∈ [0, kernels.ParallelChunks(n, nil)) identifying the chunk, so that each
// call can use its own scratch.
func workerChunks(n int, body func(worker, lo, hi int)) { kernels.ParallelChunks(n, body) }
