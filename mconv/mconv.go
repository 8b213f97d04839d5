package mconv

import (
	"errors"
	"fmt"
	"math"
)

// Shape gives the sizes of one convolution layer applied to a batch.
type Shape struct {
	N    int // number of images in the batch
	Cin  int // input channels
	Cout int // output channels
	H    int // image height (rows)
	W    int // image width (columns)
	K    int // kernel size (K×K, odd); the zero padding is K/2
}

// Validate reports whether every size is positive, K is odd and the array
// sizes N·C·H·W and Cout·Cin·K·K fit in an int.
func (s Shape) Validate() error {
	fields := []struct {
		name string
		v    int
	}{{"N", s.N}, {"Cin", s.Cin}, {"Cout", s.Cout}, {"H", s.H}, {"W", s.W}, {"K", s.K}}
	for _, f := range fields {
		if f.v < 1 {
			return fmt.Errorf("mconv: shape %s = %d, want a positive size", f.name, f.v)
		}
	}
	if s.K%2 == 0 {
		return fmt.Errorf("mconv: shape K = %d, want an odd kernel size ('same' padding K/2 needs it)", s.K)
	}
	maxC := max(s.Cin, s.Cout)
	if !fitsInt(s.N, maxC, s.H, s.W) || !fitsInt(s.Cout, s.Cin, s.K, s.K) {
		return fmt.Errorf("mconv: shape %+v is too large: array sizes overflow int", s)
	}
	return nil
}

// fitsInt reports whether the product of the positive factors fits in an int.
func fitsInt(factors ...int) bool {
	p := 1
	for _, f := range factors {
		if p > math.MaxInt/f {
			return false
		}
		p *= f
	}
	return true
}

// InputLen returns N·Cin·H·W, the length of the input slice x.
func (s Shape) InputLen() int { return s.N * s.Cin * s.H * s.W }

// OutputLen returns N·Cout·H·W, the length of the output slice y.
func (s Shape) OutputLen() int { return s.N * s.Cout * s.H * s.W }

// WeightLen returns Cout·Cin·K·K, the length of the weight slice w.
func (s Shape) WeightLen() int { return s.Cout * s.Cin * s.K * s.K }

// checkLen returns an error naming the slice when its length is not want.
func checkLen(name string, got, want int, s Shape) error {
	if got != want {
		return fmt.Errorf("mconv: len(%s) = %d, want %d for shape %+v", name, got, want, s)
	}
	return nil
}

// check validates s and the lengths of the slices of one call.
func check(s Shape, lens ...struct {
	name      string
	got, want int
}) error {
	if err := s.Validate(); err != nil {
		return err
	}
	var errs []error
	for _, l := range lens {
		if err := checkLen(l.name, l.got, l.want, s); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Float is the element type of the kernels' arrays: float64, or float32
// (arithmetic in float32).
type Float interface{ ~float32 | ~float64 }

type lenCheck = struct {
	name      string
	got, want int
}

// Forward computes the cross-correlation
//
//	y[n,o,i,j] = bias[o] + Σ_c Σ_{u,v} w[o,c,u,v] · x[n,c,i+u−p,j+v−p],  p = K/2,
//
// with x = 0 outside the image. The bias is left out when bias is nil. y is
// overwritten and must not overlap x. Lengths: len(x) = N·Cin·H·W,
// len(w) = Cout·Cin·K·K, len(bias) = Cout (or nil), len(y) = N·Cout·H·W.
func Forward(y, x, w, bias []float64, s Shape) error { return ForwardT(y, x, w, bias, s) }

// ForwardT is Forward in the precision F: float32 computes in float32.
func ForwardT[F Float](y, x, w, bias []F, s Shape) error {
	lens := []lenCheck{{"y", len(y), s.OutputLen()}, {"x", len(x), s.InputLen()}, {"w", len(w), s.WeightLen()}}
	if bias != nil {
		lens = append(lens, lenCheck{"bias", len(bias), s.Cout})
	}
	if err := check(s, lens...); err != nil {
		return fmt.Errorf("mconv.Forward: %w", err)
	}
	op := corrOp[F]{
		dst: y, src: x, w: w, bias: bias,
		n: s.N, nIn: s.Cin, nOut: s.Cout, h: s.H, wd: s.W, k: s.K,
		outStride: s.Cin, inStride: 1,
	}
	op.run()
	return nil
}

// AdjointInput computes the transpose of Forward (without bias) with respect
// to its input:
//
//	x[n,c,p,q] = Σ_o Σ_{u,v} w[o,c,u,v] · y[n,o,p−u+pad,q−v+pad],  pad = K/2,
//
// with y = 0 outside the image, so that ⟨Forward(x), y⟩ = ⟨x, AdjointInput(y)⟩.
// x is overwritten and must not overlap y. Lengths as for Forward.
func AdjointInput(x, y, w []float64, s Shape) error { return AdjointInputT(x, y, w, s) }

// AdjointInputT is AdjointInput in the precision F.
func AdjointInputT[F Float](x, y, w []F, s Shape) error {
	if err := check(s, lenCheck{"x", len(x), s.InputLen()}, lenCheck{"y", len(y), s.OutputLen()},
		lenCheck{"w", len(w), s.WeightLen()}); err != nil {
		return fmt.Errorf("mconv.AdjointInput: %w", err)
	}
	// The adjoint is a correlation of y with the flipped filters w[o,c] summed
	// over o: swap the channel roles and read the taps backwards.
	op := corrOp[F]{
		dst: x, src: y, w: w,
		n: s.N, nIn: s.Cout, nOut: s.Cin, h: s.H, wd: s.W, k: s.K,
		outStride: 1, inStride: s.Cin, flip: true,
	}
	op.run()
	return nil
}

// AdjointWeights computes the transpose of Forward with respect to its
// weights and bias:
//
//	gw[o,c,u,v] = Σ_n Σ_{i,j} y[n,o,i,j] · x[n,c,i+u−p,j+v−p],
//	gb[o]       = Σ_n Σ_{i,j} y[n,o,i,j]   (only when gb != nil),
//
// so that ⟨Forward(x; w, b), y⟩ = ⟨w, gw⟩ + ⟨b, gb⟩. gw and gb are
// overwritten. Lengths: len(gw) = Cout·Cin·K·K, len(gb) = Cout (or nil),
// len(x) = N·Cin·H·W, len(y) = N·Cout·H·W.
func AdjointWeights(gw, gb, x, y []float64, s Shape) error {
	return AdjointWeightsT(gw, gb, x, y, s)
}

// AdjointWeightsT is AdjointWeights in the precision F.
func AdjointWeightsT[F Float](gw, gb, x, y []F, s Shape) error {
	lens := []lenCheck{{"gw", len(gw), s.WeightLen()}, {"x", len(x), s.InputLen()}, {"y", len(y), s.OutputLen()}}
	if gb != nil {
		lens = append(lens, lenCheck{"gb", len(gb), s.Cout})
	}
	if err := check(s, lens...); err != nil {
		return fmt.Errorf("mconv.AdjointWeights: %w", err)
	}
	lanes := vecLanes[F]()
	groups := 0 // whole groups of lanes input channels done in vector registers
	if vectorRows && (s.K == 3 || s.K == 5) && s.Cin >= lanes {
		groups = s.Cin / lanes
	}
	tiles, stride := weightTiles[F](s), groups // stride: the groups xt interleaves
	if tiles > 0 {
		stride = (s.Cin + lanes - 1) / lanes // the last one padded with zero channels
	}
	var xt []F
	if stride > 0 {
		xt = interleave(x, s, stride, lanes)
	}
	tasks := weightTasks(gw, gb, x, xt, y, s, tiles, groups, stride)
	parallelFor(len(tasks), lanes*s.N*s.H*s.W*s.K*s.K, func(t int) { tasks[t]() })
	if xt != nil {
		putPad(xt)
	}
	return nil
}

// weightTasks lists AdjointWeights' tasks: the tiles of tileOutW outputs ×
// a group of input channels and the bias sums of their outputs; for the other
// outputs, the whole groups of lanes input channels and the single rest
// channels (with the bias in the task of channel 0). xt holds stride groups.
func weightTasks[F Float](gw, gb, x, xt, y []F, s Shape, tiles, groups, stride int) []func() {
	lanes := vecLanes[F]()
	var tasks []func()
	for t := range tiles {
		for g := range stride {
			tasks = append(tasks, func() { adjointWeightsTile(gw, xt, y, s, t, g, stride) })
		}
	}
	if gb != nil {
		for o := range tiles * tileOutW {
			tasks = append(tasks, func() { biasSum(gb, y, s, o) })
		}
	}
	for o := tiles * tileOutW; o < s.Cout; o++ {
		for g := range groups {
			tasks = append(tasks, func() { adjointWeightsGroup(gw, gb, x, xt, y, s, o, g, stride) })
		}
		for c := lanes * groups; c < s.Cin; c++ {
			tasks = append(tasks, func() { adjointWeightsPair(gw, gb, x, y, s, o, c) })
		}
	}
	return tasks
}

// adjointWeightsPair is AdjointWeights for the filter of output o and input
// c (and the bias of o when c = 0).
func adjointWeightsPair[F Float](gw, gb, x, y []F, s Shape, o, c int) {
	k, p, plane := s.K, s.K/2, s.H*s.W
	kk := k * k
	g := gw[(o*s.Cin+c)*kk : (o*s.Cin+c+1)*kk]
	clear(g)
	sumBias := gb != nil && c == 0
	var bsum F
	for n := 0; n < s.N; n++ {
		yp := y[(n*s.Cout+o)*plane : (n*s.Cout+o+1)*plane]
		xp := x[(n*s.Cin+c)*plane : (n*s.Cin+c+1)*plane]
		for i := 0; i < s.H; i++ {
			yrow := yp[i*s.W : (i+1)*s.W]
			if sumBias {
				for _, v := range yrow {
					bsum += v
				}
			}
			for u := 0; u < k; u++ {
				r := i + u - p
				if r < 0 || r >= s.H {
					continue
				}
				rowDot(g[u*k:(u+1)*k], yrow, xp[r*s.W:(r+1)*s.W])
			}
		}
	}
	if sumBias {
		gb[o] = bsum
	}
}

// interleave returns the rows of x with the input channels Lg … Lg+L−1
// interleaved (L = lanes): xt[(((n·groups + g)·H + r)·W + q)·L + l] =
// x[n, Lg+l, r, q], and 0 for the channels Lg+l ≥ Cin of a last group (in
// a buffer from padPools: putPad it when done).
func interleave[F Float](x []F, s Shape, groups, lanes int) []F {
	plane := s.H * s.W
	xt := getPad[F](s.N * groups * lanes * plane)
	parallelFor(s.N*groups, lanes*plane, func(t int) {
		n, g := t/groups, t%groups
		dst := xt[t*lanes*plane : (t+1)*lanes*plane]
		var src [8][]F // the group's planes, nil for the missing channels
		for l := range lanes {
			if c := lanes*g + l; c < s.Cin {
				src[l] = x[(n*s.Cin+c)*plane : (n*s.Cin+c+1)*plane]
			}
		}
		if lanes == 4 && src[3] != nil { // a whole group of float64: a row of dst at a time
			x0, x1, x2, x3 := src[0], src[1], src[2], src[3][:len(src[0])]
			for q := range x0 {
				d := dst[4*q : 4*q+4 : 4*q+4]
				d[0], d[1], d[2], d[3] = x0[q], x1[q], x2[q], x3[q]
			}
			return
		}
		if lanes == 8 && src[7] != nil { // a whole group of float32
			x0, x1, x2, x3 := src[0], src[1], src[2], src[3][:len(src[0])]
			x4, x5, x6, x7 := src[4][:len(x0)], src[5][:len(x0)], src[6][:len(x0)], src[7][:len(x0)]
			for q := range x0 {
				d := dst[8*q : 8*q+8 : 8*q+8]
				d[0], d[1], d[2], d[3] = x0[q], x1[q], x2[q], x3[q]
				d[4], d[5], d[6], d[7] = x4[q], x5[q], x6[q], x7[q]
			}
			return
		}
		for l := range lanes {
			if src[l] == nil {
				for q := range plane {
					dst[lanes*q+l] = 0
				}
				continue
			}
			for q, v := range src[l] {
				dst[lanes*q+l] = v
			}
		}
	})
	return xt
}

// adjointWeightsGroup is adjointWeightsPair for the L = lanes inputs
// Lg … Lg+L−1 of output o at once (xt interleaves groups groups): the interior sums of rowDot for the L
// channels are the lanes of rowDotVec (each the scalar sum in the order of
// j), added to the filters as rowDot adds them, then the border columns by
// borderDot: bitwise adjointWeightsPair's result.
func adjointWeightsGroup[F Float](gw, gb, x, xt, y []F, s Shape, o, g, groups int) {
	k, p, plane := s.K, s.K/2, s.H*s.W
	kk := k * k
	lanes := vecLanes[F]()
	var f [8][]F
	for l := 0; l < lanes; l++ {
		c := lanes*g + l
		f[l] = gw[(o*s.Cin+c)*kk : (o*s.Cin+c+1)*kk]
		clear(f[l])
	}
	sumBias := gb != nil && g == 0
	var bsum F
	var a [40]F
	lo, hi := interior(s.W, p)
	for n := 0; n < s.N; n++ {
		yp := y[(n*s.Cout+o)*plane : (n*s.Cout+o+1)*plane]
		xtp := xt[(n*groups+g)*lanes*plane : (n*groups+g+1)*lanes*plane]
		for i := 0; i < s.H; i++ {
			yrow := yp[i*s.W : (i+1)*s.W]
			if sumBias {
				for _, v := range yrow {
					bsum += v
				}
			}
			for u := 0; u < k; u++ {
				r := i + u - p
				if r < 0 || r >= s.H {
					continue
				}
				if hi > lo {
					rowDotVec(k, yrow[lo:hi], xtp[lanes*(r*s.W+lo-p):lanes*(r*s.W+hi-p+k-1)], &a)
					for l := 0; l < lanes; l++ {
						for v := 0; v < k; v++ {
							f[l][u*k+v] += a[v*lanes+l]
						}
					}
				}
				for l := 0; l < lanes; l++ {
					xrow := x[(n*s.Cin+lanes*g+l)*plane+r*s.W : (n*s.Cin+lanes*g+l)*plane+(r+1)*s.W]
					gu := f[l][u*k : (u+1)*k]
					for j := 0; j < lo; j++ {
						borderDot(gu, yrow[j], xrow, j, p)
					}
					for j := hi; j < s.W; j++ {
						borderDot(gu, yrow[j], xrow, j, p)
					}
				}
			}
		}
	}
	if sumBias {
		gb[o] = bsum
	}
}

// corrOp is one generalised multi-channel correlation
//
//	dst[n,a] = bias[a] + Σ_b F(a,b) ⋆ src[n,b],
//
// where the K×K filter F(a,b) starts at w[(a·outStride + b·inStride)·K·K]
// and is read backwards (a 180° rotation) when flip is set.
type corrOp[F Float] struct {
	dst, src, w, bias   []F
	n, nIn, nOut, h, wd int
	k                   int
	outStride, inStride int
	flip                bool
}

func (op *corrOp[F]) run() {
	if op.accRows() {
		op.runAcc(op.nOut)
		return
	}
	tiles, rows := op.tiles()
	if tiles > 0 {
		op.runTiles(tiles)
	}
	rest := op.nOut - tiles*tileOut
	if rest == 0 {
		return
	}
	if rows {
		op.runRows(tiles)
		return
	}
	parallelFor(op.n*rest, op.h*op.wd*op.nIn*op.k*op.k, func(t int) {
		op.plane(t/rest, tiles*tileOut+t%rest)
	})
}

// plane computes output plane a of image img row by row (rowCorr).
func (op *corrOp[F]) plane(img, a int) {
	plane, kk := op.h*op.wd, op.k*op.k
	p := op.k / 2
	t := img*op.nOut + a
	dp := op.dst[t*plane : (t+1)*plane]
	if op.bias != nil {
		for i := range dp {
			dp[i] = op.bias[a]
		}
	} else {
		clear(dp)
	}
	var tapBuf [16]F
	var taps []F
	if op.k <= len(tapBuf) {
		taps = tapBuf[:op.k]
	} else {
		taps = make([]F, op.k)
	}
	srcImg := op.src[img*op.nIn*plane : (img+1)*op.nIn*plane]
	for i := 0; i < op.h; i++ {
		yrow := dp[i*op.wd : (i+1)*op.wd]
		for b := 0; b < op.nIn; b++ {
			sp := srcImg[b*plane : (b+1)*plane]
			f := op.w[(a*op.outStride+b*op.inStride)*kk : (a*op.outStride+b*op.inStride+1)*kk]
			for u := 0; u < op.k; u++ {
				r := i + u - p
				if r < 0 || r >= op.h {
					continue
				}
				if op.flip {
					fr := f[(op.k-1-u)*op.k : (op.k-u)*op.k]
					for v := range taps {
						taps[v] = fr[op.k-1-v]
					}
				} else {
					copy(taps, f[u*op.k:(u+1)*op.k])
				}
				rowCorr(yrow, sp[r*op.wd:(r+1)*op.wd], taps)
			}
		}
	}
}

// interior returns the column range [lo, hi) of a row of width w in which all
// K = 2p+1 taps fall inside the row.
func interior(w, p int) (lo, hi int) {
	lo = min(p, w)
	hi = max(w-p, lo)
	return lo, hi
}

// rowCorr adds y[j] += Σ_v t[v]·x[j+v−p] for all j, with x = 0 outside.
func rowCorr[F Float](y, x, t []F) {
	k := len(t)
	p := k / 2
	w := len(y)
	x = x[:w]
	lo, hi := interior(w, p)
	switch {
	case hi <= lo:
	case k == 5:
		rowCorr5(y, x, t)
	case k == 3:
		rowCorr3(y, x, t)
	case k == 1:
		t0 := t[0]
		for j, xj := range x {
			y[j] += t0 * xj
		}
	default:
		for j := lo; j < hi; j++ {
			xs := x[j-p : j-p+k]
			var acc F
			for v, tv := range t {
				acc += tv * xs[v]
			}
			y[j] += acc
		}
	}
	// Border columns: only the taps that land inside the row.
	for j := 0; j < lo; j++ {
		y[j] += borderTap(x, t, j, p)
	}
	for j := hi; j < w; j++ {
		y[j] += borderTap(x, t, j, p)
	}
}

// borderTap is Σ_v t[v]·x[j+v−p] with x = 0 outside the row, the products
// summed in the order of v as in the interior (the first one not added to
// a zero): the tile kernels' zero-padded rows give the same bits.
func borderTap[F Float](x, t []F, j, p int) F {
	var acc F
	for v, tv := range t {
		var xv F
		if q := j + v - p; q >= 0 && q < len(x) {
			xv = x[q]
		}
		if v == 0 {
			acc = tv * xv
		} else {
			acc += tv * xv
		}
	}
	return acc
}

// rowCorr5 handles the interior columns [2, w−2) for K = 5 with a sliding
// window over x (after the whole vectors of rowCorrVec); it needs w ≥ 5.
func rowCorr5[F Float](y, x, t []F) {
	t0, t1, t2, t3, t4 := t[0], t[1], t[2], t[3], t[4]
	xs := x[4:]
	ys := y[2 : len(y)-2]
	ys = ys[:len(xs)]
	j0 := rowCorrVec(ys, x, t)
	x0, x1, x2, x3 := x[j0], x[j0+1], x[j0+2], x[j0+3]
	ys = ys[j0:]
	for j, x4 := range xs[j0:] {
		ys[j] += t0*x0 + t1*x1 + t2*x2 + t3*x3 + t4*x4
		x0, x1, x2, x3 = x1, x2, x3, x4
	}
}

// rowCorr3 handles the interior columns [1, w−1) for K = 3 (after the whole
// vectors of rowCorrVec); it needs w ≥ 3.
func rowCorr3[F Float](y, x, t []F) {
	t0, t1, t2 := t[0], t[1], t[2]
	xs := x[2:]
	ys := y[1 : len(y)-1]
	ys = ys[:len(xs)]
	j0 := rowCorrVec(ys, x, t)
	x0, x1 := x[j0], x[j0+1]
	ys = ys[j0:]
	for j, x2 := range xs[j0:] {
		ys[j] += t0*x0 + t1*x1 + t2*x2
		x0, x1 = x1, x2
	}
}

// rowDot adds g[v] += Σ_j y[j]·x[j+v−p] for v = 0..K−1 (K = len(g)), with
// x = 0 outside the row.
func rowDot[F Float](g, y, x []F) {
	k := len(g)
	p := k / 2
	w := len(y)
	x = x[:w]
	lo, hi := interior(w, p)
	switch {
	case hi <= lo:
	case k == 5:
		var a0, a1, a2, a3, a4 F
		x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
		xs := x[4:]
		ys := y[2 : w-2]
		ys = ys[:len(xs)]
		for j, x4 := range xs {
			yj := ys[j]
			a0 += yj * x0
			a1 += yj * x1
			a2 += yj * x2
			a3 += yj * x3
			a4 += yj * x4
			x0, x1, x2, x3 = x1, x2, x3, x4
		}
		g[0] += a0
		g[1] += a1
		g[2] += a2
		g[3] += a3
		g[4] += a4
	case k == 3:
		var a0, a1, a2 F
		x0, x1 := x[0], x[1]
		xs := x[2:]
		ys := y[1 : w-1]
		ys = ys[:len(xs)]
		for j, x2 := range xs {
			yj := ys[j]
			a0 += yj * x0
			a1 += yj * x1
			a2 += yj * x2
			x0, x1 = x1, x2
		}
		g[0] += a0
		g[1] += a1
		g[2] += a2
	default:
		for v := range g {
			xs := x[lo+v-p : hi+v-p]
			var acc F
			for j, yj := range y[lo:hi] {
				acc += yj * xs[j]
			}
			g[v] += acc
		}
	}
	for j := 0; j < lo; j++ {
		borderDot(g, y[j], x, j, p)
	}
	for j := hi; j < w; j++ {
		borderDot(g, y[j], x, j, p)
	}
}

func borderDot[F Float](g []F, yj F, x []F, j, p int) {
	for v := range g {
		if q := j + v - p; q >= 0 && q < len(x) {
			g[v] += yj * x[q]
		}
	}
}
