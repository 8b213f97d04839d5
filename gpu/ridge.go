package gpu

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// RidgeOps are implemented by devices that evaluate the channel potentials
// of the weakly convex ridge regularizer (package wcrr, Problem 3) on their
// buffers,
//
//	ψ_c(z) = (μ+1)·Huber(z; h_c) − Huber(z; T_c),
//
// channel-wise on responses [n][C][hw]. Both host devices and the CUDA
// device implement it.
type RidgeOps interface {
	// NewRidge returns the potentials with thresholds h and t (one per
	// channel, h_c < T_c) and slope mu on the device; Close releases them.
	NewRidge(h, t []float64, mu float64) (Ridge, error)
}

// Ridge are channel potentials on a device, for responses of hw values per
// channel.
type Ridge interface {
	// Psi writes out = ψ_c(z) elementwise.
	Psi(out, z Buffer, hw int) error
	// PsiPrime writes out = ψ_c'(z) = (μ+1)·clip(z, ±h_c) − clip(z, ±T_c)
	// (out may be z).
	PsiPrime(out, z Buffer, hw int) error
	// HessVec writes out = ψ_c”(z)·u elementwise, ψ_c” ∈ {μ, −1, 0} (out
	// may be u).
	HessVec(out, z, u Buffer, hw int) error
	// Close releases the device memory.
	Close()
}

var (
	_ RidgeOps = CPU()
	_ RidgeOps = Host32()
)

// CheckRidgeParams checks the thresholds of RidgeOps.NewRidge.
func CheckRidgeParams(h, t []float64, mu float64) error {
	if len(h) == 0 || len(h) != len(t) {
		return fmt.Errorf("gpu: ridge: %d inner and %d outer thresholds: want one of each per channel", len(h), len(t))
	}
	for c := range h {
		if !(h[c] > 0) || !(t[c] > h[c]) || math.IsInf(t[c], 0) {
			return fmt.Errorf("gpu: ridge: channel %d: thresholds h = %g, T = %g must satisfy 0 < h < T < ∞", c, h[c], t[c])
		}
	}
	if !(mu >= 0) || math.IsInf(mu, 0) {
		return fmt.Errorf("gpu: ridge: slope μ = %g must be finite and ≥ 0", mu)
	}
	return nil
}

// hostRidge is the potentials of a host device.
type hostRidge[F kernels.Float] struct {
	d    *hostOps[F]
	h, t []float64
	mu   float64
}

// NewRidge implements RidgeOps.
func (d *hostOps[F]) NewRidge(h, t []float64, mu float64) (Ridge, error) {
	if err := CheckRidgeParams(h, t, mu); err != nil {
		return nil, err
	}
	return &hostRidge[F]{d: d, h: append([]float64(nil), h...), t: append([]float64(nil), t...), mu: mu}, nil
}

// operands returns the values of the buffers (equal lengths, a whole
// number of [C][hw] images).
func (r *hostRidge[F]) operands(op string, hw int, bufs ...Buffer) ([][]F, error) {
	c := len(r.h)
	vals := make([][]F, len(bufs))
	for k, b := range bufs {
		v, err := r.d.values(b, -1, op, fmt.Sprintf("operand %d", k+1))
		if err != nil {
			return nil, err
		}
		if k > 0 && len(v) != len(vals[0]) {
			return nil, fmt.Errorf("gpu: %s %s: operands of %d and %d values", r.d.name, op, len(vals[0]), len(v))
		}
		vals[k] = v
	}
	if n := len(vals[0]); hw < 1 || n%(c*hw) != 0 {
		return nil, fmt.Errorf("gpu: %s %s: %d values are not a whole number of [%d channels × %d values] images", r.d.name, op, n, c, hw)
	}
	return vals, nil
}

// channels calls f for every plane of hw values with its channel's
// thresholds and the plane's range [lo, hi).
func (r *hostRidge[F]) channels(n, hw int, f func(lo, hi int, h, t float64)) {
	c := len(r.h)
	for off := 0; off < n; off += hw {
		ch := (off / hw) % c
		f(off, off+hw, r.h[ch], r.t[ch])
	}
}

func huber1(z, a float64) float64 {
	if az := math.Abs(z); az > a {
		return a*az - a*a/2
	}
	return z * z / 2
}

func clip(z, a float64) float64 { return max(-a, min(a, z)) }

// Psi implements Ridge.
func (r *hostRidge[F]) Psi(out, z Buffer, hw int) error {
	v, err := r.operands("ridge psi", hw, out, z)
	if err != nil {
		return err
	}
	o, zv := v[0], v[1]
	r.channels(len(zv), hw, func(lo, hi int, h, t float64) {
		for i := lo; i < hi; i++ {
			x := float64(zv[i])
			o[i] = F((r.mu+1)*huber1(x, h) - huber1(x, t))
		}
	})
	return nil
}

// PsiPrime implements Ridge.
func (r *hostRidge[F]) PsiPrime(out, z Buffer, hw int) error {
	v, err := r.operands("ridge psi'", hw, out, z)
	if err != nil {
		return err
	}
	o, zv := v[0], v[1]
	r.channels(len(zv), hw, func(lo, hi int, h, t float64) {
		for i := lo; i < hi; i++ {
			x := float64(zv[i])
			o[i] = F((r.mu+1)*clip(x, h) - clip(x, t))
		}
	})
	return nil
}

// HessVec implements Ridge.
func (r *hostRidge[F]) HessVec(out, z, u Buffer, hw int) error {
	v, err := r.operands("ridge hessvec", hw, out, z, u)
	if err != nil {
		return err
	}
	o, zv, uv := v[0], v[1], v[2]
	r.channels(len(zv), hw, func(lo, hi int, h, t float64) {
		for i := lo; i < hi; i++ {
			a := math.Abs(float64(zv[i]))
			second := 0.0
			switch {
			case a < h:
				second = r.mu
			case a < t:
				second = -1
			}
			o[i] = F(second) * uv[i]
		}
	})
	return nil
}

// Close implements Ridge: host potentials hold only host memory.
func (r *hostRidge[F]) Close() {}
