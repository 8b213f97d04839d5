package greedy

import (
	"math"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/internal/testsupport"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
)

// bgdTrace runs l on o for iters iterations and returns f_k(x^t) and
// ‖∇f_k(x^t)‖ for t = 0…iters (fewer if Next fails: the error is returned)
// and the iterator's acceptance rates.
func bgdTrace(t *testing.T, l *learned.Optimizer, o *problem.Objective, iters int) (f, gn [][]float64, iterates [][]float64, acc []float64, err error) {
	t.Helper()
	it, err := l.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	hw := o.ImageLen()
	grad := make([]float64, len(o.X0))
	rec := func(x []float64) {
		v := make([]float64, o.N)
		if err := o.Eval(v, grad, x, nil); err != nil {
			t.Fatal(err)
		}
		g := make([]float64, o.N)
		for k := range g {
			gk := grad[k*hw : (k+1)*hw]
			g[k] = math.Sqrt(kernels.Dot(gk, gk))
		}
		f, gn = append(f, v), append(gn, g)
		iterates = append(iterates, append([]float64(nil), x...))
	}
	rec(o.X0)
	for range iters {
		if err = it.Next(); err != nil {
			break
		}
		rec(it.X())
	}
	return f, gn, iterates, it.(interface{ Acceptance() []float64 }).Acceptance(), err
}

// With the BGD safeguard, an adversarial learned step (a huge step, an
// ascent step, momentum beyond 1) still gives gradient descent's descent
// inequality f(x^{t+1}) ≤ f(x^t) − (τ/2)‖∇f(x^t)‖² at every iteration and on
// every function, hence its bound on min_t ‖∇f(x^t)‖; a step that always
// loses to the gradient step is never accepted.
func TestBGDSafeguardAdversarial(t *testing.T) {
	o := deblurSet(t, 3, 12, 9)
	tau := 1 / o.L
	const iters = 200
	cases := []struct {
		name        string
		method      string
		theta, phi  float64
		neverAccept bool
	}{
		{"huge step 1000τ", "ps", 1000 * tau, 0, true},
		{"ascent step −τ", "ps", -tau, 0, true},
		// Accepted at times: today's rule (f(x_L) ≤ f(x)) then breaks the
		// descent inequality (checked below), the BGD rule does not.
		{"step τ, momentum 1.5", "m-ps", tau, 1.5, false},
	}
	violations := func(f, gn [][]float64) int {
		n := 0
		for s := 0; s+1 < len(f); s++ {
			for k := range f[s] {
				if f[s+1][k] > f[s][k]-tau/2*gn[s][k]*gn[s][k]+1e-12*math.Abs(f[s][k]) {
					n++
				}
			}
		}
		return n
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := method(t, c.method)
			var phi [][]float64
			if m.H != nil {
				phi = [][]float64{m.H.Reference(c.phi, o.H, o.W)}
			}
			l, err := learned.New("adversary", m, o.H, o.W, [][]float64{m.G.Reference(c.theta, o.H, o.W)}, phi)
			if err != nil {
				t.Fatal(err)
			}
			// Unguarded, the step raises f or diverges.
			f, _, _, _, err := bgdTrace(t, l, o, 30)
			if err == nil {
				last := f[len(f)-1]
				for k := range last {
					if !(last[k] > f[0][k]) {
						t.Fatalf("unguarded, f_%d went %g → %g in 30 iterations: the step is not adversarial", k, f[0][k], last[k])
					}
				}
			}
			if !c.neverAccept {
				l.Safeguard, l.SafeguardRule = tau, learned.SafeguardDecrease
				f, gn, _, _, err := bgdTrace(t, l, o, iters)
				if err != nil {
					t.Fatal(err)
				}
				if violations(f, gn) == 0 {
					t.Errorf("today's rule kept the descent inequality: the case does not tell the rules apart")
				}
			}
			l.Safeguard, l.SafeguardRule = tau, learned.SafeguardBGD
			f, gn, _, acc, err := bgdTrace(t, l, o, iters)
			if err != nil {
				t.Fatalf("with the BGD safeguard: %v", err)
			}
			if len(acc) != iters {
				t.Fatalf("%d acceptance rates for %d iterations", len(acc), iters)
			}
			accepted := 0.0
			for _, a := range acc {
				if a < 0 || a > 1 {
					t.Fatalf("acceptance rate %g", a)
				}
				accepted += a
			}
			if c.neverAccept && accepted != 0 {
				t.Errorf("the safeguard accepted an adversarial step (rates %v)", acc)
			}
			if !c.neverAccept && (accepted == 0 || accepted == iters) {
				t.Errorf("the momentum adversary's steps were all accepted or all rejected (%g of %d iterations): the case tests neither mixture", accepted, iters)
			}
			for k := range o.N {
				sum, minG := 0.0, math.Inf(1)
				for s := 0; s < iters; s++ {
					bound := f[s][k] - tau/2*gn[s][k]*gn[s][k]
					if f[s+1][k] > bound+1e-12*math.Abs(f[s][k]) {
						t.Fatalf("f_%d: iteration %d: f(x^{t+1}) = %.17g > f(x^t) − (τ/2)‖∇f(x^t)‖² = %.17g", k, s+1, f[s+1][k], bound)
					}
					sum += gn[s][k] * gn[s][k]
					minG = math.Min(minG, gn[s][k])
				}
				// Σ‖∇f‖² ≤ 2(f(x⁰) − f(x^T))/τ, so min‖∇f‖ ≤ √(2(f(x⁰) − f(x^T))/(τT)).
				drop := f[0][k] - f[iters][k]
				if sum > 2*drop/tau*(1+1e-9) {
					t.Errorf("f_%d: Σ‖∇f‖² = %g > 2(f(x⁰) − f(x^T))/τ = %g", k, sum, 2*drop/tau)
				}
				if b := math.Sqrt(2 * drop / (tau * iters)); minG > b {
					t.Errorf("f_%d: min ‖∇f‖ = %g above the bound %g", k, minG, b)
				}
				if gn[iters][k] > 0.05*gn[0][k] {
					t.Errorf("f_%d: ‖∇f‖ %g → %g in %d iterations: not decreasing to 0", k, gn[0][k], gn[iters][k], iters)
				}
			}
		})
	}
}

// A good learned step (greedy M-PS trained on the functions) is accepted by
// the BGD safeguard at its trained iterations, and while every step is
// accepted the iterates are bitwise those of Algorithm 2 without safeguard.
func TestBGDSafeguardKeepsGoodSteps(t *testing.T) {
	o := deblurSet(t, 4, 12, 3)
	m := method(t, "m-ps")
	res, err := Train(o, Config{Method: Method{Param: m}, Stop: Stop{MaxSteps: 6}, Store: Store{KeepParams: true}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := learned.New("m-ps", m, o.H, o.W, res.Theta, res.Phi)
	if err != nil {
		t.Fatal(err)
	}
	const iters = 40
	_, _, plain, _, err := bgdTrace(t, l, o, iters)
	if err != nil {
		t.Fatal(err)
	}
	g := *l
	g.Safeguard, g.SafeguardRule = 1/o.L, learned.SafeguardBGD
	_, _, guarded, acc, err := bgdTrace(t, &g, o, iters)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Theta) < 3 {
		t.Fatalf("training stopped after %d steps (%s)", len(res.Theta), res.StopCause)
	}
	for s := range len(res.Theta) {
		if acc[s] != 1 {
			t.Fatalf("iteration %d of the trained steps: acceptance %g, want 1 (rates %v)", s+1, acc[s], acc)
		}
	}
	for s := range iters {
		if acc[s] != 1 {
			break
		}
		for i, v := range guarded[s+1] {
			if v != plain[s+1][i] {
				t.Fatalf("iteration %d, every step accepted: guarded iterate %g differs from the unguarded %g at %d", s+1, v, plain[s+1][i], i)
			}
		}
	}
	// The default rule is the one of old: "" and "decrease" agree bitwise.
	d := *l
	d.Safeguard = 1 / o.L
	_, _, def, _, err := bgdTrace(t, &d, o, iters)
	if err != nil {
		t.Fatal(err)
	}
	d.SafeguardRule = learned.SafeguardDecrease
	_, _, dec, _, err := bgdTrace(t, &d, o, iters)
	if err != nil {
		t.Fatal(err)
	}
	for s := range def {
		for i := range def[s] {
			if def[s][i] != dec[s][i] {
				t.Fatalf("iteration %d: the rules \"\" and %q differ", s, learned.SafeguardDecrease)
			}
		}
	}
	d.SafeguardRule = "bogus"
	if _, err := d.Start(o); err == nil {
		t.Error("Start accepted the safeguard rule \"bogus\"")
	}
}

func TestParseSafeguardRule(t *testing.T) {
	for in, want := range map[string]string{"": learned.SafeguardDecrease, "decrease": learned.SafeguardDecrease, "BGD": learned.SafeguardBGD, " bgd ": learned.SafeguardBGD} {
		if got, err := learned.ParseSafeguardRule(in); err != nil || got != want {
			t.Errorf("ParseSafeguardRule(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := learned.ParseSafeguardRule("none"); err == nil {
		t.Error("ParseSafeguardRule accepted \"none\"")
	}
}

// Where the computed f(x_g) exceeds f(x) (here an L four times too small,
// so that τ = 4/L_true; in practice rounding, once (τ/2)‖∇f‖² is below the
// rounding error of f) the BGD rule keeps x: f never rises, whatever the
// learned step and the L given.
func TestBGDSafeguardNeverRaisesF(t *testing.T) {
	o := deblurSet(t, 3, 12, 9)
	wrong := *o
	wrong.L = o.L / 4
	tau := 1 / wrong.L
	m := method(t, "ps")
	l, err := learned.New("adversary", m, o.H, o.W, [][]float64{m.G.Reference(1000/o.L, o.H, o.W)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Safeguard, l.SafeguardRule = tau, learned.SafeguardBGD
	const iters = 100
	f, _, xs, acc, err := bgdTrace(t, l, &wrong, iters)
	if err != nil {
		t.Fatal(err)
	}
	hw, stays := o.ImageLen(), 0
	for s := range iters {
		if acc[s] != 0 {
			t.Errorf("iteration %d: the adversarial step was accepted (%g)", s+1, acc[s])
		}
		for k := range o.N {
			if f[s+1][k] > f[s][k] {
				t.Fatalf("f_%d rose at iteration %d: %.17g → %.17g", k, s+1, f[s][k], f[s+1][k])
			}
			same := true
			for i := k * hw; i < (k+1)*hw && same; i++ {
				same = xs[s+1][i] == xs[s][i]
			}
			if same {
				stays++
			}
		}
	}
	if stays == 0 {
		t.Error("no function kept its iterate: the case does not reach the rule's last branch")
	}
	// The gradient steps 4/L_true alone raise f.
	l.SafeguardRule = learned.SafeguardDecrease
	f, _, _, _, err = bgdTrace(t, l, &wrong, iters)
	rose := err != nil
	for s := 0; s+1 < len(f) && !rose; s++ {
		for k := range f[s] {
			rose = rose || f[s+1][k] > f[s][k]
		}
	}
	if !rose {
		t.Error("with today's rule and τ = 4/L_true f never rose: the case tests nothing")
	}
}

// With an objective bound to its whole batch (a device's evaluator, a
// float32 evaluation), the BGD safeguard evaluates the functions it rejects
// with the whole batch: the momentum adversary (accepted at times, so some
// iterations take the gradient step for part of the batch) runs the same
// iterates as with the CPU's Eval (to 1e-10 on the CPU device's evaluator),
// and in float32 without error.
func TestBGDSafeguardWholeBatchObjectives(t *testing.T) {
	o := deblurSet(t, 3, 12, 9)
	tau := 1 / o.L
	m := method(t, "m-ps")
	l, err := learned.New("adversary", m, o.H, o.W, [][]float64{m.G.Reference(tau, o.H, o.W)}, [][]float64{m.H.Reference(1.5, o.H, o.W)})
	if err != nil {
		t.Fatal(err)
	}
	l.Safeguard, l.SafeguardRule = tau, learned.SafeguardBGD
	const iters = 60
	_, _, want, acc, err := bgdTrace(t, l, o, iters)
	if err != nil {
		t.Fatal(err)
	}
	partial := false
	for _, a := range acc {
		partial = partial || (a > 0 && a < 1)
	}
	if !partial {
		t.Fatalf("no iteration rejected part of the batch (rates %v): the case does not test the sub-batch", acc)
	}
	be, err := ondevice.NewBatchEvaluator(gpu.CPU(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	it, err := l.Start(o.OnEvaluator(be))
	if err != nil {
		t.Fatal(err)
	}
	for s := range iters {
		if err := it.Next(); err != nil {
			t.Fatalf("iteration %d on the device's evaluator: %v", s+1, err)
		}
		if d := testsupport.NormDiff(it.X(), want[s+1]); d > 1e-10 {
			t.Fatalf("iteration %d: iterates differ from the CPU's by %.2g", s+1, d)
		}
	}
	o32, err := o.InPrecision(problem.Float32)
	if err != nil {
		t.Fatal(err)
	}
	if it, err = l.Start(o32); err != nil {
		t.Fatal(err)
	}
	for s := range iters {
		if err := it.Next(); err != nil {
			t.Fatalf("iteration %d in float32: %v", s+1, err)
		}
	}
}
