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
		for p := lo; p < hi; p++ {
			xs, zs := x[p*hw:(p+1)*hw], z[p*hw:(p+1)*hw]
			mu, inv := planeStats(xs)
			for i, v := range xs {
				zs[i] = (v - mu) * inv
			}
		}
	})
}

// planeStats returns the mean of x and 1/√(var + ε).
func planeStats(x []float64) (mu, inv float64) {
	var s float64
	for _, v := range x {
		s += v
	}
	mu = s / float64(len(x))
	var q float64
	for _, v := range x {
		d := v - mu
		q += d * d
	}
	return mu, 1 / math.Sqrt(q/float64(len(x))+NormEps)
}

// instanceNormBackward writes dx = J(x)ᵀu for the instance norm at x:
// dx = (u − mean(u) − z·mean(u·z))/√(σ² + ε) per plane.
func instanceNormBackward(dx, x, u []float64, planes, hw int) {
	n := float64(hw)
	planesFor(planes, hw, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			xs, us, ds := x[p*hw:(p+1)*hw], u[p*hw:(p+1)*hw], dx[p*hw:(p+1)*hw]
			mu, inv := planeStats(xs)
			var su, suz float64
			for i, v := range xs {
				su += us[i]
				suz += us[i] * (v - mu) * inv
			}
			mu1, muz := su/n, suz/n
			for i, v := range xs {
				ds[i] = inv * (us[i] - mu1 - (v-mu)*inv*muz)
			}
		}
	})
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
