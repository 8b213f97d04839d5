// Command diagnose-boundary measures why greedy M-PC steps (image-sized
// circular convolutions G and H applied by FFT) learned on Problem 1 diverge
// on new functions when the blur has a reflecting boundary, and why their
// own training functions do not show it. See docs/boundary-finding.md.
//
// For every greedy checkpoint given with --params it prints
//
//  1. the learned kernels' spectra: the largest gain |θ̂t|/τ, the share of
//     frequencies where |θ̂t| > 10τ (the "high-gain band") and the largest
//     |Â|² of the circular blur there, and the largest |φ̂t|;
//  2. a transfer table: the learned steps run on the problem with each blur
//     boundary (zero, circular, reflect), on the training functions, on the
//     training images with fresh noise and on the test functions: mean
//     f(xᵗ) − f(x*) at t = 5, 10, 20 (x* from --xstar-iters L-BFGS iterations);
//  3. where the error eᵗ = xᵗ − x* lives on the training and the test
//     functions (own boundary): its share within 2 and 5 px of the border and
//     within 4 px of a corner, the largest share of one Fourier mode, the
//     seam parity (−1: odd across the periodic seam, x[W−1−n] = −x[n]), and
//     the share of ‖∇f‖² in the high-gain band of the step about to act;
//  4. the linear model with the quadratic part of the Hessian only,
//     e ↦ e − θt ⊛ AᵀA e + φt ⊛ (e − e⁻), run for 20 learned steps from a
//     random e⁰ for each blur boundary, and the gain σmax(θt ⊛ (AᵀA − AᵀcAc))
//     of the learned step on the blur's departure from a circulant;
//  5. the growth of a 10⁻⁶ perturbation of x⁰ under the learned method, on
//     the training and the test functions.
//
// Run (after training the checkpoints as in the doc):
//
//	go run ./scripts/diagnose-boundary --params runs/diag/mpc-reflect,runs/diag/mpc-zero --data datasets/stl10
package main

import (
	"flag"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/problem"
	"gorgonia.org/tensor"
)

var boundaries = []string{"zero", "circular", "reflect"}

func main() {
	params := flag.String("params", "", "greedy checkpoint directories, comma-separated")
	spec := flag.String("data", "datasets/stl10", "data, as l2o --data")
	nTest := flag.Int("n-test", 100, "test functions")
	xsIters := flag.Int("xstar-iters", 500, "L-BFGS iterations for x*")
	flag.Parse()
	if *params == "" {
		fmt.Fprintln(os.Stderr, "usage: diagnose-boundary --params DIR[,DIR…] [--data DIR] [--n-test 100] [--xstar-iters 500]")
		os.Exit(2)
	}
	d := &diag{spec: *spec, nTest: *nTest, xsIters: *xsIters, sets: map[string]*fnSet{}}
	for _, dir := range strings.Split(*params, ",") {
		if err := d.run(dir); err != nil {
			fmt.Fprintln(os.Stderr, "diagnose-boundary:", err)
			os.Exit(1)
		}
	}
}

type diag struct {
	spec           string
	nTest, xsIters int
	sets           map[string]*fnSet // by boundary and set name, shared by checkpoints
}

// fnSet is a batch of functions with their minimisers.
type fnSet struct {
	o  *problem.Objective
	xs []float64
	fs []float64
}

// functions returns the named set ("train", "fresh": training images with
// fresh noise, "test") of Problem 1 with the given blur boundary, as l2o
// builds it from man's problem, size, seed and n_train.
func (d *diag) functions(man *checkpoint.Manifest, bnd, set string) (*fnSet, error) {
	key := bnd + "/" + set
	if s, ok := d.sets[key]; ok {
		return s, nil
	}
	prob, err := problem.Lookup(man.Problem, problem.Options{H: man.H, W: man.W, Seed: uint64(man.Seed), BlurBoundary: bnd})
	if err != nil {
		return nil, err
	}
	tr, te, err := data.Open(d.spec, man.NTrain, d.nTest, man.H, man.W, man.Seed)
	if err != nil {
		return nil, err
	}
	imgs, offset := tr, uint64(0) // the offsets cmd/problemflags.go uses: 0 train, 1 test
	switch set {
	case "fresh":
		offset = 7
	case "test":
		imgs, offset = te, 1
	}
	n, _, _, pix, err := data.Stack(imgs)
	if err != nil {
		return nil, err
	}
	o, err := prob.Instantiate(pix, n, offset)
	if err != nil {
		return nil, err
	}
	s := &fnSet{o: o, fs: make([]float64, n)}
	it, err := baselines.LBFGS{}.Start(o)
	if err != nil {
		return nil, err
	}
	for range d.xsIters {
		if err := it.Next(); err != nil {
			return nil, err
		}
	}
	s.xs = append([]float64(nil), it.X()...)
	g := make([]float64, len(s.xs))
	if err := o.Eval(s.fs, g, s.xs, nil); err != nil {
		return nil, err
	}
	fmt.Printf("   x* of %-16s %3d functions, %d L-BFGS iterations: max ‖∇f(x*)‖ %.1e\n", key, n, d.xsIters, maxNorm(g, n))
	d.sets[key] = s
	return s, nil
}

func (d *diag) run(dir string) error {
	l, man, err := learned.Load(dir)
	if err != nil {
		return err
	}
	own := man.Conventions[problem.ConventionBlurBoundary]
	l.Problem, l.Conventions = "", nil // allow running on the other boundaries
	h, w := man.H, man.W
	T := l.Steps - 1
	fmt.Printf("\n== %s: %s trained with blur boundary %s, λ=%s μ=%s, T+1 = %d steps, τ = %.4g\n", dir, man.Method, own, man.Lambda, man.Mu, l.Steps, man.Tau)
	f2 := kernels.NewFFT2(h, w)
	conv, err := kernels.NewFFTConv(1, h, w)
	if err != nil {
		return err
	}
	circ, err := problem.Lookup(man.Problem, problem.Options{H: h, W: w, BlurBoundary: "circular"})
	if err != nil {
		return err
	}
	symbol := blurSymbol(f2, circ.A, h, w)
	steps := []int{0, 1, 5, 10, 20, T}
	band := func(t int) []bool {
		th, _, _ := l.Params(t)
		s := spectrum(f2, th)
		b := make([]bool, len(s))
		for i, c := range s {
			b[i] = cmplx.Abs(c) > 10*man.Tau
		}
		return b
	}

	fmt.Println("-- 1. learned kernels: gain |θ̂t|/τ, high-gain band (|θ̂t| > 10τ), largest circular |Â|² in the band, max |φ̂t|")
	for _, t := range steps {
		th, ph, _ := l.Params(t)
		st := spectrum(f2, th)
		var gmax, amax, pmax float64
		var n int
		for i, c := range st {
			a := cmplx.Abs(c)
			gmax = math.Max(gmax, a/man.Tau)
			if a > 10*man.Tau {
				n++
				amax = math.Max(amax, symbol[i])
			}
		}
		if ph != nil {
			for _, c := range spectrum(f2, ph) {
				pmax = math.Max(pmax, cmplx.Abs(c))
			}
		}
		fmt.Printf("   step %2d: max gain %5.1f, band %4.1f%% of the spectrum, max |Â|² there %.4f, max |φ̂| %.2f\n", t, gmax, 100*float64(n)/float64(len(st)), amax, pmax)
	}

	fmt.Println("-- 2. transfer: mean f(xᵗ) − f(x*) of the learned steps on each blur boundary")
	for _, bnd := range boundaries {
		for _, set := range []string{"train", "fresh", "test"} {
			s, err := d.functions(man, bnd, set)
			if err != nil {
				return err
			}
			line := fmt.Sprintf("   %-8s %-5s", bnd, set)
			traj, err := trajectory(l, s.o, s.o.X0, 20)
			for _, t := range []int{5, 10, 20} {
				if t >= len(traj) {
					line += fmt.Sprintf("  @%d %9s", t, "non-finite")
					continue
				}
				line += fmt.Sprintf("  @%d %9.3g", t, meanGap(s, traj[t]))
			}
			if err != nil {
				line += " (diverged)"
			}
			fmt.Println(line)
		}
	}

	fmt.Printf("-- 3. where eᵗ = xᵗ − x* lives (blur %s); border bands hold %.1f%% (2 px) and %.1f%% (5 px) of the pixels, corners (4 px) %.2f%%\n",
		own, 100*areaFrac(h, w, 2), 100*areaFrac(h, w, 5), 100*64/float64(h*w))
	for _, set := range []string{"train", "test"} {
		s, err := d.functions(man, own, set)
		if err != nil {
			return err
		}
		traj, _ := trajectory(l, s.o, s.o.X0, 20)
		for _, t := range []int{0, 1, 2, 3, 5, 10, 20} {
			if t >= len(traj) {
				break
			}
			e := sub(traj[t], s.xs)
			g := make([]float64, len(e))
			if err := s.o.Eval(nil, g, traj[t], nil); err != nil {
				return err
			}
			fmt.Printf("   %-5s t=%2d rms e %8.3g  border2 %.2f border5 %.2f corners %.3f  top mode %.3f  seam parity %+.2f  ∇f in band %.3f\n",
				set, t, rms(e), borderFrac(e, s.o.N, h, w, 2), borderFrac(e, s.o.N, h, w, 5), cornerFrac(e, s.o.N, h, w, 4),
				topMode(f2, e, s.o.N, h, w), seamParity(e, s.o.N, h, w, 3), bandFrac(f2, g, s.o.N, h, w, band(min(t, T))))
		}
	}

	fmt.Println("-- 4. linear model, H = AᵀA: 20 learned steps from a random e⁰; gain of the learned step on AᵀA − AᵀcAc")
	blurs := map[string]problem.Operator{}
	var grown []float64
	for _, bnd := range boundaries {
		prob, err := problem.Lookup(man.Problem, problem.Options{H: h, W: w, BlurBoundary: bnd})
		if err != nil {
			return err
		}
		blurs[bnd] = prob.A
		hess := func(dst, v []float64) { gram(dst, prob.A, v, h, w) }
		r := rand.New(rand.NewPCG(3, 1))
		e, ep := make([]float64, h*w), make([]float64, h*w)
		for i := range e {
			e[i] = r.NormFloat64()
		}
		copy(ep, e)
		n0 := norm(e)
		var n10 float64
		for t := range 20 {
			th, ph, _ := l.Params(t)
			e, ep = linearStep(conv, hess, th, ph, e, ep), e
			if t == 9 {
				n10 = norm(e)
			}
		}
		m := maxAbs(e)
		fmt.Printf("   %-8s ‖e²⁰‖/‖e⁰‖ %9.3g, growth per step (t 10→20) %.2f, border2 %.2f, corners %.3f, seam parity %+.2f, corner values/max %+.2f %+.2f %+.2f %+.2f\n",
			bnd, norm(e)/n0, math.Pow(norm(e)/n10, 0.1), borderFrac(e, 1, h, w, 2), cornerFrac(e, 1, h, w, 4), seamParity(e, 1, h, w, 3),
			e[0]/m, e[w-1]/m, e[(h-1)*w]/m, e[h*w-1]/m)
		if bnd == "reflect" {
			grown = e
		}
		if bnd == "circular" {
			continue
		}
		line := fmt.Sprintf("   %-8s σmax(θt ⊛ (AᵀA − AᵀcAc)):", bnd)
		for _, t := range steps {
			th, _, _ := l.Params(t)
			line += fmt.Sprintf(" t%d %.2f", t, defectGain(conv, prob.A, circ.A, th, h, w))
		}
		fmt.Println(line)
	}

	thT, _, _ := l.Params(T)
	bandT := band(T)
	for _, bnd := range boundaries {
		he, z := make([]float64, h*w), make([]float64, h*w)
		gram(he, blurs[bnd], grown, h, w)
		mustConv(conv.Apply(z, thT, he))
		fmt.Printf("   the mode grown under reflect, e: with the %-8s blur eᵀHe/‖e‖² %.3f, share of ‖He‖² in step %d's high-gain band %.3f, ‖θ%d ⊛ He‖/‖e‖ %.3f\n",
			bnd, kernels.Dot(grown, he)/kernels.Dot(grown, grown), T, bandFrac(f2, he, 1, h, w, bandT), T, norm(z)/norm(grown))
	}

	fmt.Printf("-- 5. a perturbation of 1e-6 per pixel on x⁰ (blur %s): rms(Δxᵗ)/1e-6 and its border2 share\n", own)
	for _, set := range []string{"train", "test"} {
		s, err := d.functions(man, own, set)
		if err != nil {
			return err
		}
		r := rand.New(rand.NewPCG(5, 1))
		x0 := append([]float64(nil), s.o.X0...)
		for i := range x0 {
			x0[i] += 1e-6 * r.NormFloat64()
		}
		a, _ := trajectory(l, s.o, s.o.X0, 20)
		b, _ := trajectory(l, s.o, x0, 20)
		line := fmt.Sprintf("   %-5s", set)
		for _, t := range []int{1, 3, 5, 10, 20} {
			if t < len(a) && t < len(b) {
				dx := sub(b[t], a[t])
				line += fmt.Sprintf("  t%d %8.3g (%.2f)", t, rms(dx)/1e-6, borderFrac(dx, s.o.N, h, w, 2))
			}
		}
		fmt.Println(line)
	}
	return nil
}

// trajectory runs Algorithm 2 from x0 for iters iterations and returns
// x⁰…xᵗ; it stops early (with the error) at a non-finite iterate.
func trajectory(l *learned.Optimizer, o *problem.Objective, x0 []float64, iters int) ([][]float64, error) {
	oo := *o
	oo.X0 = x0
	it, err := l.Start(&oo)
	if err != nil {
		return nil, err
	}
	out := [][]float64{append([]float64(nil), x0...)}
	for range iters {
		if err := it.Next(); err != nil {
			return out, err
		}
		out = append(out, append([]float64(nil), it.X()...))
	}
	return out, nil
}

func meanGap(s *fnSet, x []float64) float64 {
	v := make([]float64, s.o.N)
	if err := s.o.Eval(v, nil, x, nil); err != nil {
		return math.NaN()
	}
	var m float64
	for k := range v {
		m += (v[k] - s.fs[k]) / float64(len(v))
	}
	return m
}

// gram writes AᵀA v into dst for one image.
func gram(dst []float64, a problem.Operator, v []float64, h, w int) {
	sh := tensor.Shape{1, h, w}
	r := make([]float64, h*w)
	if err := a.Apply(r, v, sh); err != nil {
		panic(err)
	}
	if err := a.Adjoint(dst, r, sh); err != nil {
		panic(err)
	}
}

// linearStep is e − θ ⊛ H e + φ ⊛ (e − e⁻).
func linearStep(conv *kernels.FFTConv, hess func(dst, v []float64), theta, phi, e, ep []float64) []float64 {
	n := len(e)
	he, g, out := make([]float64, n), make([]float64, n), make([]float64, n)
	hess(he, e)
	mustConv(conv.Apply(g, theta, he))
	copy(out, e)
	for i := range out {
		out[i] -= g[i]
	}
	if phi != nil {
		p := make([]float64, n)
		for i := range p {
			p[i] = e[i] - ep[i]
		}
		mustConv(conv.Apply(g, phi, p))
		for i := range out {
			out[i] += g[i]
		}
	}
	return out
}

// defectGain is the largest singular value of v ↦ θ ⊛ (AᵀA − AcᵀAc) v, by
// power iteration on the normal operator.
func defectGain(conv *kernels.FFTConv, a, ac problem.Operator, theta []float64, h, w int) float64 {
	n := h * w
	d := func(dst, v []float64) {
		t1, t2 := make([]float64, n), make([]float64, n)
		gram(t1, a, v, h, w)
		gram(t2, ac, v, h, w)
		for i := range dst {
			dst[i] = t1[i] - t2[i]
		}
	}
	r := rand.New(rand.NewPCG(11, 1))
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	var s float64
	u, z := make([]float64, n), make([]float64, n)
	for range 100 {
		nv := norm(v)
		for i := range v {
			v[i] /= nv
		}
		d(u, v)
		mustConv(conv.Apply(z, theta, u))
		s = norm(z)
		mustConv(conv.AdjointImage(u, theta, z))
		d(v, u)
	}
	return s
}

func mustConv(err error) {
	if err != nil {
		panic(err)
	}
}

// blurSymbol returns |Â|² of a circular blur on the FFT2 grid (the
// spectrum of AᵀA applied to a unit impulse at the origin).
func blurSymbol(f *kernels.FFT2, a problem.Operator, h, w int) []float64 {
	delta, g := make([]float64, h*w), make([]float64, h*w)
	delta[0] = 1
	gram(g, a, delta, h, w)
	s := spectrum(f, g)
	out := make([]float64, len(s))
	for i, c := range s {
		out[i] = real(c)
	}
	return out
}

func spectrum(f *kernels.FFT2, x []float64) []complex128 {
	s := make([]complex128, f.SpectrumLen())
	f.Forward(s, x)
	return s
}

// powerSpectrum sums |x̂_k|² over the n images of x, weighting the
// half-spectrum's columns so that the result sums to H·W·‖x‖².
func powerSpectrum(f *kernels.FFT2, x []float64, n, h, w int) []float64 {
	p := make([]float64, f.SpectrumLen())
	wc := w/2 + 1
	for k := range n {
		for i, c := range spectrum(f, x[k*h*w:(k+1)*h*w]) {
			m := 2.0
			if j := i % wc; j == 0 || 2*j == w {
				m = 1
			}
			p[i] += m * (real(c)*real(c) + imag(c)*imag(c))
		}
	}
	return p
}

func topMode(f *kernels.FFT2, x []float64, n, h, w int) float64 {
	p := powerSpectrum(f, x, n, h, w)
	var m, s float64
	for _, v := range p {
		m, s = math.Max(m, v), s+v
	}
	return m / s
}

func bandFrac(f *kernels.FFT2, x []float64, n, h, w int, band []bool) float64 {
	p := powerSpectrum(f, x, n, h, w)
	var in, s float64
	for i, v := range p {
		s += v
		if band[i] {
			in += v
		}
	}
	return in / s
}

// frac is the share of ‖x‖² on the pixels where keep(i, j) holds.
func frac(x []float64, n, h, w int, keep func(i, j int) bool) float64 {
	var in, all float64
	for k := range n {
		for i := range h {
			for j := range w {
				v := x[k*h*w+i*w+j]
				all += v * v
				if keep(i, j) {
					in += v * v
				}
			}
		}
	}
	return in / all
}

func borderFrac(x []float64, n, h, w, b int) float64 {
	return frac(x, n, h, w, func(i, j int) bool { return min(i, j, h-1-i, w-1-j) < b })
}

func cornerFrac(x []float64, n, h, w, c int) float64 {
	return frac(x, n, h, w, func(i, j int) bool { return min(i, h-1-i) < c && min(j, w-1-j) < c })
}

func areaFrac(h, w, b int) float64 { return 1 - float64((h-2*b)*(w-2*b))/float64(h*w) }

// seamParity is Σ x[n]·x[W−1−n] / Σ (x[n]² + x[W−1−n]²)/2 over the b
// columns (and rows) on either side of the periodic seam: +1 for an image
// that is even across the seam, −1 for one that is odd.
func seamParity(x []float64, n, h, w, b int) float64 {
	var c, s float64
	for k := range n {
		img := x[k*h*w : (k+1)*h*w]
		for i := range h {
			for d := range b {
				u, v := img[i*w+d], img[i*w+w-1-d]
				c, s = c+u*v, s+(u*u+v*v)/2
			}
		}
		for j := range w {
			for d := range b {
				u, v := img[d*w+j], img[(h-1-d)*w+j]
				c, s = c+u*v, s+(u*u+v*v)/2
			}
		}
	}
	return c / s
}

func sub(a, b []float64) []float64 {
	o := make([]float64, len(a))
	for i := range a {
		o[i] = a[i] - b[i]
	}
	return o
}

func norm(v []float64) float64 { return math.Sqrt(kernels.Dot(v, v)) }

func rms(v []float64) float64 { return norm(v) / math.Sqrt(float64(len(v))) }

func maxAbs(v []float64) float64 {
	var m float64
	for i, x := range v {
		if i == 0 || math.Abs(x) > math.Abs(m) {
			m = x
		}
	}
	return math.Abs(m)
}

func maxNorm(v []float64, n int) float64 {
	hw := len(v) / n
	var m float64
	for k := range n {
		m = math.Max(m, norm(v[k*hw:(k+1)*hw]))
	}
	return m
}
