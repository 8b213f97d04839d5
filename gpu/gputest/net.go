package gputest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/greedyl2o/greedyl2o/gpu"
)

// NetShape is the shape of the activations CheckNetOps works on: N images
// of C channels (planes) of H×W values.
type NetShape struct{ N, C, H, W int }

// Len is the number of values, N·C·H·W.
func (s NetShape) Len() int { return s.N * s.C * s.H * s.W }

// CheckNetOps tests a gpu.NetOps implementation on random activations of
// shape s, to relative tolerance tol (1e-12 for float64 devices, 1e-5 for
// float32): PlaneDots, PlaneCombine (with and without z and constants, in
// place), PlaneDotsAdd, PlaneNormalize (also in place), PlaneSafeguard and its backward, LeakyMask and CopyPlanes against host arithmetic, and the
// refusals of bad arguments. It returns every failure, joined, or nil. (The
// network's convolutions are package mconv's: internal/optest.CheckConv.)
func CheckNetOps(d gpu.NetOps, s NetShape, tol float64) error {
	if s.N < 1 || s.C < 1 || s.H < 1 || s.W < 1 {
		return fmt.Errorf("gputest: check net ops: shape %+v: every size must be positive", s)
	}
	c := &opsCheck{d: d, tol: tol, rng: rand.New(rand.NewPCG(11, uint64(s.Len())))}
	defer c.free()
	n := &netCheck{opsCheck: c, d: d, s: s}
	for _, f := range []func() error{n.planes, n.normalize, n.safeguard, n.leaky, n.copies, n.refusals} {
		if err := f(); err != nil {
			c.errs = append(c.errs, err)
		}
	}
	return errors.Join(c.errs...)
}

type netCheck struct {
	*opsCheck
	d gpu.NetOps
	s NetShape
}

// planes checks PlaneDots and PlaneCombine on the input's N·Cin planes.
func (c *netCheck) planes() error {
	s := c.s
	planes, hw := s.N*s.C, s.H*s.W
	x, xb, err := c.random(planes * hw)
	if err != nil {
		return err
	}
	z, zb, err := c.random(planes * hw)
	if err != nil {
		return err
	}
	coef := func() []float64 {
		v := make([]float64, planes)
		for i := range v {
			v[i] = 2*c.rng.Float64() - 1
		}
		return v
	}
	a, b, k := coef(), coef(), coef()
	var errs []error
	dots, sums := make([]float64, planes), make([]float64, planes)
	if err := c.d.PlaneDots(dots, xb, zb, hw); err != nil {
		return fmt.Errorf("plane dots: %w", err)
	}
	if err := c.d.PlaneDots(sums, xb, nil, hw); err != nil {
		return fmt.Errorf("plane sums: %w", err)
	}
	wantDots, wantSums := make([]float64, planes), make([]float64, planes)
	for p := 0; p < planes; p++ {
		wantDots[p] = dot(x[p*hw:(p+1)*hw], z[p*hw:(p+1)*hw])
		for _, v := range x[p*hw : (p+1)*hw] {
			wantSums[p] += v
		}
	}
	errs = append(errs, c.closeVec("plane dots", dots, wantDots), c.closeVec("plane sums", sums, wantSums))
	squares, wantSquares := make([]float64, planes), make([]float64, planes)
	if err := c.d.PlaneDots(squares, xb, xb, hw); err != nil {
		return fmt.Errorf("plane dots of x with itself: %w", err)
	}
	for p := range wantSquares {
		wantSquares[p] = dot(x[p*hw:(p+1)*hw], x[p*hw:(p+1)*hw])
	}
	errs = append(errs, c.closeVec("plane dots of x with itself", squares, wantSquares))
	// PlaneDotsAdd twice onto a start: start + dots + sums.
	start, acc, err := c.random(planes)
	if err != nil {
		return err
	}
	if err := c.d.PlaneDotsAdd(acc, xb, zb, planes, hw); err != nil {
		return fmt.Errorf("plane dots add: %w", err)
	}
	if err := c.d.PlaneDotsAdd(acc, xb, nil, planes, hw); err != nil {
		return fmt.Errorf("plane sums add: %w", err)
	}
	gotAcc, err := c.read(acc)
	if err != nil {
		return err
	}
	for p := range start {
		start[p] += wantDots[p] + wantSums[p]
	}
	errs = append(errs, c.closeVec("plane dots add and plane sums add", gotAcc, start))

	want := make([]float64, planes*hw)
	for p := 0; p < planes; p++ {
		for i := p * hw; i < (p+1)*hw; i++ {
			want[i] = a[p]*x[i] + b[p]*z[i] + k[p]
		}
	}
	out, err := c.zeros(planes * hw)
	if err != nil {
		return err
	}
	if err := c.d.PlaneCombine(out, a, xb, b, zb, k, hw); err != nil {
		return fmt.Errorf("plane combine: %w", err)
	}
	got, err := c.read(out)
	if err != nil {
		return err
	}
	errs = append(errs, c.closeVec("plane combine a·x + b·z + c", got, want))
	// In place on x with z: a copy of x ← a·x + b·z + c.
	xc, err := c.zeros(planes * hw)
	if err != nil {
		return err
	}
	if err := c.d.Copy(xc, xb); err != nil {
		return err
	}
	if err := c.d.PlaneCombine(xc, a, xc, b, zb, k, hw); err != nil {
		return fmt.Errorf("plane combine in place on x: %w", err)
	}
	if got, err = c.read(xc); err != nil {
		return err
	}
	errs = append(errs, c.closeVec("plane combine in place (y = x, with z)", got, want))
	// In place on z, without constants: z ← a·x + b·z.
	for p := 0; p < planes; p++ {
		for i := p * hw; i < (p+1)*hw; i++ {
			want[i] = a[p]*x[i] + b[p]*z[i]
		}
	}
	if err := c.d.PlaneCombine(zb, a, xb, b, zb, nil, hw); err != nil {
		return fmt.Errorf("plane combine in place: %w", err)
	}
	if got, err = c.read(zb); err != nil {
		return err
	}
	errs = append(errs, c.closeVec("plane combine in place (y = z)", got, want))
	// In place on x, without z: x ← a·x + c.
	for p := 0; p < planes; p++ {
		for i := p * hw; i < (p+1)*hw; i++ {
			want[i] = a[p]*x[i] + k[p]
		}
	}
	if err := c.d.PlaneCombine(xb, a, xb, nil, nil, k, hw); err != nil {
		return fmt.Errorf("plane combine without z: %w", err)
	}
	if got, err = c.read(xb); err != nil {
		return err
	}
	errs = append(errs, c.closeVec("plane combine a·x + c in place", got, want))
	return errors.Join(errs...)
}

// normalize checks PlaneNormalize, out of place and in place, and
// PlaneNormalizeBackward against the instance norm in float64: z = (x −
// μ)·s, s = 1/√(σ² + ε), and s·(u − mean(u) − z·mean(u·z)) per plane.
func (c *netCheck) normalize() error {
	const eps = 1e-5
	s := c.s
	planes, hw := s.N*s.C, s.H*s.W
	x, xb, err := c.random(planes * hw)
	if err != nil {
		return err
	}
	u, ub, err := c.random(planes * hw)
	if err != nil {
		return err
	}
	wantZ, wantS, wantU := make([]float64, planes*hw), make([]float64, planes), make([]float64, planes*hw)
	for p := 0; p < planes; p++ {
		xs, zs, us := x[p*hw:(p+1)*hw], wantZ[p*hw:(p+1)*hw], u[p*hw:(p+1)*hw]
		var mu, v, su, suz float64
		for _, xi := range xs {
			mu += xi / float64(hw)
		}
		for _, xi := range xs {
			v += (xi - mu) * (xi - mu) / float64(hw)
		}
		wantS[p] = 1 / math.Sqrt(v+eps)
		for i, xi := range xs {
			zs[i] = (xi - mu) * wantS[p]
			su += us[i] / float64(hw)
			suz += us[i] * zs[i] / float64(hw)
		}
		for i := range us {
			wantU[p*hw+i] = wantS[p] * (us[i] - su - zs[i]*suz)
		}
	}
	z, err := c.zeros(planes * hw)
	if err != nil {
		return err
	}
	sc, err := c.zeros(planes)
	if err != nil {
		return err
	}
	var errs []error
	if err := c.d.PlaneNormalize(z, sc, xb, planes, hw, eps); err != nil {
		return fmt.Errorf("plane normalize: %w", err)
	}
	for _, r := range []struct {
		what string
		b    gpu.Buffer
		want []float64
	}{{"plane normalize", z, wantZ}, {"plane normalize's scales", sc, wantS}} {
		got, err := c.read(r.b)
		if err != nil {
			return err
		}
		errs = append(errs, c.closeVec(r.what, got, r.want))
	}
	if err := c.d.PlaneNormalizeBackward(ub, z, sc, planes, hw); err != nil {
		return fmt.Errorf("plane normalize backward: %w", err)
	}
	got, err := c.read(ub)
	if err != nil {
		return err
	}
	errs = append(errs, c.closeVec("plane normalize backward", got, wantU))
	if err := c.d.PlaneNormalize(xb, sc, xb, planes, hw, eps); err != nil {
		return fmt.Errorf("plane normalize in place: %w", err)
	}
	if got, err = c.read(xb); err != nil {
		return err
	}
	errs = append(errs, c.closeVec("plane normalize in place (z = x)", got, wantZ))
	return errors.Join(errs...)
}

// safeguard checks PlaneSafeguard and PlaneSafeguardBackward against
// their formulas in float64, with one plane of g zero (no g term there).
func (c *netCheck) safeguard() error {
	const alpha = 0.7
	s := c.s
	planes, hw := s.N*s.C, s.H*s.W
	h, hb, err := c.random(planes * hw)
	if err != nil {
		return err
	}
	g := make([]float64, planes*hw)
	for i := hw; i < len(g); i++ { // plane 0 of g stays zero
		g[i] = 2*c.rng.Float64() - 1
	}
	gb, err := c.upload(g)
	if err != nil {
		return err
	}
	u, ub, err := c.random(planes * hw)
	if err != nil {
		return err
	}
	bg, bgb, err := c.random(planes * hw)
	if err != nil {
		return err
	}
	wantD, wantBh, wantBg := make([]float64, planes*hw), make([]float64, planes*hw), slices.Clone(bg)
	for p := 0; p < planes; p++ {
		r := p * hw
		gn, hh := math.Sqrt(dot(g[r:r+hw], g[r:r+hw])), dot(h[r:r+hw], h[r:r+hw])
		hu, sk := dot(h[r:r+hw], u[r:r+hw]), math.Sqrt(1+hh)
		for i := r; i < r+hw; i++ {
			wantD[i] = alpha * h[i] * gn / sk
			wantBh[i] = alpha * gn * (u[i]/sk - h[i]*hu/(sk*sk*sk))
			if gn > 0 {
				wantBg[i] += alpha * hu * g[i] / (gn * sk)
			}
		}
	}
	delta, err := c.zeros(planes * hw)
	if err != nil {
		return err
	}
	bh, err := c.zeros(planes * hw)
	if err != nil {
		return err
	}
	if err := c.d.PlaneSafeguard(delta, hb, gb, planes, hw, alpha); err != nil {
		return fmt.Errorf("plane safeguard: %w", err)
	}
	if err := c.d.PlaneSafeguardBackward(bh, bgb, ub, hb, gb, planes, hw, alpha); err != nil {
		return fmt.Errorf("plane safeguard backward: %w", err)
	}
	var errs []error
	for _, r := range []struct {
		what string
		b    gpu.Buffer
		want []float64
	}{{"plane safeguard", delta, wantD}, {"plane safeguard backward's h part", bh, wantBh}, {"plane safeguard backward's g part", bgb, wantBg}} {
		got, err := c.read(r.b)
		if err != nil {
			return err
		}
		errs = append(errs, c.closeVec(r.what, got, r.want))
	}
	return errors.Join(errs...)
}

func (c *netCheck) leaky() error {
	n := c.s.Len()
	x, xb, err := c.random(n)
	if err != nil {
		return err
	}
	u, ub, err := c.random(n)
	if err != nil {
		return err
	}
	const slope = 0.2
	want := make([]float64, n)
	for i, v := range x {
		want[i] = u[i]
		if !(v > 0) {
			want[i] = slope * u[i]
		}
	}
	out, err := c.zeros(n)
	if err != nil {
		return err
	}
	if err := c.d.LeakyMask(out, xb, ub, slope); err != nil {
		return fmt.Errorf("leaky mask: %w", err)
	}
	got, err := c.read(out)
	if err != nil {
		return err
	}
	e1 := c.closeVec("leaky mask", got, want)
	if err := c.d.LeakyMask(ub, xb, ub, slope); err != nil {
		return fmt.Errorf("leaky mask in place on u: %w", err)
	}
	if got, err = c.read(ub); err != nil {
		return err
	}
	e1 = errors.Join(e1, c.closeVec("leaky mask in place (dst = u)", got, want))
	for i, v := range x {
		want[i] = v
		if !(v > 0) {
			want[i] = slope * v
		}
	}
	if err := c.d.LeakyMask(xb, xb, xb, slope); err != nil {
		return fmt.Errorf("leaky relu in place: %w", err)
	}
	if got, err = c.read(xb); err != nil {
		return err
	}
	return errors.Join(e1, c.closeVec("leaky relu in place", got, want))
}

// refusals checks that bad arguments are errors, not silent results: wrong
// lengths, coefficients without their buffer, plane copies onto themselves
// or with a zero step.
func (c *netCheck) refusals() error {
	s := c.s
	hw := s.H * s.W
	x, err := c.zeros(s.Len())
	if err != nil {
		return err
	}
	y, err := c.zeros(s.Len())
	if err != nil {
		return err
	}
	short, err := c.zeros(hw)
	if err != nil {
		return err
	}
	planes := s.N * s.C
	one := make([]float64, planes)
	cases := map[string]error{
		"plane dots of the wrong length":   c.d.PlaneDots(make([]float64, planes+1), x, nil, hw),
		"plane combine with b but no z":    c.d.PlaneCombine(x, one, x, one, nil, nil, hw),
		"leaky mask of unequal lengths":    c.d.LeakyMask(short, x, x, 0.2),
		"copy planes onto the same buffer": c.d.CopyPlanes(x, 0, 1, x, 0, 1, 1, hw),
	}
	if planes > 1 {
		cases["copy planes with a zero step"] = c.d.CopyPlanes(y, 0, 0, x, 0, 1, 2, hw)
	}
	var errs []error
	for name, err := range cases {
		if err == nil {
			errs = append(errs, fmt.Errorf("%s: accepted, want an error", name))
		}
	}
	return errors.Join(errs...)
}

// copies stacks the channels of N images into [N,Cin,H,W] and takes channel
// Cin−1 out again.
func (c *netCheck) copies() error {
	s := c.s
	hw, C := s.H*s.W, s.C
	stack, err := c.zeros(s.Len())
	if err != nil {
		return err
	}
	want := make([]float64, s.Len())
	var last []float64
	for ch := 0; ch < C; ch++ {
		v, b, err := c.random(s.N * hw)
		if err != nil {
			return err
		}
		if err := c.d.CopyPlanes(stack, ch, C, b, 0, 1, s.N, hw); err != nil {
			return fmt.Errorf("copy planes into channel %d: %w", ch, err)
		}
		for n := 0; n < s.N; n++ {
			copy(want[(n*C+ch)*hw:(n*C+ch+1)*hw], v[n*hw:(n+1)*hw])
		}
		last = v
	}
	got, err := c.read(stack)
	if err != nil {
		return err
	}
	e1 := c.closeVec("copy planes (stack channels)", got, want)
	out, err := c.zeros(s.N * hw)
	if err != nil {
		return err
	}
	if err := c.d.CopyPlanes(out, 0, 1, stack, C-1, C, s.N, hw); err != nil {
		return fmt.Errorf("copy planes out of channel %d: %w", C-1, err)
	}
	if got, err = c.read(out); err != nil {
		return err
	}
	e2 := c.closeVec("copy planes (take a channel out)", got, last)
	return errors.Join(e1, e2, c.consecutive(stack, want))
}

// consecutive copies consecutive planes (both steps 1): the stack's planes
// from its second on, to the start of a buffer of as many values, and the
// stack's values as planes of one value into a longer buffer from value 3
// (a readout gathering blocks one after the other).
func (c *netCheck) consecutive(stack gpu.Buffer, values []float64) error {
	hw, planes := c.s.H*c.s.W, c.s.N*c.s.C
	shifted, err := c.zeros(len(values))
	if err != nil {
		return err
	}
	var e1 error
	if planes > 1 {
		if err := c.d.CopyPlanes(shifted, 0, 1, stack, 1, 1, planes-1, hw); err != nil {
			return fmt.Errorf("copy consecutive planes: %w", err)
		}
		got, err := c.read(shifted)
		if err != nil {
			return err
		}
		want := append(slices.Clone(values[hw:]), make([]float64, hw)...)
		e1 = c.closeVec("copy consecutive planes", got, want)
	}
	const off = 3
	long, err := c.zeros(off + len(values) + 2)
	if err != nil {
		return err
	}
	if err := c.d.CopyPlanes(long, off, 1, stack, 0, 1, len(values), 1); err != nil {
		return fmt.Errorf("copy values at an offset: %w", err)
	}
	got, err := c.read(long)
	if err != nil {
		return err
	}
	want := make([]float64, len(got))
	copy(want[off:], values)
	return errors.Join(e1, c.closeVec("copy values at an offset (planes of one value)", got, want))
}
