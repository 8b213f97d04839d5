package eval

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/problem"
)

// perFunctionGuard is gradient descent with a per-function safeguard
// record: at iteration t it "rejects" function k's step when (k+t)%3 == 0
// (counted, the step taken all the same), and from iteration blowAt on
// function blowK's step is so long that its iterate leaves the finite
// numbers (a divergence inside Next, as a learned method reports it).
// first is the index of the objective's first function in the whole set;
// with slow, function blowK's step is 3 instead (its optimality grows
// slowly, so the mean of a shard that holds it crosses Options.DivergeAbove
// before the whole set's mean does).
type perFunctionGuard struct {
	blowK, blowAt, first int
	slow                 bool
}

func (g perFunctionGuard) Name() string { return fmt.Sprintf("guarded (slow %v)", g.slow) }
func (g perFunctionGuard) Start(o *problem.Objective) (baselines.Iterator, error) {
	return &pfgIterator{g: g, o: o, first: g.first, x: append([]float64(nil), o.X0...), grad: make([]float64, len(o.X0))}, nil
}

type pfgIterator struct {
	g        perFunctionGuard
	o        *problem.Objective
	first, t int
	x, grad  []float64
	acc      []float64
	rejected int
}

func (it *pfgIterator) Next() error {
	it.t++
	if err := it.o.Eval(nil, it.grad, it.x, nil); err != nil {
		return err
	}
	hw, n := it.o.ImageLen(), 0
	for k := 0; k < it.o.N; k++ {
		step := 0.5
		if it.first+k == it.g.blowK && it.t >= it.g.blowAt {
			step = math.Inf(1)
			if it.g.slow {
				step = 3
			}
		}
		for i := k * hw; i < (k+1)*hw; i++ {
			it.x[i] -= step * it.grad[i]
			if math.IsNaN(it.x[i]) || math.IsInf(it.x[i], 0) {
				return fmt.Errorf("function %d: %w", it.first+k, baselines.ErrDiverged)
			}
		}
		if (it.first+k+it.t)%3 == 0 {
			it.rejected++
		} else {
			n++
		}
	}
	it.acc = append(it.acc, float64(n)/float64(it.o.N))
	return nil
}
func (it *pfgIterator) X() []float64          { return it.x }
func (it *pfgIterator) Rejected() int         { return it.rejected }
func (it *pfgIterator) Acceptance() []float64 { return append([]float64(nil), it.acc...) }

// shardMethods are the baselines, a gradient descent that diverges by its
// mean optimality (step 50), and a safeguard-like method one of whose
// functions leaves the finite numbers inside Next.
func shardMethods(t *testing.T, first int) []baselines.Method {
	var ms []baselines.Method
	for _, name := range []string{"gd", "heavy-ball", "nag", "lbfgs", "silver", "nag-restart", "bb"} {
		m, err := baselines.ParseMethod(name)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return append(ms, baselines.GradientDescent{Step: 50}, perFunctionGuard{blowK: 5, blowAt: 4, first: first},
		perFunctionGuard{blowK: 2, blowAt: 1, first: first, slow: true})
}

// divergeAbove is low enough for a shard's mean to cross it before the
// whole set's.
const divergeAbove = 5

// runShards evaluates every shard of n on its own objective (as a job of
// an array does) and merges the curves through their JSON files.
func runShards(t *testing.T, o *problem.Objective, fstar []float64, n, iters int) []*Curve {
	var parts [][]*Curve
	for i := 1; i <= n; i++ {
		sh := Shard{Index: i, Count: n}
		idx := sh.Indices(o.N)
		sub, err := o.Subset(idx)
		if err != nil {
			t.Fatal(err)
		}
		curves, err := Run(sub, fstar[idx[0]:idx[0]+len(idx)], shardMethods(t, idx[0]), Options{Iters: iters, PSNRAt: []int{0, 3, iters}, DivergeAbove: divergeAbove, Part: &Part{Shard: sh, First: idx[0], Total: o.N}})
		if err != nil {
			t.Fatalf("shard %s: %v", sh, err)
		}
		var buf bytes.Buffer
		if err := WriteJSON(&buf, curves); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSON(&buf)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, back)
	}
	var merged []*Curve
	for m := range parts[0] {
		var pm []*Curve
		for _, p := range parts {
			pm = append(pm, p[m])
		}
		c, err := Merge(pm)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		merged = append(merged, c)
	}
	return merged
}

// sameBits reports the first difference between a and b (bitwise).
func sameBits(a, b []float64) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d values, want %d", len(a), len(b))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return fmt.Sprintf("value %d is %v, want %v", i, a[i], b[i])
		}
	}
	return ""
}

// TestMergedShardsEqualWhole: the curves of 1, 2, 3 and 5 shards of 7
// functions, merged, equal bitwise those of one run on all 7 (every
// per-function value, mean, minimum, maximum, PSNR, SSIM, acceptance rate,
// divergence and count), for the baselines, a method diverging by its mean
// optimality and one diverging inside an iteration in one shard only.
func TestMergedShardsEqualWhole(t *testing.T) {
	o := testProblem(t, 7, 12)
	iters := 20
	fstar := make([]float64, o.N)
	for k := range fstar {
		fstar[k] = -0.01 * float64(k)
	}
	whole, err := Run(o, fstar, shardMethods(t, 0), Options{Iters: iters, PSNRAt: []int{0, 3, iters}, DivergeAbove: divergeAbove})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range whole[len(whole)-3:] {
		if !c.Diverged() || c.DivergedAt >= iters {
			t.Fatalf("%s did not diverge before iteration %d: %v", c.Method, iters, c.Mean)
		}
	}
	if whole[len(whole)-1].Rejected == 0 {
		t.Fatalf("%s rejected no step", whole[len(whole)-1].Method)
	}
	for _, n := range []int{1, 2, 3, 5} {
		merged := runShards(t, o, fstar, n, iters)
		for m, w := range whole {
			c := merged[m]
			where := fmt.Sprintf("%d shards, %s", n, w.Method)
			if c.Method != w.Method || c.DivergedAt != w.DivergedAt || c.Steps != w.Steps || c.Rejected != w.Rejected || len(c.Iter) != len(w.Iter) {
				t.Fatalf("%s: method %q diverged at %d, %d steps, %d rejected, %d iterations; want %q, %d, %d, %d, %d",
					where, c.Method, c.DivergedAt, c.Steps, c.Rejected, len(c.Iter), w.Method, w.DivergedAt, w.Steps, w.Rejected, len(w.Iter))
			}
			if settingString(c.Setting) != settingString(w.Setting) {
				t.Errorf("%s: setting %v, want %v", where, c.Setting, w.Setting)
			}
			for _, f := range []struct {
				name string
				a, b []float64
			}{{"mean", c.Mean, w.Mean}, {"min", c.Min, w.Min}, {"max", c.Max, w.Max}, {"accepted", c.Accepted, w.Accepted}} {
				if d := sameBits(f.a, f.b); d != "" {
					t.Errorf("%s: %s: %s", where, f.name, d)
				}
			}
			for i := range w.Iter {
				for _, f := range []struct {
					name string
					a, b []float64
				}{{"f", c.F[i], w.F[i]}, {"grad_norm", c.GradNorm[i], w.GradNorm[i]}, {"optimality", c.Optimality[i], w.Optimality[i]}} {
					if d := sameBits(f.a, f.b); d != "" {
						t.Errorf("%s: iteration %d: %s: %s", where, i, f.name, d)
					}
				}
			}
			if len(c.PSNR) != len(w.PSNR) {
				t.Errorf("%s: PSNR at %v, want %v", where, c.PSNRIters(), w.PSNRIters())
			}
			for it, p := range w.PSNR {
				if d := sameBits(c.PSNR[it], p) + sameBits(c.SSIM[it], w.SSIM[it]); d != "" {
					t.Errorf("%s: PSNR/SSIM at %d: %s", where, it, d)
				}
			}
		}
	}
}

// TestMergeRefuses: shards missing, repeated, out of order, of other
// functions or settings are refused, naming the shard.
func TestMergeRefuses(t *testing.T) {
	o := testProblem(t, 4, 8)
	fstar := make([]float64, o.N)
	part := func(i, n int, alpha float64) *Curve {
		sh := Shard{Index: i, Count: n}
		idx := sh.Indices(o.N)
		sub, err := o.Subset(idx)
		if err != nil {
			t.Fatal(err)
		}
		sub.Alpha = alpha
		cs, err := Run(sub, fstar[:len(idx)], []baselines.Method{baselines.GradientDescent{}}, Options{Iters: 2, Part: &Part{Shard: sh, First: idx[0], Total: o.N}})
		if err != nil {
			t.Fatal(err)
		}
		return cs[0]
	}
	a := o.Alpha
	for _, tc := range []struct {
		name  string
		parts []*Curve
		want  string
	}{
		{"missing", []*Curve{part(1, 3, a), part(2, 3, a)}, "shard 1/3 given as shard 1 of 2"},
		{"repeated", []*Curve{part(1, 2, a), part(1, 2, a)}, "shard 1/2 given as shard 2 of 2"},
		{"other setting", []*Curve{part(1, 2, a), part(2, 2, 2*a+1)}, "shard 2/2 was measured in setting"},
		{"whole", []*Curve{{Method: "gd"}}, "not measured on a shard"},
	} {
		if _, err := Merge(tc.parts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

func TestShardBounds(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7} {
		for _, count := range []int{1, 2, 3, 5} {
			next := 0
			for i := 1; i <= count; i++ {
				lo, hi := Shard{i, count}.Bounds(n)
				if lo != next || hi < lo {
					t.Fatalf("%d functions, shard %d/%d: [%d, %d), want from %d", n, i, count, lo, hi, next)
				}
				next = hi
			}
			if next != n {
				t.Errorf("%d functions in %d shards: %d covered", n, count, next)
			}
		}
	}
	for _, bad := range []string{"0/2", "3/2", "1", "a/b", "1/0", "-1/2"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}
