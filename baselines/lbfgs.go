package baselines

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"

	"github.com/greedyl2o/greedyl2o/problem"
)

// LBFGS is the limited-memory BFGS method with a line search satisfying the
// strong Wolfe conditions
//
//	f(x + a d) ≤ f(x) + c1 a ∇f(x)·d,   |∇f(x + a d)·d| ≤ c2 |∇f(x)·d|,
//
// c1 = 10⁻⁴, c2 = 0.9, run separately for every function. Every function has
// its own gonum optimize.LBFGS as its optimize.NextDirectioner (the two-loop
// recursion of Nocedal and Wright, Algorithm 7.4, with the initial inverse
// Hessian γ I, γ = sᵀy/yᵀy of the newest pair) and its own
// optimize.MoreThuente as its optimize.Linesearcher. The first trial step is
// 1 (1/L along −∇f while the memory is empty, 1/‖∇f‖ when L is unknown). The
// functions advance in lockstep: in every round the trial points of all
// functions still searching are evaluated together in one batched
// Objective.Eval, and each line search is given φ and φ' at its own trial
// point. One call to Next is one L-BFGS iteration of every function.
//
// When the line search fails (typically at machine precision near a
// minimiser, or a trial point indistinguishable from the iterate) or needs
// more than MaxEvaluations evaluations, the function keeps its iterate and
// its memory is cleared, so that its next iteration starts again from the
// steepest-descent direction. A function whose steepest-descent line search
// fails as well is at the limit of precision: it keeps its iterate from then
// on and costs no more evaluations.
type LBFGS struct {
	// Memory is the number of stored (s, y) pairs; 0 means 10.
	Memory int
	// MaxEvaluations bounds the evaluations of one line search; 0 means 20.
	MaxEvaluations int
}

// Wolfe constants of LBFGS's line search (MoreThuente's DecreaseFactor and
// CurvatureFactor).
const (
	WolfeDecrease  = 1e-4 // c1
	WolfeCurvature = 0.9  // c2
)

// maxStep is the largest trial step of LBFGS's line search.
const maxStep = 1e20

// newLinesearcher returns the line search LBFGS gives every function.
func newLinesearcher() optimize.MoreThuente {
	return optimize.MoreThuente{DecreaseFactor: WolfeDecrease, CurvatureFactor: WolfeCurvature, MaximumStep: maxStep}
}

// DefaultLBFGSMemory is LBFGS's default memory.
const DefaultLBFGSMemory = 10

// Name implements Method: "lbfgs", or "lbfgs(m=M)" with another memory than
// DefaultLBFGSMemory (ParseMethod reads it as "lbfgs:m=M").
func (m LBFGS) Name() string {
	if m.Memory == 0 || m.Memory == DefaultLBFGSMemory {
		return "lbfgs"
	}
	return fmt.Sprintf("lbfgs(m=%d)", m.Memory)
}

// Start implements Method.
func (m LBFGS) Start(o *problem.Objective) (Iterator, error) {
	b, err := newBatch(m.Name(), o)
	if err != nil {
		return nil, err
	}
	mem, maxEvals := m.Memory, m.MaxEvaluations
	if mem == 0 {
		mem = DefaultLBFGSMemory
	}
	if maxEvals == 0 {
		maxEvals = 20
	}
	if mem < 1 {
		return nil, fmt.Errorf("lbfgs: memory %d is not positive", m.Memory)
	}
	if maxEvals < 1 {
		return nil, fmt.Errorf("lbfgs: MaxEvaluations %d is not positive", m.MaxEvaluations)
	}
	size := len(o.X0)
	it := &lbfgsIterator{
		batch: b, maxEvals: maxEvals,
		x:       append([]float64(nil), o.X0...),
		g:       make([]float64, size),
		d:       make([]float64, size),
		xt:      append([]float64(nil), o.X0...),
		gt:      make([]float64, size),
		f:       make([]float64, o.N),
		ft:      make([]float64, o.N),
		dir:     make([]optimize.LBFGS, o.N),
		search:  make([]lineSearch, o.N),
		restart: make([]bool, o.N),
		active:  make([]bool, o.N),
		evals:   make([]int, o.N),
		fails:   make([]int, o.N),
		streak:  make([]int, o.N),
	}
	if o.L > 0 && !math.IsInf(o.L, 0) {
		it.firstStep = 1 / o.L
	}
	for k := range it.dir {
		it.dir[k].Store = mem
		it.search[k].mt = newLinesearcher()
		it.restart[k] = true
		it.evals[k] = 1
	}
	if err := it.eval(it.f, it.g, it.x); err != nil {
		return nil, err
	}
	for k, f := range it.f {
		if math.IsNaN(f) || math.IsInf(f, 0) || !finite(it.img(it.g, k)) {
			return nil, fmt.Errorf("lbfgs: f_%d or its gradient at x⁰ is not finite (f = %g): check the data and x0", k, f)
		}
	}
	return it, nil
}

type lbfgsIterator struct {
	*batch
	maxEvals  int
	firstStep float64 // first step along −∇f with an empty memory (0: 1/‖∇f‖)

	x, g, d, xt, gt []float64
	f, ft           []float64
	dir             []optimize.LBFGS // NextDirectioner of every function
	search          []lineSearch
	// restart marks the functions whose next direction starts a fresh
	// memory (InitDirection): at the start and after a failed line search.
	restart      []bool
	active       []bool
	evals, fails []int
	streak       []int // consecutive failed line searches of every function
	lockstep           // the functions searching in the current round
}

// lineSearch is the line search of one function: gonum's Linesearcher and
// what the caller of its reverse-communication interface has to keep.
type lineSearch struct {
	mt         optimize.MoreThuente
	f0, slope0 float64   // φ(0), φ'(0)
	step       float64   // trial step to evaluate next
	used       int       // trials fed to mt (evaluated or repeated)
	tried      []lsPoint // evaluated trials of this search
}

// lsPoint is a trial step a with φ(a) and φ'(a).
type lsPoint struct{ a, f, g float64 }

// Values returns f_k(x_k) for the current iterates (a view).
func (it *lbfgsIterator) Values() []float64 { return it.f }

func (it *lbfgsIterator) X() []float64 { return it.x }

// Evaluations implements Evaluator.
func (it *lbfgsIterator) Evaluations() []int { return it.evals }

// Failures returns, for every function, the number of failed line searches
// (iterations in which the function kept its iterate).
func (it *lbfgsIterator) Failures() []int { return it.fails }

// begin sets d_k from function k's NextDirectioner and starts its line
// search; it reports false when ∇f_k = 0 (nothing to do).
func (it *lbfgsIterator) begin(k int) bool {
	xk, gk, dk := it.img(it.x, k), it.img(it.g, k), it.img(it.d, k)
	gnorm2 := dot(gk, gk)
	if gnorm2 == 0 {
		return false
	}
	loc := optimize.Location{X: xk, F: it.f[k], Gradient: gk}
	step, slope := 1.0, math.NaN()
	if !it.restart[k] {
		// Stores the pair (x_k − x_k⁻, ∇f_k − ∇f_k⁻) of the last accepted
		// step and applies the two-loop recursion.
		step = it.dir[k].NextDirection(&loc, dk)
		slope = dot(gk, dk)
	}
	if !(slope < 0) || math.IsInf(slope, 0) || !(step > 0) {
		// A fresh memory, or not a descent direction through rounding:
		// steepest descent with a fresh memory.
		step = it.dir[k].InitDirection(&loc, dk) // 1/‖∇f‖
		slope = -gnorm2
		if it.firstStep > 0 {
			step = it.firstStep
		}
		it.restart[k] = false
	}
	s := &it.search[k]
	s.f0, s.slope0, s.step, s.used, s.tried = it.f[k], slope, math.Min(step, maxStep), 0, s.tried[:0]
	s.mt.Init(s.f0, slope, s.step) // always asks for φ and φ' (FuncEvaluation|GradEvaluation)
	return true
}

// fail leaves function k where it is and clears its memory.
func (it *lbfgsIterator) fail(k int) {
	it.active[k] = false
	it.restart[k] = true
	it.fails[k]++
	it.streak[k]++
}

// place writes function k's trial point x_k + a d_k into xt and reports
// whether it differs from x_k.
func (it *lbfgsIterator) place(k int) bool {
	xk, dk, tk := it.img(it.x, k), it.img(it.d, k), it.img(it.xt, k)
	a := it.search[k].step
	moved := false
	for i := range tk {
		tk[i] = xk[i] + a*dk[i]
		moved = moved || tk[i] != xk[i]
	}
	return moved
}

func (it *lbfgsIterator) Next() error {
	it.clearSearches()
	for k := 0; k < it.n; k++ {
		it.active[k] = it.streak[k] < 2 && it.begin(k)
		if it.active[k] {
			it.startSearch(k)
		}
	}
	// Every function still searching puts its trial point in xt (a step
	// below the rounding of x_k fails: no progress possible), all of them
	// are evaluated by one batched Eval, and each line search is given its
	// φ(a) and φ'(a).
	err := it.runSearches(func(k, _ int) bool { return it.place(k) }, it.fail,
		func() error { return it.eval(it.ft, it.gt, it.xt) }, it.observe, it.evals)
	if err != nil {
		return err
	}
	it.iter++
	return nil
}

// observe passes φ and φ' at function k's trial point to its line search
// and acts on the answer: accept the trial point, fail, or set the next trial
// step. It reports whether function k needs another evaluation.
func (it *lbfgsIterator) observe(k int) bool {
	s := &it.search[k]
	s.used++
	phi, dphi := it.ft[k], dot(it.img(it.gt, k), it.img(it.d, k))
	if math.IsNaN(phi) || math.IsInf(phi, 0) || math.IsNaN(dphi) || math.IsInf(dphi, 0) {
		// The trial point left the region where f is finite: start the line
		// search again with a step ten times shorter.
		if s.used >= it.maxEvals {
			it.fail(k)
			return false
		}
		s.step /= 10
		s.tried = s.tried[:0]
		s.mt.Init(s.f0, s.slope0, s.step)
		return true
	}
	s.tried = append(s.tried, lsPoint{s.step, phi, dphi})
	for {
		op, next, err := s.mt.Iterate(phi, dphi)
		switch {
		case err == nil && op == optimize.MajorIteration:
			// The last trial satisfies the strong Wolfe conditions.
			it.accept(k)
			return false
		case err != nil || op&optimize.FuncEvaluation == 0 || !(next > 0) || math.IsInf(next, 0) || s.used >= it.maxEvals:
			it.fail(k)
			return false
		}
		s.step = next
		// MoreThuente falls back to the best step so far when its interval
		// cannot shrink any more; that step was evaluated already, so it is
		// given its values again instead of being evaluated twice (the search
		// then fails or moves on without a new evaluation).
		p, seen := s.lookup(next)
		if !seen {
			return true
		}
		s.used++
		phi, dphi = p.f, p.g
	}
}

// lookup returns the evaluated trial with step a, if any.
func (s *lineSearch) lookup(a float64) (lsPoint, bool) {
	for _, p := range s.tried {
		if p.a == a {
			return p, true
		}
	}
	return lsPoint{}, false
}

// accept moves function k to its trial point. Its NextDirectioner stores the
// pair (s, y) of this step when it computes the next direction; a pair with
// sᵀy ≤ 0 (possible only through rounding, since the strong Wolfe conditions
// give sᵀy ≥ (1 − c2)|∇f·s|) clears the memory instead.
func (it *lbfgsIterator) accept(k int) {
	xk, gk := it.img(it.x, k), it.img(it.g, k)
	xt, gt := it.img(it.xt, k), it.img(it.gt, k)
	var sy float64
	for i := range xk {
		sy += (xt[i] - xk[i]) * (gt[i] - gk[i])
	}
	if !(sy > 0) || math.IsInf(sy, 0) {
		it.restart[k] = true
	}
	copy(xk, xt)
	copy(gk, gt)
	it.f[k] = it.ft[k]
	it.active[k] = false
	it.streak[k] = 0
}
