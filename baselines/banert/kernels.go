package banert

import (
	"math"
	"math/bits"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// Plain-Go kernels of the network layers and of the safeguarded update. A
// "plane" is one H×W channel of one image; arrays are [N][C][H·W] row-major.
// The layers' kernels split their planes (or elements) over goroutines from
// kernels.LargeLen values on; every value is computed as on one goroutine.
// blockStats, normLayer and normLayerBackward start their loops in the AVX2
// kernels of kernels/vec where the CPU has them (norm_amd64.go), bitwise
// the Go loops, which do the rest.

// planesFor calls body(lo, hi) on ranges covering the planes [0, planes) of
// hw values each: split over goroutines from kernels.LargeLen values on.
func planesFor(planes, hw int, body func(lo, hi int)) {
	if planes*hw < kernels.LargeLen {
		body(0, planes)
		return
	}
	kernels.ParallelFor(planes, body)
}

// instanceNorm writes z = (x − μ)/√(σ² + ε) for every plane of x, where μ and
// σ² are the plane's mean and (biased) variance.
func instanceNorm(z, x []float64, planes, hw int) {
	planesFor(planes, hw, func(lo, hi int) {
		for p := lo; p < hi; p += 4 {
			k := min(4, hi-p)
			mu, inv := blockStats(x, p, k, hw, [4]float64{})
			for j := range k {
				xs, zs := x[(p+j)*hw:(p+j+1)*hw], z[(p+j)*hw:(p+j+1)*hw]
				for i, v := range xs {
					zs[i] = (v - mu[j]) * inv[j]
				}
			}
		}
	})
}

// block returns planes p … p+3 of x (hw values each), the last of the k ≤ 4
// planes repeated in place of those past it.
func block(x []float64, p, k, hw int) (a, b, c, d []float64) {
	pl := func(j int) []float64 { q := p + min(j, k-1); return x[q*hw : (q+1)*hw] }
	return pl(0), pl(1)[:hw], pl(2)[:hw], pl(3)[:hw]
}

// blockStats is planeStats of the planes p … p+k−1 of x + bias (k ≤ 4,
// bias[j] added to every value of plane p+j, as addChannelBias does) with
// their sums in one loop: four independent chains in flight together (a sum
// in order is bound by the latency of an addition), each in the order of i,
// so bitwise planeStats; a block of four starts them in the vector kernels
// (planeSums4). A zero bias leaves the statistics bitwise those of x:
// v + 0 differs from v only for v = −0, and neither the sums (which start
// at +0) nor the squares see the sign of a zero.
func blockStats(x []float64, p, k, hw int, bias [4]float64) (mu, inv [4]float64) {
	a, b, c, d := block(x, p, k, hw)
	o0, o1, o2, o3 := bias[0], bias[1], bias[2], bias[3]
	par := [2][4]float64{bias}
	var s [4]float64
	i0 := 0
	if k == 4 {
		i0 = planeSums4(&s, x[p*hw:], hw, &par, false)
	}
	s0, s1, s2, s3 := s[0], s[1], s[2], s[3]
	for i := i0; i < hw; i++ {
		s0 += a[i] + o0
		s1 += b[i] + o1
		s2 += c[i] + o2
		s3 += d[i] + o3
	}
	n := float64(hw)
	m0, m1, m2, m3 := s0/n, s1/n, s2/n, s3/n
	par[1] = [4]float64{m0, m1, m2, m3}
	var q [4]float64
	if k == 4 {
		i0 = planeSums4(&q, x[p*hw:], hw, &par, true)
	}
	q0, q1, q2, q3 := q[0], q[1], q[2], q[3]
	for i := i0; i < hw; i++ {
		d0, d1, d2, d3 := (a[i]+o0)-m0, (b[i]+o1)-m1, (c[i]+o2)-m2, (d[i]+o3)-m3
		q0 += d0 * d0
		q1 += d1 * d1
		q2 += d2 * d2
		q3 += d3 * d3
	}
	for j, q := range [4]float64{q0, q1, q2, q3} {
		inv[j] = 1 / math.Sqrt(q/n+NormEps)
	}
	return par[1], inv
}

// blockBias returns the biases b[c] of the channels of planes p … p+k−1
// (c channels, k ≤ 4), the last repeated past k as block does.
func blockBias(b []float64, p, k, c int) (o [4]float64) {
	for j := range o {
		o[j] = b[(p+min(j, k-1))%c]
	}
	return o
}

// lanes returns v in every lane of a vector.
func lanes(v float64) [4]float64 { return [4]float64{v, v, v, v} }

// normLayer writes y = leaky(γ_c·norm(x + b_c) + β_c) for the planes of x
// ([n][c][hw]): addChannelBias, instanceNorm, channelAffine and leakyReLU
// in one pass over x after the statistics, every value by the chain's
// operations in their order (so bitwise the chain), with nothing but y
// written.
func normLayer(y, x, b, gamma, beta []float64, n, c, hw int) {
	planesFor(n*c, hw, func(lo, hi int) {
		for p := lo; p < hi; p += 4 {
			k := min(4, hi-p)
			mu, inv := blockStats(x, p, k, hw, blockBias(b, p, k, c))
			for j := range k {
				ch := (p + j) % c
				o, m, iv, g, be := b[ch], mu[j], inv[j], gamma[ch], beta[ch]
				xs, ys := x[(p+j)*hw:(p+j+1)*hw], y[(p+j)*hw:(p+j+1)*hw]
				par := [8][4]float64{lanes(o), lanes(m), lanes(iv), lanes(g), lanes(be), lanes(1), lanes(LeakySlope)}
				for i := normLayerRow(ys, xs, &par); i < hw; i++ {
					z := g*(((xs[i]+o)-m)*iv) + be
					ys[i] = leakyFactor(z) * z
				}
			}
		}
	})
}

// normLayerBackward writes dx = J(x)ᵀu for normLayer at x, and sums[0:c],
// sums[c:2c], sums[2c:3c] = the gradients in γ, β and b: the backward
// operations of the chain (leakyReLUBackward, channelScale's adjoints,
// broadcast's adjoint, instanceNormBackward, and channelSums for the bias),
// every value and every sum by their operations in their order, so bitwise
// the chain's. The forward values are recomputed from x, never stored.
func normLayerBackward(dx, sums, x, u, b, gamma, beta []float64, n, c, hw int) {
	planes := n * c
	t := make([]float64, 3*planes) // per plane: Σ d·z, Σ d, Σ dx
	planesFor(planes, hw, func(lo, hi int) {
		for p := lo; p < hi; p += 4 {
			k := min(4, hi-p)
			mu, inv := blockStats(x, p, k, hw, blockBias(b, p, k, c))
			var par [4]layerParams
			for j := range k {
				ch := (p + j) % c
				par[j] = layerParams{o: b[ch], m: mu[j], iv: inv[j], g: gamma[ch], be: beta[ch]}
			}
			gradSums(&par, x, u, p, k, hw)
			gradValues(&par, dx, x, u, p, k, hw)
			for j := range k {
				q := p + j
				t[q], t[planes+q], t[2*planes+q] = par[j].tg, par[j].tb, par[j].td
			}
		}
	})
	for k := range 3 {
		for ch := range c {
			s := 0.0
			for i := range n {
				s += t[k*planes+i*c+ch]
			}
			sums[k*c+ch] = s
		}
	}
}

// layerParams are one plane's parameters and sums in normLayerBackward.
type layerParams struct {
	o, m, iv, g, be float64 // bias, mean, 1/√(σ²+ε), scale, offset
	tg, tb, su, suz float64 // Σ d·z₂, Σ d, Σ e, Σ e·(z₁ − μ)·inv
	mu1, muz, td    float64 // su/hw, suz/hw, Σ dx
}

// gradSums sets the sums tg, tb, su, suz and mu1, muz of the planes p …
// p+k−1 (normLayerBackward's first loop; four planes start in the vector
// kernel).
func gradSums(par *[4]layerParams, x, u []float64, p, k, hw int) {
	i0 := 0
	if k == 4 {
		var vp [16][4]float64
		for j, q := range par {
			vp[0][j], vp[1][j], vp[2][j], vp[3][j], vp[4][j] = q.o, q.m, q.iv, q.g, q.be
		}
		vp[5], vp[6] = lanes(1), lanes(LeakySlope)
		var s [4][4]float64
		i0 = normLayerGradSums4(&s, x[p*hw:], u[p*hw:], hw, &vp)
		for j := range par {
			par[j].tg, par[j].tb, par[j].su, par[j].suz = s[0][j], s[1][j], s[2][j], s[3][j]
		}
	}
	nf := float64(hw)
	for j := range k {
		q := &par[j]
		o, m, iv, g, be := q.o, q.m, q.iv, q.g, q.be
		xs, us := x[(p+j)*hw:(p+j+1)*hw], u[(p+j)*hw:(p+j+1)*hw]
		tg, tb, su, suz := q.tg, q.tb, q.su, q.suz
		for i := i0; i < hw; i++ {
			z1 := xs[i] + o
			z2 := (z1 - m) * iv
			z3 := g*z2 + be
			d3 := leakyFactor(z3) * us[i]
			tg += d3 * z2
			tb += d3
			dz := g*d3 + affineZero
			su += dz
			suz += dz * (z1 - m) * iv
		}
		q.tg, q.tb, q.su, q.suz = tg, tb, su, suz
		q.mu1, q.muz = su/nf, suz/nf
	}
}

// gradValues writes dx on the planes p … p+k−1 and sets their sums td
// (normLayerBackward's second loop; four planes start in the vector kernel).
func gradValues(par *[4]layerParams, dx, x, u []float64, p, k, hw int) {
	i0 := 0
	if k == 4 {
		var vp [31][4]float64
		for j, q := range par {
			for r, v := range [7]float64{q.o, q.m, q.iv, q.g, q.be, q.mu1, q.muz} {
				vp[7*j+r] = lanes(v)
			}
		}
		vp[28], vp[29] = lanes(1), lanes(LeakySlope)
		var s [4]float64
		i0 = normLayerGrad4(&s, dx[p*hw:], x[p*hw:], u[p*hw:], hw, &vp)
		for j := range par {
			par[j].td = s[j]
		}
	}
	for j := range k {
		q := &par[j]
		o, m, iv, g, be, mu1, muz := q.o, q.m, q.iv, q.g, q.be, q.mu1, q.muz
		xs, us, ds := x[(p+j)*hw:(p+j+1)*hw], u[(p+j)*hw:(p+j+1)*hw], dx[(p+j)*hw:(p+j+1)*hw]
		td := q.td
		for i := i0; i < hw; i++ {
			z1 := xs[i] + o
			z3 := g*((z1-m)*iv) + be
			dz := g*(leakyFactor(z3)*us[i]) + affineZero
			d := iv * (dz - mu1 - (z1-m)*iv*muz)
			ds[i] = d
			td += d
		}
		q.td = td
	}
}

// affineZero is the offset channelAffine adds when it has none (channelScale's
// adjoint in z): γ·d + 0, which turns a −0 into +0.
var affineZero = 0.0

// instanceNormBackward writes dx = J(x)ᵀu for the instance norm at x:
// dx = (u − mean(u) − z·mean(u·z))/√(σ² + ε) per plane.
func instanceNormBackward(dx, x, u []float64, planes, hw int) {
	n := float64(hw)
	planesFor(planes, hw, func(lo, hi int) {
		for p := lo; p < hi; p += 4 {
			k := min(4, hi-p)
			mu, inv := blockStats(x, p, k, hw, [4]float64{})
			su, suz := backwardSums(x, u, p, k, hw, mu, inv)
			for j := range k {
				q := p + j
				xs, us, ds := x[q*hw:(q+1)*hw], u[q*hw:(q+1)*hw], dx[q*hw:(q+1)*hw]
				m, iv, mu1, muz := mu[j], inv[j], su[j]/n, suz[j]/n
				for i, v := range xs {
					ds[i] = iv * (us[i] - mu1 - (v-m)*iv*muz)
				}
			}
		}
	})
}

// backwardSums returns, for the planes p … p+k−1 (k ≤ 4) of x and u,
// su = Σ u and suz = Σ u·(x − μ)·inv, each in the order of i, the eight
// sums in one loop (as in blockStats).
func backwardSums(x, u []float64, p, k, hw int, mu, inv [4]float64) (su, suz [4]float64) {
	xa, xb, xc, xd := block(x, p, k, hw)
	ua, ub, uc, ud := block(u, p, k, hw)
	var s0, s1, s2, s3, z0, z1, z2, z3 float64
	for i, v := range xa {
		s0 += ua[i]
		z0 += ua[i] * (v - mu[0]) * inv[0]
		s1 += ub[i]
		z1 += ub[i] * (xb[i] - mu[1]) * inv[1]
		s2 += uc[i]
		z2 += uc[i] * (xc[i] - mu[2]) * inv[2]
		s3 += ud[i]
		z3 += ud[i] * (xd[i] - mu[3]) * inv[3]
	}
	return [4]float64{s0, s1, s2, s3}, [4]float64{z0, z1, z2, z3}
}

// channelAffine writes y = scale[c]·z + offset[c] for every plane (offset may be nil).
func channelAffine(y, z, scale, offset []float64, n, c, hw int) {
	planesFor(n*c, hw, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			ch := p % c
			s, o := scale[ch], 0.0
			if offset != nil {
				o = offset[ch]
			}
			zs, ys := z[p*hw:(p+1)*hw], y[p*hw:(p+1)*hw]
			for j, v := range zs {
				ys[j] = s*v + o
			}
		}
	})
}

// addChannelBias writes y = x + b[c] for every plane.
func addChannelBias(y, x, b []float64, n, c, hw int) {
	planesFor(n*c, hw, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			o := b[p%c]
			xs, ys := x[p*hw:(p+1)*hw], y[p*hw:(p+1)*hw]
			for j, v := range xs {
				ys[j] = v + o
			}
		}
	})
}

// channelSums writes s[c] = Σ_{n,pixels} u[n,c,·] (each image's sum added
// in the order of n).
func channelSums(s, u []float64, n, c, hw int) {
	planesFor(c, n*hw, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			s[ch] = 0
			for i := 0; i < n; i++ {
				var t float64
				for _, v := range u[(i*c+ch)*hw : (i*c+ch+1)*hw] {
					t += v
				}
				s[ch] += t
			}
		}
	})
}

// channelDots writes s[c] = Σ_{n,pixels} u[n,c,·]·z[n,c,·] (each image's
// sum added in the order of n).
func channelDots(s, u, z []float64, n, c, hw int) {
	planesFor(c, n*hw, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			s[ch] = 0
			for i := 0; i < n; i++ {
				p := (i*c + ch) * hw
				var t float64
				zs := z[p : p+hw]
				for j, v := range u[p : p+hw] {
					t += v * zs[j]
				}
				s[ch] += t
			}
		}
	})
}

// leakyReLU writes y = x for x > 0 and slope·x otherwise.
func leakyReLU(y, x []float64) {
	planesFor(len(x), 1, func(lo, hi int) {
		ys := y[lo:hi]
		for i, v := range x[lo:hi] {
			ys[i] = leakyFactor(v) * v
		}
	})
}

// leakyFactor is 1 for x > 0 and LeakySlope otherwise (−0 and NaN
// included), chosen without a branch: the signs of activations are random,
// and a mispredicted branch costs more than the rest of the loop. x > 0
// exactly when its bits b satisfy 0 < b ≤ the bits of +Inf, that is
// b − 1 < the bits of +Inf unsigned: the borrow of that subtraction. And
// 1·x = x exactly.
func leakyFactor(x float64) float64 {
	_, pos := bits.Sub64(math.Float64bits(x)-1, math.Float64bits(math.Inf(1)), 0)
	return leakyFactors[pos&1]
}

var leakyFactors = [2]float64{LeakySlope, 1}

// leakyReLUBackward writes dx = u for x > 0 and slope·u otherwise.
func leakyReLUBackward(dx, x, u []float64) {
	planesFor(len(x), 1, func(lo, hi int) {
		ds, us := dx[lo:hi], u[lo:hi]
		for i, v := range x[lo:hi] {
			ds[i] = leakyFactor(v) * us[i]
		}
	})
}

// safeguard writes Δ_k = α·h_k·‖g_k‖/√(1 + ‖h_k‖²) for each of the n images
// of hw pixels. deltaNorm and gradNorm (length n, may be nil) receive ‖Δ_k‖
// and ‖g_k‖.
func safeguard(delta, h, g []float64, n, hw int, deltaNorm, gradNorm []float64) {
	for k := 0; k < n; k++ {
		hs, gs, ds := h[k*hw:(k+1)*hw], g[k*hw:(k+1)*hw], delta[k*hw:(k+1)*hw]
		r := math.Sqrt(kernels.Dot(gs, gs))
		q := kernels.Dot(hs, hs)
		c := SafeguardAlpha * r / math.Sqrt(1+q)
		for i, v := range hs {
			ds[i] = c * v
		}
		if deltaNorm != nil {
			deltaNorm[k] = c * math.Sqrt(q)
		}
		if gradNorm != nil {
			gradNorm[k] = r
		}
	}
}

// safeguardBackwardH writes dh = (∂Δ/∂h)ᵀu = α‖g‖(u/s − h⟨h,u⟩/s³), s = √(1+‖h‖²).
func safeguardBackwardH(dh, h, g, u []float64, n, hw int) {
	for k := 0; k < n; k++ {
		hs, gs, us, ds := h[k*hw:(k+1)*hw], g[k*hw:(k+1)*hw], u[k*hw:(k+1)*hw], dh[k*hw:(k+1)*hw]
		r := math.Sqrt(kernels.Dot(gs, gs))
		s := math.Sqrt(1 + kernels.Dot(hs, hs))
		a := SafeguardAlpha * r / s
		b := SafeguardAlpha * r * kernels.Dot(hs, us) / (s * s * s)
		for i, v := range us {
			ds[i] = a*v - b*hs[i]
		}
	}
}

// safeguardBackwardG writes dg = (∂Δ/∂g)ᵀu = α·g·⟨h,u⟩/(‖g‖s), and 0 where g = 0.
func safeguardBackwardG(dg, h, g, u []float64, n, hw int) {
	for k := 0; k < n; k++ {
		hs, gs, us, ds := h[k*hw:(k+1)*hw], g[k*hw:(k+1)*hw], u[k*hw:(k+1)*hw], dg[k*hw:(k+1)*hw]
		r := math.Sqrt(kernels.Dot(gs, gs))
		if r == 0 {
			clear(ds)
			continue
		}
		s := math.Sqrt(1 + kernels.Dot(hs, hs))
		c := SafeguardAlpha * kernels.Dot(hs, us) / (r * s)
		for i, v := range gs {
			ds[i] = c * v
		}
	}
}

// stackChannels writes dst[n,c,·] = src[c][n,·] for len(src) channels.
func stackChannels(dst []float64, src [][]float64, n, hw int) {
	c := len(src)
	for k := 0; k < n; k++ {
		for ch, s := range src {
			copy(dst[(k*c+ch)*hw:(k*c+ch+1)*hw], s[k*hw:(k+1)*hw])
		}
	}
}
