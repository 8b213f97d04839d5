package baselines

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/problem"
	"gonum.org/v1/gonum/optimize"
	"gorgonia.org/tensor"
)

func TestMethodsConvergeToMinimiser(t *testing.T) {
	q := newQuadratic(t, 3, 8, 8, kernels.Reflect, 1)
	hw := q.o.ImageLen()
	methods := []struct {
		m     Method
		iters int
	}{
		{GradientDescent{}, 2000},
		{HeavyBall{}, 2000},
		{NAG{}, 2000},
		{LBFGS{}, 200},
		{PreconditionedGD{Delta: 0.01}, 500},
		{RestartNAG{}, 2000},
		{BarzilaiBorwein{}, 500},
		{LBFGS{Memory: 3}, 200},
	}
	for _, c := range methods {
		it, err := c.m.Start(q.o)
		if err != nil {
			t.Fatalf("%s: %v", c.m.Name(), err)
		}
		converged := -1
		for n := 1; n <= c.iters; n++ {
			if err := it.Next(); err != nil {
				t.Fatalf("%s: %v", c.m.Name(), err)
			}
			if relDist(it.X(), q.xstar, hw) <= 1e-7 {
				converged = n
				break
			}
		}
		if converged < 0 {
			t.Errorf("%s: ‖x − x*‖/‖x*‖ = %.3g after %d iterations, want ≤ 1e-7", c.m.Name(), relDist(it.X(), q.xstar, hw), c.iters)
			continue
		}
		f, _ := values(t, q.o, it.X())
		for k := range f {
			if d := f[k] - q.fstar[k]; math.Abs(d) > 1e-10*(1+q.fstar[k]) {
				t.Errorf("%s: f_%d − f* = %.3g", c.m.Name(), k, d)
			}
		}
		t.Logf("%s: converged in %d iterations", c.m.Name(), converged)
	}
}

// TestHuberTVOptimum checks that NAG with backtracking and L-BFGS agree on f*
// for a small Huber-TV deblurring problem and that L-BFGS reaches a
// stationary point.
func TestHuberTVOptimum(t *testing.T) {
	o := deblur(t, 2, 16)
	fstar, err := Optimum(o, 3000, "")
	if err != nil {
		t.Fatal(err)
	}
	f0, _ := values(t, o, o.X0)
	it, err := LBFGS{}.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	// The mean relative gap (f − f*)/(f0 − f*) at iterations 10, 20 and 50
	// may be at most twice the 7.5e-3, 1.5e-3 and 5.8e-5 of LBFGS with its
	// earlier hand-written bracketing and zoom line search (Nocedal and
	// Wright, Algorithms 3.5 and 3.6); with gonum's MoreThuente it is 7.5e-3,
	// 1.5e-3 and 6.0e-5.
	bounds := map[int]float64{10: 1.5e-2, 20: 3e-3, 50: 1.2e-4}
	for n := 1; n <= 500; n++ {
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
		if bound, ok := bounds[n]; ok {
			f, _ := values(t, o, it.X())
			gap := 0.0
			for k := range f {
				gap += (f[k] - fstar[k]) / (f0[k] - fstar[k]) / float64(len(f))
			}
			if gap > bound {
				t.Errorf("iteration %d: mean relative gap %.3g, want ≤ %g", n, gap, bound)
			}
			t.Logf("iteration %d: mean relative gap %.3g", n, gap)
		}
	}
	f, g := values(t, o, it.X())
	hw := o.ImageLen()
	_, g0 := values(t, o, o.X0)
	for k := range f {
		gap := (f[k] - fstar[k]) / (f0[k] - fstar[k])
		if math.Abs(gap) > 1e-7 {
			t.Errorf("function %d: (f_lbfgs − f*_nag)/(f0 − f*) = %.3g, want |·| ≤ 1e-7", k, gap)
		}
		gk, g0k := g[k*hw:(k+1)*hw], g0[k*hw:(k+1)*hw]
		ratio := math.Sqrt(kernels.Dot(gk, gk) / kernels.Dot(g0k, g0k))
		if ratio > 1e-5 {
			t.Errorf("function %d: ‖∇f(x)‖/‖∇f(x0)‖ = %.3g after L-BFGS, want ≤ 1e-5", k, ratio)
		}
		t.Logf("function %d: f0 = %.10g f* = %.10g lbfgs gap %.3g grad ratio %.3g", k, f0[k], fstar[k], gap, ratio)
	}
	if ev, ok := it.(Evaluator); !ok {
		t.Error("lbfgs iterator does not report evaluations")
	} else {
		t.Logf("lbfgs evaluations: %v", ev.Evaluations())
	}
}

// TestLBFGSStrongWolfe re-evaluates f and ∇f at consecutive iterates and
// checks the strong Wolfe conditions along s = x⁺ − x, which are invariant to
// the scaling of the direction.
func TestLBFGSStrongWolfe(t *testing.T) {
	o := deblur(t, 3, 16)
	it, err := LBFGS{Memory: 5}.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	hw := o.ImageLen()
	prev := append([]float64(nil), it.X()...)
	fp, gp := values(t, o, prev)
	checked := 0
	for n := 0; n < 60; n++ {
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
		x := it.X()
		f, g := values(t, o, x)
		for k := 0; k < o.N; k++ {
			s := make([]float64, hw)
			for i := range s {
				s[i] = x[k*hw+i] - prev[k*hw+i]
			}
			if kernels.Dot(s, s) == 0 {
				continue
			}
			slope0 := kernels.Dot(gp[k*hw:(k+1)*hw], s)
			slope1 := kernels.Dot(g[k*hw:(k+1)*hw], s)
			// Slack for rounding in the re-evaluation.
			tol := 1e-12 * math.Abs(fp[k])
			if slope0 >= 0 {
				t.Errorf("iteration %d, function %d: step is not a descent direction (slope %g)", n, k, slope0)
			}
			if f[k] > fp[k]+WolfeDecrease*slope0+tol {
				t.Errorf("iteration %d, function %d: sufficient decrease fails: f⁺ − f = %g > c1·slope = %g", n, k, f[k]-fp[k], WolfeDecrease*slope0)
			}
			if math.Abs(slope1) > WolfeCurvature*math.Abs(slope0)*(1+1e-9) {
				t.Errorf("iteration %d, function %d: curvature fails: |∇f⁺·s| = %g > c2|∇f·s| = %g", n, k, math.Abs(slope1), WolfeCurvature*math.Abs(slope0))
			}
			checked++
		}
		copy(prev, x)
		fp, gp = f, g
	}
	if checked < 100 {
		t.Errorf("only %d accepted steps checked", checked)
	}
}

// TestLinesearcherStrongWolfe drives the line search LBFGS gives every
// function (gonum's MoreThuente with c1 = WolfeDecrease, c2 = WolfeCurvature)
// through its reverse-communication interface on one-dimensional test
// functions and checks that it accepts a strong Wolfe step within LBFGS's
// default budget of 20 evaluations from first steps far too short or long.
func TestLinesearcherStrongWolfe(t *testing.T) {
	type phi func(a float64) (float64, float64)
	cases := map[string]phi{
		"quadratic": func(a float64) (float64, float64) { return (a - 3) * (a - 3), 2 * (a - 3) },
		// Moré and Thuente (1994), function 1 with β = 2.
		"rational": func(a float64) (float64, float64) {
			d := a*a + 2
			return -a / d, (a*a - 2) / (d * d)
		},
		"quartic": func(a float64) (float64, float64) {
			return math.Pow(a-0.01, 4) - 0.02*a, 4*math.Pow(a-0.01, 3) - 0.02
		},
	}
	for name, p := range cases {
		f0, g0 := p(0)
		for _, first := range []float64{1e-3, 0.1, 1, 10, 1e3} {
			ls := newLinesearcher()
			if op := ls.Init(f0, g0, first); op != optimize.FuncEvaluation|optimize.GradEvaluation {
				t.Fatalf("Init asks for %v, want φ and φ'", op)
			}
			a := first
			ok := false
			for i := 0; i < 20; i++ {
				f, g := p(a)
				op, next, err := ls.Iterate(f, g)
				if err != nil {
					t.Fatalf("%s from %g: %v", name, first, err)
				}
				if op == optimize.MajorIteration {
					if f > f0+WolfeDecrease*a*g0 || math.Abs(g) > WolfeCurvature*math.Abs(g0) {
						t.Errorf("%s from %g: accepted a = %g with f = %g, g = %g violating strong Wolfe", name, first, a, f, g)
					}
					ok = true
					break
				}
				a = next
			}
			if !ok {
				t.Errorf("%s from %g: no step after 20 trials", name, first)
			}
		}
	}
}

// TestLBFGSQuadraticStrongWolfe runs L-BFGS on a strongly convex quadratic
// with known minimisers: every accepted step must satisfy the strong Wolfe
// conditions (checked on f and ∇f evaluated afresh at consecutive iterates),
// no line search may fail before convergence, and the iterates must reach the
// minimisers to 1e-8 within a bound on the iterations.
func TestLBFGSQuadraticStrongWolfe(t *testing.T) {
	q := newQuadratic(t, 3, 8, 8, kernels.Reflect, 11)
	o, hw := q.o, q.o.ImageLen()
	it, err := LBFGS{}.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	const maxIters = 40
	prev := append([]float64(nil), it.X()...)
	fp, gp := values(t, o, prev)
	converged := -1
	for n := 1; n <= maxIters && converged < 0; n++ {
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
		x := it.X()
		f, g := values(t, o, x)
		for k := 0; k < o.N; k++ {
			s := make([]float64, hw)
			for i := range s {
				s[i] = x[k*hw+i] - prev[k*hw+i]
			}
			if kernels.Dot(s, s) == 0 {
				t.Errorf("iteration %d, function %d: no step taken before convergence", n, k)
				continue
			}
			slope0 := kernels.Dot(gp[k*hw:(k+1)*hw], s)
			slope1 := kernels.Dot(g[k*hw:(k+1)*hw], s)
			tol := 1e-13 * math.Abs(fp[k])
			if !(slope0 < 0) {
				t.Errorf("iteration %d, function %d: not a descent step (slope %g)", n, k, slope0)
			}
			if f[k] > fp[k]+WolfeDecrease*slope0+tol {
				t.Errorf("iteration %d, function %d: sufficient decrease fails: f⁺ − f = %g > c1·slope = %g", n, k, f[k]-fp[k], WolfeDecrease*slope0)
			}
			if math.Abs(slope1) > WolfeCurvature*math.Abs(slope0)*(1+1e-9) {
				t.Errorf("iteration %d, function %d: curvature fails: |∇f⁺·s| = %g > c2|∇f·s| = %g", n, k, math.Abs(slope1), WolfeCurvature*math.Abs(slope0))
			}
		}
		if relDist(x, q.xstar, hw) <= 1e-8 {
			converged = n
		}
		copy(prev, x)
		fp, gp = f, g
	}
	if converged < 0 {
		t.Fatalf("‖x − x*‖/‖x*‖ = %.3g after %d iterations, want ≤ 1e-8", relDist(it.X(), q.xstar, hw), maxIters)
	}
	for k, n := range it.(*lbfgsIterator).Failures() {
		if n != 0 {
			t.Errorf("function %d: %d failed line searches before convergence", k, n)
		}
	}
	ev := it.(Evaluator).Evaluations()
	for k, e := range ev {
		// One evaluation at x⁰, then about one a step once the memory scales
		// the direction.
		if e > 1+converged+converged/4 {
			t.Errorf("function %d: %d evaluations in %d iterations", k, e, converged)
		}
	}
	t.Logf("converged to 1e-8 in %d iterations; evaluations %v", converged, ev)
}

// countingOp counts the batched applications of an operator: Objective.Eval
// applies A once per call to all N images.
type countingOp struct {
	problem.Operator
	applies int
}

func (c *countingOp) Apply(dst, src []float64, shape tensor.Shape) error {
	c.applies++
	return c.Operator.Apply(dst, src, shape)
}

// lockstepRun starts m on the quadratic functions through an operator that
// counts its batched applications, runs iters iterations and checks that
// each made as many batched evaluations as the function that needed the
// most, not their sum. It returns the evaluations that shared a batch and
// the iterations of a single evaluation.
func lockstepRun(t *testing.T, m Method, seed uint64, iters int) (shared, single, n int) {
	t.Helper()
	q := newQuadratic(t, 4, 8, 8, kernels.Zero, seed)
	op := &countingOp{Operator: q.o.A}
	o := *q.o
	o.A = op
	it, err := m.Start(&o)
	if err != nil {
		t.Fatal(err)
	}
	if op.applies != 1 {
		t.Fatalf("%s: Start made %d batched evaluations, want 1", m.Name(), op.applies)
	}
	ev := it.(Evaluator)
	before := append([]int(nil), ev.Evaluations()...)
	for i := 1; i <= iters; i++ {
		op.applies = 0
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
		most, sum := 0, 0
		for k, e := range ev.Evaluations() {
			most = max(most, e-before[k])
			sum += e - before[k]
		}
		if op.applies != most {
			t.Errorf("%s, iteration %d: %d batched evaluations, want %d (the most any function needed; %d in all)", m.Name(), i, op.applies, most, sum)
		}
		shared += sum - op.applies
		if most == 1 {
			single++
		}
		copy(before, ev.Evaluations())
	}
	return shared, single, o.N
}

// TestLBFGSLockstep checks that the line searches of all functions share
// batched evaluations: an iteration makes as many Objective.Eval calls as the
// function that needs the most evaluations in it, not their sum.
func TestLBFGSLockstep(t *testing.T) {
	shared, _, n := lockstepRun(t, LBFGS{}, 4, 15)
	if shared < 15*(n-1) {
		t.Errorf("only %d evaluations shared a batch in 15 iterations of %d functions", shared, n)
	}
}

func TestCirculantSpectrumMatchesCircularBlur(t *testing.T) {
	h, w := 8, 10
	blur, err := problem.NewBlur("test3", testKernel(), 3, kernels.Circular)
	if err != nil {
		t.Fatal(err)
	}
	// An asymmetric kernel, so that a flipped embedding would be caught.
	blur.Kernel[1], blur.Kernel[5] = 0.2, 0.01
	op := &problem.Scaled{Op: blur, Scale: 0.7}
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, h*w)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	want := make([]float64, h*w)
	if err := op.Apply(want, x, tensor.Shape{1, h, w}); err != nil {
		t.Fatal(err)
	}
	spec, err := CirculantSpectrum(op, h, w)
	if err != nil {
		t.Fatal(err)
	}
	f := kernels.NewFFT2(h, w)
	xs := make([]complex128, f.SpectrumLen())
	f.Forward(xs, x)
	for i := range xs {
		xs[i] *= spec[i]
	}
	got := make([]float64, h*w)
	f.Inverse(got, xs)
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("pixel %d: FFT gives %g, circular blur gives %g", i, got[i], want[i])
		}
	}
	if _, err := CirculantSpectrum(unknownOp{}, h, w); err == nil || !strings.Contains(err.Error(), "Circulant") {
		t.Errorf("unknown operator: error %v, want one suggesting baselines.Circulant", err)
	}
}

type unknownOp struct{ problem.Identity }

func (unknownOp) String() string { return "unknown" }

func TestPreconditionerInvertsNormalOperator(t *testing.T) {
	h, w, n := 8, 6, 2
	blur, err := problem.NewBlur("test3", testKernel(), 3, kernels.Circular)
	if err != nil {
		t.Fatal(err)
	}
	blur.Kernel[0] = 0.3
	delta := 0.05
	p, err := NewPreconditioner(blur, h, w, delta)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, n*h*w)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	// b = (δ + AᵀA) x, computed with the operator itself.
	ax, b := make([]float64, len(x)), make([]float64, len(x))
	shape := tensor.Shape{n, h, w}
	if err := blur.Apply(ax, x, shape); err != nil {
		t.Fatal(err)
	}
	if err := blur.Adjoint(b, ax, shape); err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] += delta * x[i]
	}
	got := make([]float64, len(x))
	if err := p.Apply(got, b); err != nil {
		t.Fatal(err)
	}
	if d := relDist(got, x, len(x)); d > 1e-12 {
		t.Errorf("‖P(δ + AᵀA)x − x‖/‖x‖ = %g", d)
	}
	if _, err := NewPreconditioner(blur, h, w, 0); err == nil {
		t.Error("δ = 0 accepted")
	}
}

// TestPGDNearNewton: with a circular blur and small δ, P is nearly the
// inverse Hessian, so one step with τ = 1 lands next to the minimiser.
func TestPGDNearNewton(t *testing.T) {
	q := newQuadratic(t, 2, 8, 8, kernels.Circular, 5)
	delta := 1e-6
	it, err := PreconditionedGD{Delta: delta}.Start(q.o)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.Next(); err != nil {
		t.Fatal(err)
	}
	// x1 − x* = δ P (x0 − x*) with x0 = 0, so the error is about δ/σ_min².
	if d := relDist(it.X(), q.xstar, q.o.ImageLen()); d > 1e-4 {
		t.Errorf("after one step ‖x − x*‖/‖x*‖ = %g, want ≤ 1e-4", d)
	}
	for k, tau := range it.(*pgdIterator).Steps() {
		if tau != 1 {
			t.Errorf("function %d: step %g, want 1", k, tau)
		}
	}
}

func TestPGDMonotone(t *testing.T) {
	o := deblur(t, 2, 16)
	it, err := PreconditionedGD{}.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	prev, _ := values(t, o, o.X0)
	for n := 0; n < 30; n++ {
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
		f, _ := values(t, o, it.X())
		for k := range f {
			if f[k] > prev[k] {
				t.Errorf("iteration %d, function %d: f rose from %.12g to %.12g", n, k, prev[k], f[k])
			}
		}
		prev = f
	}
}

func TestNonFiniteInputsAndDivergence(t *testing.T) {
	q := newQuadratic(t, 2, 8, 8, kernels.Reflect, 2)
	bad := *q.o
	bad.X0 = append([]float64(nil), q.o.X0...)
	bad.X0[q.o.ImageLen()+5] = math.NaN()
	for _, name := range MethodNames() {
		m, err := ParseMethod(name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Start(&bad)
		if err == nil || !strings.Contains(err.Error(), "function 1") {
			t.Errorf("%s: NaN in x0 of function 1 gave error %v", name, err)
		}
	}
	it, err := GradientDescent{Step: 10 / q.o.L}.Start(q.o)
	if err != nil {
		t.Fatal(err)
	}
	var runErr error
	for n := 0; n < 2000 && runErr == nil; n++ {
		runErr = it.Next()
	}
	if runErr == nil || !strings.Contains(runErr.Error(), "smaller step") || !strings.Contains(runErr.Error(), "iteration") {
		t.Errorf("diverging GD: error %v, want one naming the iteration and suggesting a smaller step", runErr)
	}
	if _, err := (GradientDescent{Step: -1}).Start(q.o); err == nil {
		t.Error("negative step accepted")
	}
	if _, err := (HeavyBall{Beta: 1.5}).Start(q.o); err == nil {
		t.Error("momentum 1.5 accepted")
	}
}

func TestHeavyBallDefaults(t *testing.T) {
	o := &problem.Objective{L: 4}
	a, b, err := HeavyBall{Mu: 1}.Parameters(o)
	if err != nil {
		t.Fatal(err)
	}
	// √L = 2, √μ = 1: α = 4/9, β = 1/9.
	if math.Abs(a-4.0/9) > 1e-15 || math.Abs(b-1.0/9) > 1e-15 {
		t.Errorf("α, β = %g, %g, want 4/9, 1/9", a, b)
	}
	a, b, err = HeavyBall{Alpha: 0.3, Beta: 0.5}.Parameters(o)
	if err != nil || a != 0.3 || b != 0.5 {
		t.Errorf("explicit α, β: got %g, %g, %v", a, b, err)
	}
}

func TestParseMethod(t *testing.T) {
	for _, name := range MethodNames() {
		m, err := ParseMethod(name)
		if err != nil {
			t.Fatal(err)
		}
		if m.Name() != name {
			t.Errorf("ParseMethod(%q).Name() = %q", name, m.Name())
		}
	}
	if _, err := ParseMethod("adam"); err == nil || !strings.Contains(err.Error(), "lbfgs") {
		t.Errorf("unknown method: error %v, want one listing the choices", err)
	}
}

func TestOptimumCache(t *testing.T) {
	q := newQuadratic(t, 2, 8, 8, kernels.Reflect, 3)
	dir := t.TempDir()
	f1, err := Optimum(q.o, 1000, dir)
	if err != nil {
		t.Fatal(err)
	}
	for k := range f1 {
		if math.Abs(f1[k]-q.fstar[k]) > 1e-10*(1+q.fstar[k]) {
			t.Errorf("f*_%d = %.15g, normal equations give %.15g", k, f1[k], q.fstar[k])
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "optimum-*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	// A valid cache file is read, not recomputed: plant recognisable values.
	var rec optimumFile
	b, _ := os.ReadFile(files[0])
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	rec.FStar = []float64{-1, -2}
	rec.Sum = fstarSum(rec.Key, rec.FStar)
	if err := writeFileAtomic(files[0], rec); err != nil {
		t.Fatal(err)
	}
	f2, err := Optimum(q.o, 1000, dir)
	if err != nil || f2[0] != -1 || f2[1] != -2 {
		t.Errorf("cached values not used: %v, %v", f2, err)
	}
	// Values changed without their sum are not used: recomputed.
	rec.FStar = []float64{100, 200}
	if err := writeFileAtomic(files[0], rec); err != nil {
		t.Fatal(err)
	}
	if f, err := Optimum(q.o, 1000, dir); err != nil || f[0] != f1[0] || f[1] != f1[1] {
		t.Errorf("changed cache values: got %v (%v), want the recomputed %v", f, err, f1)
	}
	// A corrupted file is recomputed and overwritten.
	if err := os.WriteFile(files[0], []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	f3, err := Optimum(q.o, 1000, dir)
	if err != nil {
		t.Fatal(err)
	}
	for k := range f3 {
		if f3[k] != f1[k] {
			t.Errorf("recomputed f*_%d = %g, first run %g", k, f3[k], f1[k])
		}
	}
	if b, _ := os.ReadFile(files[0]); json.Unmarshal(b, &rec) != nil {
		t.Error("corrupted cache file was not rewritten")
	}
	// Different data → different key.
	other := *q.o
	other.Y = append([]float64(nil), q.o.Y...)
	other.Y[0] += 1e-9
	nag, lb := fmt.Sprintf("%#v", NAG{}), fmt.Sprintf("%#v", LBFGS{})
	if optimumKey(&other, nag, 1000) == optimumKey(q.o, nag, 1000) || optimumKey(q.o, nag, 999) == optimumKey(q.o, nag, 1000) ||
		optimumKey(q.o, lb, 1000) == optimumKey(q.o, nag, 1000) || optimumKey(q.o, fmt.Sprintf("%#v", LBFGS{Memory: 5}), 1000) == optimumKey(q.o, lb, 1000) {
		t.Error("cache key ignores the data, the iteration count or the method")
	}
	// L-BFGS reaches NAG's estimate (both near the true minimum of this
	// strongly convex problem) in far fewer iterations.
	fl, err := OptimumWith(q.o, LBFGS{}, 200, "")
	if err != nil {
		t.Fatal(err)
	}
	for k := range fl {
		if math.Abs(fl[k]-f1[k]) > 1e-10*(1+math.Abs(f1[k])) {
			t.Errorf("f*_%d: L-BFGS (200 iterations) %.12g, NAG (1000) %.12g", k, fl[k], f1[k])
		}
	}
}

func TestNelderMead1D(t *testing.T) {
	calls := 0
	x, fx := nelderMead1D(func(x float64) float64 { calls++; return (x - 2) * (x - 2) }, 0, 1, 1e-3, 100)
	if math.Abs(x-2) > 1e-3 || fx > 1e-6 {
		t.Errorf("minimum at %g (value %g), want 2", x, fx)
	}
	if calls > 100 {
		t.Errorf("%d evaluations, limit 100", calls)
	}
}

func TestTuneDelta(t *testing.T) {
	o := deblur(t, 2, 16)
	iters := 20
	d, err := TuneDelta(o, iters)
	if err != nil {
		t.Fatal(err)
	}
	at := func(delta float64) float64 {
		v, err := MeanAfter(PreconditionedGD{Delta: delta}, o, iters)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	best := at(d)
	for _, f := range []float64{0.25, 4} {
		if v := at(d * f); v < best {
			t.Errorf("δ = %g gives mean %.10g, but %g·δ gives %.10g", d, best, f, v)
		}
	}
	t.Logf("tuned δ = %.4g (mean objective %.10g after %d iterations)", d, best, iters)
}

// Once L-BFGS has converged to the limit of precision, further iterations
// cost no evaluations and leave the iterates where they are.
func TestLBFGSStopsEvaluatingAtPrecisionLimit(t *testing.T) {
	o := deblur(t, 2, 10)
	it, err := LBFGS{}.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 400; i++ {
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
	}
	before := append([]int(nil), it.(Evaluator).Evaluations()...)
	x := append([]float64(nil), it.X()...)
	for i := 0; i < 50; i++ {
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
	}
	after := it.(Evaluator).Evaluations()
	for k := range before {
		if after[k] != before[k] {
			t.Errorf("function %d: %d evaluations in 50 iterations after 400 (converged)", k, after[k]-before[k])
		}
	}
	for i := range x {
		if x[i] != it.X()[i] {
			t.Fatal("a converged iterate moved")
		}
	}
	_, g := values(t, o, x)
	if n := math.Sqrt(dot(g, g)); n > 1e-6 {
		t.Errorf("‖∇f‖ = %g after 400 iterations: not converged", n)
	}
}

func TestParsePGDWithDelta(t *testing.T) {
	m, err := ParseMethod("pgd:0.05")
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := m.(PreconditionedGD); !ok || p.Delta != 0.05 || p.Name() != "pgd(δ=0.05)" {
		t.Errorf("pgd:0.05 parsed as %#v named %q", m, m.Name())
	}
	for _, bad := range []string{"pgd:", "pgd:-1", "pgd:x", "pgd:inf"} {
		if _, err := ParseMethod(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
