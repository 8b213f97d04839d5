package eval

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/problem"
)

// now is the clock that times the iterations (a test's fake replaces it).
var now = time.Now

// Curve is the record of one method on one test set, indexed by the
// recorded iterations t = 0…T (index i holds iteration Iter[i] = i).
type Curve struct {
	Method string
	// Iter holds the iteration numbers 0…T.
	Iter []int
	// Seconds[t] is the cumulative wall-clock time of the batch's first t
	// calls to Next (Seconds[0] = 0); Start and recording are not counted.
	Seconds []float64
	// F[t][k] = f_k(x_k^t).
	F [][]float64
	// GradNorm[t][k] = ‖∇f_k(x_k^t)‖.
	GradNorm [][]float64
	// Optimality[t][k] = (f_k(x_k^t) − f*_k)/(f_k(x_k^0) − f*_k); it is
	// negative where a method beats the estimate f*_k, and 0 for a function
	// whose starting point is already optimal (f_k(x⁰) ≤ f*_k).
	Optimality [][]float64
	// Mean, Min and Max are taken over k of Optimality[t].
	Mean, Min, Max []float64
	// Setting describes the functions the curve was measured on: problem,
	// operator, regularizer, α, size and every convention (e.g. the blur's
	// boundary), from problem.Objective.Setting.
	Setting map[string]string
	// PSNR[t][k] is the PSNR (peak 1) of x_k^t against the ground truth, at
	// the iterations Options.PSNRAt (empty when the objective has no truth).
	PSNR map[int][]float64
	// SSIM[t][k] is the structural similarity of x_k^t against the ground
	// truth (SSIM), at the same iterations as PSNR.
	SSIM map[int][]float64
	// DivergedAt is the iteration k > 0 at which the method diverged (0 if
	// it did not): an iterate, value or gradient left the finite numbers,
	// or the mean optimality exceeded Options.DivergeAbove. The curve then
	// holds iterations 0…k−1 only, all finite.
	DivergedAt int
	// Part is set on a curve measured on one shard of the functions
	// (Options.Part), for Merge; its Mean, Min and Max are the shard's.
	Part *Part
	// Rejected is the number of learned steps a safeguard replaced by
	// gradient steps, summed over functions (0 for other methods), and
	// Steps the number of steps taken (iterations times functions).
	Rejected, Steps int
	// Accepted[i] is the fraction of the functions whose learned step a
	// safeguard accepted at iteration Iter[i] (NaN at iteration 0, where no
	// step is taken); nil for methods without a safeguard.
	Accepted []float64
}

// AcceptedAt returns the fraction of learned steps accepted at iteration t
// (Curve.Accepted), or NaN when the curve has none for t.
func (c *Curve) AcceptedAt(t int) float64 {
	if t < 0 || t >= len(c.Accepted) || t >= len(c.Iter) || c.Iter[t] != t {
		return math.NaN()
	}
	return c.Accepted[t]
}

// Diverged reports whether the method diverged (Curve.DivergedAt).
func (c *Curve) Diverged() bool { return c.DivergedAt > 0 }

// Status is "" for a curve that ran all its iterations and "diverged at
// iteration k" for one that diverged.
func (c *Curve) Status() string {
	if c.DivergedAt > 0 {
		return fmt.Sprintf("diverged at iteration %d", c.DivergedAt)
	}
	return ""
}

// Options control Run.
type Options struct {
	// Iters is the number T of iterations of every method; 0 means 100.
	Iters int
	// PSNRAt lists the iterations at which to record PSNR and SSIM; nil
	// means {0, T}. Iterations outside 0…T are ignored.
	PSNRAt []int
	// Snapshot, if set, is called with a copy of the first function's
	// iterate x_0^t at the iterations SnapshotAt (and at the last one
	// recorded when SnapshotAt holds a negative number: "final"), for
	// reconstructions.
	Snapshot   func(method string, t int, x []float64)
	SnapshotAt []int
	// Tol lists the optimality tolerances that Summaries reports; nil means
	// DefaultTolerances.
	Tol []float64
	// Progress, if not nil, is called after every recorded iteration.
	Progress func(method string, it int)
	// DivergeAbove is the mean optimality above which a method counts as
	// diverged (Curve.DivergedAt); 0 means DefaultDivergeAbove.
	DivergeAbove float64
	// Precision is the arithmetic the methods evaluate f and ∇f in
	// (problem.Objective.InPrecision; "" is float64). The curves measure f,
	// the gradient norms, the optimality and PSNR of the methods' iterates
	// in float64 whatever it is, so that a float32 curve shows what float32
	// evaluations reach; the curves' Setting records "precision".
	Precision problem.Precision
	// Evaluator, if set, evaluates f and ∇f for the methods instead of the
	// objective's own Eval (problem.Objective.OnEvaluator): the classical
	// methods' gradients and the safeguards' tests then come from a device
	// (ondevice.BatchEvaluator of the same functions). The curves still
	// measure the iterates in float64 on the host, and the curves' Setting
	// records "evaluator". It needs Precision float64.
	Evaluator problem.BatchEvaluator
	// Part, if set, says that the objective is one shard of a larger set
	// (its Shard, First and Total): every curve records it, with the
	// safeguard's counts Merge needs, and the divergence test on the mean
	// optimality is left to Merge, which sees every function.
	Part *Part
}

// DefaultDivergeAbove is the mean optimality (f − f*)/(f(x⁰) − f*) above
// which a method counts as diverged when Options.DivergeAbove is 0.
const DefaultDivergeAbove = 1e10

// DefaultTolerances are the tolerances reported when Options.Tol is nil.
var DefaultTolerances = []float64{1e-4, 1e-6}

// Tolerances returns o.Tol or DefaultTolerances.
func (o Options) Tolerances() []float64 {
	if o.Tol == nil {
		return append([]float64(nil), DefaultTolerances...)
	}
	return o.Tol
}

// Run runs every method for opt.Iters iterations on o and records its curve.
// fstar holds the minimal values f*_k (see baselines.Optimum). On an error
// Run returns the curves completed so far with the error.
func Run(o *problem.Objective, fstar []float64, methods []baselines.Method, opt Options) ([]*Curve, error) {
	if o == nil {
		return nil, fmt.Errorf("eval: objective is nil")
	}
	if len(fstar) != o.N {
		return nil, fmt.Errorf("eval: %d optimal values for %d functions: compute them with baselines.Optimum", len(fstar), o.N)
	}
	for k, f := range fstar {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("eval: optimal value f*_%d = %g is not finite", k, f)
		}
	}
	if len(methods) == 0 {
		return nil, fmt.Errorf("eval: no methods to run")
	}
	T := opt.Iters
	if T == 0 {
		T = 100
	}
	if T < 0 {
		return nil, fmt.Errorf("eval: %d iterations is negative", opt.Iters)
	}
	psnrAt := map[int]bool{}
	if opt.PSNRAt == nil {
		psnrAt[0], psnrAt[T] = true, true
	}
	for _, t := range opt.PSNRAt {
		if t >= 0 && t <= T {
			psnrAt[t] = true
		}
	}
	if o.Truth == nil {
		psnrAt = nil
	} else if len(o.Truth) != len(o.X0) {
		return nil, fmt.Errorf("eval: ground truth has %d values, iterates %d", len(o.Truth), len(o.X0))
	}

	mo, err := o.InPrecision(opt.Precision)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if opt.Evaluator != nil {
		if mo.Precision() != problem.Float64 {
			return nil, fmt.Errorf("eval: an evaluator computes in its own precision: drop precision %s", mo.Precision())
		}
		mo = mo.OnEvaluator(opt.Evaluator)
	}
	var curves []*Curve
	for _, m := range methods {
		if m == nil {
			return curves, fmt.Errorf("eval: method is nil")
		}
		limit := opt.DivergeAbove
		if limit <= 0 {
			limit = DefaultDivergeAbove
		}
		var part *Part
		if opt.Part != nil {
			p := *opt.Part
			p.DivergeAbove, limit = limit, math.Inf(1)
			part = &p
		}
		c, err := runOne(o, mo, fstar, m, T, psnrAt, limit, part, opt.Progress, snapshots(opt, o.ImageLen()))
		if err != nil {
			return curves, err
		}
		curves = append(curves, c)
	}
	return curves, nil
}

// recorder evaluates and stores one method's iterates.
type recorder struct {
	o      *problem.Objective
	fstar  []float64
	psnrAt map[int]bool
	ws     problem.Workspace
	vals   []float64
	grad   []float64
	c      *Curve
}

// rejecter is implemented by iterators of safeguarded methods.
type rejecter interface{ Rejected() int }

// acceptor is implemented by iterators of safeguarded methods: the fraction
// of functions whose learned step was accepted at iterations 1, 2, … (nil
// when the method has no safeguard).
type acceptor interface{ Acceptance() []float64 }

// runOne runs method m on mo (o in the evaluations' precision) and records
// its iterates on o; part, if not nil, is recorded in the curve.
func runOne(o, mo *problem.Objective, fstar []float64, m baselines.Method, T int, psnrAt map[int]bool, limit float64, part *Part, progress func(string, int), snap *snapshotter) (*Curve, error) {
	name := m.Name()
	it, err := m.Start(mo)
	if err != nil {
		return nil, fmt.Errorf("eval: starting %s: %w", name, err)
	}
	if c, ok := it.(io.Closer); ok {
		// Iterators on a device hold its memory until closed.
		defer c.Close()
	}
	r := &recorder{
		o: o, fstar: fstar, psnrAt: psnrAt,
		vals: make([]float64, o.N), grad: make([]float64, len(o.X0)),
		c: &Curve{
			Method:     name,
			Setting:    mo.Setting(),
			Iter:       make([]int, 0, T+1),
			Seconds:    make([]float64, 0, T+1),
			F:          make([][]float64, 0, T+1),
			GradNorm:   make([][]float64, 0, T+1),
			Optimality: make([][]float64, 0, T+1),
			Mean:       make([]float64, 0, T+1),
			Min:        make([]float64, 0, T+1),
			Max:        make([]float64, 0, T+1),
			Part:       part,
		},
	}
	if psnrAt != nil {
		r.c.PSNR, r.c.SSIM = map[int][]float64{}, map[int][]float64{}
	}
	if err := r.record(0, 0, it.X()); err != nil {
		return nil, fmt.Errorf("eval: %s: %w", name, err)
	}
	snap.take(name, 0, it.X())
	if progress != nil {
		progress(name, 0)
	}
	var elapsed time.Duration
	rej, counts := it.(rejecter)
	for t := 1; t <= T; t++ {
		start := now()
		err := it.Next()
		elapsed += now().Sub(start)
		if part != nil && counts {
			part.RejectedAfter = append(part.RejectedAfter, rej.Rejected())
		}
		if err != nil {
			if errors.Is(err, baselines.ErrDiverged) {
				r.c.DivergedAt = t
				break
			}
			return nil, fmt.Errorf("eval: %s, iteration %d: %w", name, t, err)
		}
		if err := r.record(t, elapsed.Seconds(), it.X()); err != nil {
			return nil, fmt.Errorf("eval: %s: %w", name, err)
		}
		if r.diverged(limit) {
			r.drop()
			r.c.DivergedAt = t
			break
		}
		r.c.Steps += o.N
		snap.take(name, t, it.X())
		if progress != nil {
			progress(name, t)
		}
	}
	snap.final(name)
	if counts {
		r.c.Rejected = rej.Rejected()
	}
	if a, ok := it.(acceptor); ok {
		if acc := a.Acceptance(); acc != nil {
			c := r.c
			c.Accepted = make([]float64, len(c.Iter))
			for i, t := range c.Iter {
				c.Accepted[i] = math.NaN()
				if t >= 1 && t <= len(acc) {
					c.Accepted[i] = acc[t-1]
				}
			}
		}
	}
	return r.c, nil
}

// diverged reports whether the last recorded iteration left the finite
// numbers or its mean optimality exceeds limit.
func (r *recorder) diverged(limit float64) bool {
	c := r.c
	n := len(c.Mean) - 1
	if !(c.Mean[n] <= limit) {
		return true
	}
	for k, f := range c.F[n] {
		if math.IsNaN(f) || math.IsInf(f, 0) || math.IsNaN(c.GradNorm[n][k]) || math.IsInf(c.GradNorm[n][k], 0) {
			return true
		}
	}
	return false
}

// drop removes the last recorded iteration.
func (r *recorder) drop() {
	c := r.c
	n := len(c.Iter) - 1
	t := c.Iter[n]
	c.Iter, c.Seconds, c.F, c.GradNorm, c.Optimality = c.Iter[:n], c.Seconds[:n], c.F[:n], c.GradNorm[:n], c.Optimality[:n]
	c.Mean, c.Min, c.Max = c.Mean[:n], c.Min[:n], c.Max[:n]
	delete(c.PSNR, t)
	delete(c.SSIM, t)
}

func (r *recorder) record(t int, seconds float64, x []float64) error {
	o, c := r.o, r.c
	if err := o.Eval(r.vals, r.grad, x, &r.ws); err != nil {
		return fmt.Errorf("recording iteration %d: %w", t, err)
	}
	hw := o.ImageLen()
	f := append([]float64(nil), r.vals...)
	gn := make([]float64, o.N)
	opt := make([]float64, o.N)
	for k := range f {
		g := r.grad[k*hw : (k+1)*hw]
		gn[k] = math.Sqrt(kernels.Dot(g, g))
	}
	var f0 []float64
	if t == 0 {
		f0 = f
	} else {
		f0 = c.F[0]
	}
	mean, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	for k := range f {
		den := f0[k] - r.fstar[k]
		if den > 0 {
			opt[k] = (f[k] - r.fstar[k]) / den
		}
		mean += opt[k]
		lo, hi = math.Min(lo, opt[k]), math.Max(hi, opt[k])
	}
	c.Iter = append(c.Iter, t)
	c.Seconds = append(c.Seconds, seconds)
	c.F = append(c.F, f)
	c.GradNorm = append(c.GradNorm, gn)
	c.Optimality = append(c.Optimality, opt)
	c.Mean = append(c.Mean, mean/float64(o.N))
	c.Min = append(c.Min, lo)
	c.Max = append(c.Max, hi)
	if r.psnrAt[t] {
		p := make([]float64, o.N)
		for k := range p {
			p[k] = PSNR(x[k*hw:(k+1)*hw], o.Truth[k*hw:(k+1)*hw])
		}
		c.PSNR[t] = p
		s := make([]float64, o.N)
		for k := range s {
			s[k] = SSIM(x[k*hw:(k+1)*hw], o.Truth[k*hw:(k+1)*hw], o.H, o.W)
		}
		c.SSIM[t] = s
	}
	return nil
}

// snapshotter hands the first function's iterates to Options.Snapshot.
type snapshotter struct {
	fn       func(method string, t int, x []float64)
	at       map[int]bool
	wantLast bool
	hw       int
	last     []float64
	lastIter int
}

func snapshots(opt Options, hw int) *snapshotter {
	if opt.Snapshot == nil {
		return nil
	}
	s := &snapshotter{fn: opt.Snapshot, at: map[int]bool{}, hw: hw}
	for _, t := range opt.SnapshotAt {
		if t < 0 {
			s.wantLast = true
		} else {
			s.at[t] = true
		}
	}
	return s
}

func (s *snapshotter) take(method string, t int, x []float64) {
	if s == nil {
		return
	}
	if s.at[t] {
		s.fn(method, t, append([]float64(nil), x[:s.hw]...))
	}
	if s.wantLast {
		s.last, s.lastIter = append(s.last[:0], x[:s.hw]...), t
	}
}

// final hands over the last finite iterate taken, unless it was handed over.
func (s *snapshotter) final(method string) {
	if s != nil && s.wantLast && s.last != nil && !s.at[s.lastIter] {
		s.fn(method, s.lastIter, s.last)
	}
	if s != nil {
		s.last = nil
	}
}

// ItersTo returns the first recorded iteration whose mean optimality is at
// most tol, or −1 if there is none.
func (c *Curve) ItersTo(tol float64) int {
	for i, m := range c.Mean {
		if m <= tol {
			return c.Iter[i]
		}
	}
	return -1
}

// SecondsTo returns the cumulative time at the first iteration whose mean
// optimality is at most tol, or NaN if there is none.
func (c *Curve) SecondsTo(tol float64) float64 {
	for i, m := range c.Mean {
		if m <= tol {
			return c.Seconds[i]
		}
	}
	return math.NaN()
}

// PSNRIters returns the iterations at which PSNR was recorded, sorted.
func (c *Curve) PSNRIters() []int {
	var ts []int
	for t := range c.PSNR {
		ts = append(ts, t)
	}
	sort.Ints(ts)
	return ts
}

// Summary says when one method reached one tolerance.
type Summary struct {
	Method  string
	Tol     float64
	Iters   int     // −1 if never
	Seconds float64 // NaN if never
}

// Summaries returns ItersTo and SecondsTo of every curve for every
// tolerance (nil means DefaultTolerances), curve by curve.
func Summaries(curves []*Curve, tols []float64) []Summary {
	if tols == nil {
		tols = DefaultTolerances
	}
	var out []Summary
	for _, c := range curves {
		for _, tol := range tols {
			out = append(out, Summary{Method: c.Method, Tol: tol, Iters: c.ItersTo(tol), Seconds: c.SecondsTo(tol)})
		}
	}
	return out
}

// PSNR returns 10·log10(1/MSE) in dB of x against truth (peak value 1),
// +Inf when they are equal and NaN when their lengths differ or are zero.
func PSNR(x, truth []float64) float64 {
	if len(x) != len(truth) || len(x) == 0 {
		return math.NaN()
	}
	var s float64
	for i, v := range x {
		d := v - truth[i]
		s += d * d
	}
	return -10 * math.Log10(s/float64(len(x)))
}
