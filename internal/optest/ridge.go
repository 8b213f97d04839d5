package optest

import (
	"errors"
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/gpu/gputest"
	"github.com/greedyl2o/greedyl2o/wcrr"
)

// CheckRidge tests the ridge potentials on device d
// (wcrr.NewDevicePotentials) on random responses of n images of c channels
// of hw values (values spread across the thresholds),
// to relative tolerance tol: Psi, PsiPrime (in place too) and HessVec
// against the float64 formulas, and PsiPrime against central differences of
// Psi. It returns every failure, joined.
func CheckRidge(d gpu.Ops, n, c, hw int, tol float64) error {
	ck := gputest.NewChecker(d, tol, 17, uint64(n*c*hw))
	defer ck.Free()
	h, t := make([]float64, c), make([]float64, c)
	for i := range h {
		h[i] = 0.1 + 0.2*ck.Rand().Float64()
		t[i] = h[i] * (2 + 3*ck.Rand().Float64())
	}
	const mu = 0.7
	r, err := wcrr.NewDevicePotentials(d, h, t, mu)
	if err != nil {
		return err
	}
	defer r.Close()
	size := n * c * hw
	z := make([]float64, size)
	for i := range z {
		z[i] = 2 * (2*ck.Rand().Float64() - 1) // |z| up to 2 > T_c ≤ 1.5
	}
	zb, err := ck.Upload(z)
	if err != nil {
		return err
	}
	if err := d.CopyOut(z, zb); err != nil { // as stored
		return err
	}
	u, ub, err := ck.Random(size)
	if err != nil {
		return err
	}
	psi, prime, hv := make([]float64, size), make([]float64, size), make([]float64, size)
	var fd []float64
	for i, v := range z {
		ch := (i / hw) % c
		psi[i] = (mu+1)*huber1(v, h[ch]) - huber1(v, t[ch])
		prime[i] = (mu+1)*clip(v, h[ch]) - clip(v, t[ch])
		a, second := math.Abs(v), 0.0
		switch {
		case a < h[ch]:
			second = mu
		case a < t[ch]:
			second = -1
		}
		hv[i] = second * u[i]
		const e = 1e-6
		fd = append(fd, ((mu+1)*huber1(v+e, h[ch])-huber1(v+e, t[ch])-(mu+1)*huber1(v-e, h[ch])+huber1(v-e, t[ch]))/(2*e))
	}
	out, err := ck.Zeros(size)
	if err != nil {
		return err
	}
	var errs []error
	check := func(what string, run func() error, want []float64) {
		if err := run(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
			return
		}
		got, err := ck.Read(out)
		if err != nil {
			errs = append(errs, err)
			return
		}
		errs = append(errs, ck.CloseVec(what, got, want))
	}
	check("ridge psi", func() error { return r.Psi(out, zb, hw) }, psi)
	check("ridge psi'", func() error { return r.PsiPrime(out, zb, hw) }, prime)
	check("ridge hessvec", func() error { return r.HessVec(out, zb, ub, hw) }, hv)
	fdc := gputest.NewChecker(nil, 1e-6, 0, 0)
	errs = append(errs, fdc.CloseVec("ridge psi' formula against central differences of psi", prime, fd))
	check("ridge psi' in place", func() error {
		if err := d.Copy(out, zb); err != nil {
			return err
		}
		return r.PsiPrime(out, out, hw)
	}, prime)
	if err := r.Psi(out, zb, hw+1); err == nil && size%(c*(hw+1)) != 0 {
		errs = append(errs, fmt.Errorf("ridge psi with a wrong plane size: accepted"))
	}
	return errors.Join(errs...)
}

// huber1 and clip are the one-value formulas of the ridge potentials, as
// package gpu's host devices compute them.
func huber1(z, a float64) float64 {
	if az := math.Abs(z); az > a {
		return a*az - a*a/2
	}
	return z * z / 2
}

func clip(z, a float64) float64 { return max(-a, min(a, z)) }
