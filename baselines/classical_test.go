package baselines

import (
	"math"
	"strings"
	"testing"
)

// TestSilverSchedule checks the first 15 normalised steps h_t against the
// closed forms of Altschuler and Parrilo's silver schedule (the schedule of
// length 2^4 − 1 = 15, π⁽⁴⁾ = [π⁽³⁾, 1 + ρ², π⁽³⁾], ρ = 1 + √2), and that
// SilverGD takes exactly those steps divided by L.
func TestSilverSchedule(t *testing.T) {
	r2 := math.Sqrt2
	// π⁽³⁾ = [√2, 2, √2, 2 + √2, √2, 2, √2]; 1 + ρ² = 4 + 2√2.
	p3 := []float64{r2, 2, r2, 2 + r2, r2, 2, r2}
	want := append(append(append([]float64(nil), p3...), 4+2*r2), p3...)
	for i, w := range want {
		if h := SilverStep(i + 1); math.Abs(h-w) > 1e-14*w {
			t.Errorf("h_%d = %.17g, want %.17g", i+1, h, w)
		}
	}
	// Later powers of two: h_(2^j) = 1 + ρ^(j−1).
	for j := 4; j <= 10; j++ {
		if h, w := SilverStep(1<<j), 1+math.Pow(1+r2, float64(j-1)); math.Abs(h-w) > 1e-13*w {
			t.Errorf("h_%d = %g, want %g", 1<<j, h, w)
		}
		if h := SilverStep(3 << j); h != SilverStep(1<<j) {
			t.Errorf("h_%d = %g, want h_%d = %g (same 2-adic valuation)", 3<<j, h, 1<<j, SilverStep(1<<j))
		}
	}
	if !math.IsNaN(SilverStep(0)) {
		t.Error("SilverStep(0) is not NaN")
	}

	// The iterates are gradient steps of those sizes.
	q := newIllQuadratic(t, 2, 6, 6, 100, 3)
	q.o.L = 2 // any L: the steps are h_t/L
	it, err := SilverGD{}.Start(q.o)
	if err != nil {
		t.Fatal(err)
	}
	x := append([]float64(nil), q.o.X0...)
	for n := 1; n <= 15; n++ {
		_, g := values(t, q.o, x)
		for i := range x {
			x[i] -= want[n-1] / 2 * g[i]
		}
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
		if d := relDist(it.X(), x, q.o.ImageLen()); d > 1e-12 {
			t.Fatalf("iteration %d: ‖x_silver − x_manual‖/‖x_manual‖ = %g", n, d)
		}
	}
}

// TestSilverGuarantee checks the bound of Altschuler and Parrilo's Theorem
// 1.1, f(x_n) − f* ≤ L‖x⁰ − x*‖²/(1 + √(4ρ^(2k) − 3)) at n = 2^k − 1, on an
// ill-conditioned quadratic whose minimisers are known exactly.
func TestSilverGuarantee(t *testing.T) {
	q := newIllQuadratic(t, 3, 8, 8, 1e6, 4)
	hw := q.o.ImageLen()
	it, err := SilverGD{}.Start(q.o)
	if err != nil {
		t.Fatal(err)
	}
	rho := 1 + math.Sqrt2
	for n, k := 1, 1; k <= 9; n++ {
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
		if n != 1<<k-1 {
			continue
		}
		f, _ := values(t, q.o, it.X())
		rate := q.o.L / (1 + math.Sqrt(4*math.Pow(rho, float64(2*k))-3))
		for j := range f {
			var d2 float64
			for i := j * hw; i < (j+1)*hw; i++ {
				d2 += (q.o.X0[i] - q.xstar[i]) * (q.o.X0[i] - q.xstar[i])
			}
			if gap := f[j] - q.fstar[j]; gap > rate*d2 {
				t.Errorf("n = %d, function %d: f − f* = %.4g > %.4g·‖x⁰ − x*‖² = %.4g", n, j, gap, rate, rate*d2)
			}
		}
		k++
	}
}

// TestClassicalBaselinesConverge runs the stronger classical baselines on an
// ill-conditioned strongly convex quadratic (κ = 10⁴) and on small synthetic
// Huber-TV deblurring (Problem 1): each must reach a stated mean optimality
// at a stated iteration and beat gradient descent there by a factor 4.
// (Measured when written, ill-conditioned at t = 1023 and deblurring at
// t = 255: gd 1.5e-1 / 1.9e-3, silver 1.7e-2 / 9.5e-5, nag-restart
// 2.6e-7 / 8.7e-7, bb 3.4e-6 / 5.7e-7, lbfgs 1e-16 / 0 at the accuracy of
// f*, lbfgs(m=3) 5.2e-9 / 1.2e-11.)
func TestClassicalBaselinesConverge(t *testing.T) {
	q := newIllQuadratic(t, 3, 16, 16, 1e4, 2)
	d := deblur(t, 2, 16)
	fd, err := Optimum(d, 3000, "")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		q      *quadratic
		fstar  []float64
		iters  int
		bounds map[string]float64
	}{
		{"ill-conditioned quadratic", q, q.fstar, 1023, map[string]float64{
			"silver": 5e-2, "nag-restart": 1e-6, "nag-restart(function)": 1e-6, "bb": 2e-5, "lbfgs": 1e-12, "lbfgs(m=3)": 1e-7,
		}},
		{"deblurring", &quadratic{o: d}, fd, 255, map[string]float64{
			"silver": 3e-4, "nag-restart": 3e-6, "nag-restart(function)": 3e-6, "bb": 3e-6, "lbfgs": 1e-8, "lbfgs(m=3)": 1e-8,
		}},
	}
	run := func(m Method, c *quadratic, fstar []float64, iters int) float64 {
		it, err := m.Start(c.o)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < iters; n++ {
			if err := it.Next(); err != nil {
				t.Fatalf("%s: %v", m.Name(), err)
			}
		}
		return optimality(t, c.o, fstar, it.X())
	}
	for _, c := range cases {
		gd := run(GradientDescent{}, c.q, c.fstar, c.iters)
		for _, m := range []Method{SilverGD{}, RestartNAG{}, RestartNAG{Scheme: RestartFunction}, BarzilaiBorwein{}, LBFGS{}, LBFGS{Memory: 3}} {
			bound, ok := c.bounds[m.Name()]
			if !ok {
				t.Fatalf("no bound for %s", m.Name())
			}
			v := run(m, c.q, c.fstar, c.iters)
			t.Logf("%s, t = %d: %s %.3g (gd %.3g)", c.name, c.iters, m.Name(), v, gd)
			if !(v <= bound) {
				t.Errorf("%s, t = %d: %s has mean optimality %.3g, want ≤ %g", c.name, c.iters, m.Name(), v, bound)
			}
			if !(v < gd/4) {
				t.Errorf("%s, t = %d: %s has mean optimality %.3g, not 4 times below gradient descent's %.3g", c.name, c.iters, m.Name(), v, gd)
			}
		}
	}
}

// TestRestartFires checks that the adaptive restart fires on an
// ill-conditioned quadratic (κ = 10³), where NAG's momentum makes it oscillate, and
// that it improves on NAG without restart; and that before its first restart
// a function follows NAG's iterates exactly.
func TestRestartFires(t *testing.T) {
	q := newIllQuadratic(t, 3, 16, 16, 1e3, 5)
	hw := q.o.ImageLen()
	for _, scheme := range []RestartScheme{RestartGradient, RestartFunction} {
		m := RestartNAG{Scheme: scheme}
		plain, err := NAG{}.Start(q.o)
		if err != nil {
			t.Fatal(err)
		}
		it, err := m.Start(q.o)
		if err != nil {
			t.Fatal(err)
		}
		restarts := it.(interface{ Restarts() []int }).Restarts()
		first := make([]int, q.o.N)
		for n := 1; n <= 1000; n++ {
			if err := plain.Next(); err != nil {
				t.Fatal(err)
			}
			if err := it.Next(); err != nil {
				t.Fatal(err)
			}
			for k := range first {
				if first[k] > 0 {
					continue
				}
				if restarts[k] > 0 {
					first[k] = n
					continue
				}
				a, b := it.X()[k*hw:(k+1)*hw], plain.X()[k*hw:(k+1)*hw]
				for i := range a {
					if a[i] != b[i] {
						t.Fatalf("%s: function %d differs from NAG at iteration %d before any restart", m.Name(), k, n)
					}
				}
			}
		}
		vr, vp := optimality(t, q.o, q.fstar, it.X()), optimality(t, q.o, q.fstar, plain.X())
		t.Logf("%s: restarts %v (first at %v); optimality at t = 1000 %.3g, NAG %.3g", m.Name(), restarts, first, vr, vp)
		for k, r := range restarts {
			if r == 0 {
				t.Errorf("%s: function %d never restarted in 1000 iterations", m.Name(), k)
			}
		}
		if !(vr < vp/20) {
			t.Errorf("%s: mean optimality %.3g at t = 1000, not 20 times below NAG's %.3g", m.Name(), vr, vp)
		}
	}
	// NAG itself never restarts.
	it, err := NAG{}.Start(q.o)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < 300; n++ {
		if err := it.Next(); err != nil {
			t.Fatal(err)
		}
	}
	for k, r := range it.(interface{ Restarts() []int }).Restarts() {
		if r != 0 {
			t.Errorf("nag: function %d restarted %d times", k, r)
		}
	}
}

// TestBBNonmonotone checks the nonmonotone line search on an ill-conditioned
// quadratic, where BB steps raise f often: steps that raise f are accepted,
// every accepted value lies below the reference value (the maximum of the
// last M values) the search compared it with, and the reference value never
// increases and decreases over the run. With M = 1 the search is monotone.
func TestBBNonmonotone(t *testing.T) {
	q := newIllQuadratic(t, 3, 16, 16, 1e4, 6)
	for _, mem := range []int{10, 1} {
		it, err := BarzilaiBorwein{Memory: mem}.Start(q.o)
		if err != nil {
			t.Fatal(err)
		}
		bb := it.(*bbIterator)
		first := bb.References()
		prevF := append([]float64(nil), bb.Values()...)
		rises := 0
		for n := 1; n <= 300; n++ {
			ref := bb.References()
			if err := it.Next(); err != nil {
				t.Fatal(err)
			}
			after := bb.References()
			for k, f := range bb.Values() {
				if f > ref[k] {
					t.Fatalf("M = %d, iteration %d, function %d: accepted f = %.17g above the reference %.17g", mem, n, k, f, ref[k])
				}
				if after[k] > ref[k] {
					t.Fatalf("M = %d, iteration %d, function %d: reference value rose from %.17g to %.17g", mem, n, k, ref[k], after[k])
				}
				if f > prevF[k] {
					rises++
				}
				prevF[k] = f
			}
		}
		nonmono := bb.NonmonotoneSteps()
		t.Logf("M = %d: accepted steps that raised f %v (counted from outside: %d), failures %v", mem, nonmono, rises, bb.Failures())
		total := 0
		for k, r := range nonmono {
			total += r
			if last := bb.References()[k]; !(last < first[k]/5) {
				t.Errorf("M = %d, function %d: reference value %.4g after 300 iterations, from %.4g", mem, k, last, first[k])
			}
		}
		if total != rises {
			t.Errorf("M = %d: NonmonotoneSteps counts %d rises, the values rose %d times", mem, total, rises)
		}
		if mem > 1 && total == 0 {
			t.Errorf("M = %d: no accepted step raised f: the search never used its nonmonotonicity", mem)
		}
		if mem == 1 && total != 0 {
			t.Errorf("M = 1: %d accepted steps raised f", total)
		}
	}
}

// TestBBLockstep checks that the functions' line searches share batched
// evaluations, and that an iteration whose first trials are all accepted
// costs one evaluation (f and ∇f together).
func TestBBLockstep(t *testing.T) {
	shared, single, _ := lockstepRun(t, BarzilaiBorwein{Memory: 1}, 7, 20) // monotone: more backtracking
	if shared == 0 || single == 0 {
		t.Errorf("no evaluations shared (%d) or no iteration of one evaluation (%d)", shared, single)
	}
}

func TestParseClassicalMethods(t *testing.T) {
	cases := map[string]string{
		"silver":               "silver",
		"nag-restart":          "nag-restart",
		"nag-restart:gradient": "nag-restart",
		"nag-restart:function": "nag-restart(function)",
		"bb":                   "bb",
		"bb:m=5":               "bb(m=5)",
		"lbfgs:m=5":            "lbfgs(m=5)",
		"LBFGS:20":             "lbfgs(m=20)",
		"lbfgs:m=10":           "lbfgs",
	}
	for in, want := range cases {
		m, err := ParseMethod(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if m.Name() != want {
			t.Errorf("ParseMethod(%q).Name() = %q, want %q", in, m.Name(), want)
		}
	}
	if m, _ := ParseMethod("lbfgs:m=5"); m.(LBFGS).Memory != 5 {
		t.Errorf("lbfgs:m=5 parsed as %#v", m)
	}
	for _, bad := range []string{"lbfgs:", "lbfgs:m=0", "lbfgs:m=x", "bb:m=-1", "nag-restart:speed"} {
		if _, err := ParseMethod(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	names := strings.Join(MethodNames(), ",")
	for _, n := range []string{"silver", "nag-restart", "bb"} {
		if !strings.Contains(","+names+",", ","+n+",") {
			t.Errorf("MethodNames() = %s lacks %s", names, n)
		}
	}
}

// TestTuneLBFGSMemory checks that the chosen memory has the best score, that
// the scores are the mean optimalities of LBFGS runs, and the tie rule.
func TestTuneLBFGSMemory(t *testing.T) {
	o := deblur(t, 2, 16)
	fstar, err := Optimum(o, 2000, "")
	if err != nil {
		t.Fatal(err)
	}
	best, scores, err := TuneLBFGSMemory(o, fstar, 25, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(scores) != len(LBFGSMemories) {
		t.Fatalf("%d scores for %d memories", len(scores), len(LBFGSMemories))
	}
	t.Logf("best memory %d; scores %v", best, scores)
	for _, s := range scores {
		it, err := LBFGS{Memory: s.Memory}.Start(o)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < 25; n++ {
			if err := it.Next(); err != nil {
				t.Fatal(err)
			}
		}
		if v := optimality(t, o, fstar, it.X()); math.Abs(v-s.Score) > 1e-12*math.Abs(v) {
			t.Errorf("memory %d: score %.10g, mean optimality %.10g", s.Memory, s.Score, v)
		}
		if s.Memory == best {
			continue
		}
		for _, b := range scores {
			if b.Memory == best && !(b.Score <= s.Score) {
				t.Errorf("chose memory %d (%.4g) over %d (%.4g)", best, b.Score, s.Memory, s.Score)
			}
		}
	}
	// After one iteration (a steepest-descent step, whatever the memory) all
	// memories tie, and the tie goes to the smallest.
	if best, scores, err := TuneLBFGSMemory(o, nil, 1, []int{20, 5, 40}); err != nil || best != 5 {
		t.Errorf("tie: best memory %d (scores %v), %v; want 5", best, scores, err)
	}
	if _, _, err := TuneLBFGSMemory(o, fstar[:1], 5, nil); err == nil {
		t.Error("wrong number of f* accepted")
	}
	if _, _, err := TuneLBFGSMemory(o, nil, 5, []int{0}); err == nil {
		t.Error("memory 0 accepted")
	}
}
