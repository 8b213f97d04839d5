package baselines

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/problem"
)

// BarzilaiBorwein is the Barzilai–Borwein gradient method globalised by the
// nonmonotone line search of Grippo, Lampariello and Lucidi, as Raydan
// proposed it, run separately for every function k:
//
//	R_k = max{f(x^(k−j)) : 0 ≤ j < min(k + 1, M)},
//	x⁺ = x − λ α ∇f(x),  λ = 1, then shrunk until
//	    f(x⁺) ≤ R_k − γ λ α ‖∇f(x)‖²,
//	α⁺ = sᵀs/sᵀy,  s = x⁺ − x,  y = ∇f(x⁺) − ∇f(x),
//
// with the long step of Barzilai and Borwein (BB1, α = sᵀs/sᵀy, not
// alternated with BB2), M = 10 and γ = 10⁻⁴. The first step is α = 1/L
// (1/‖∇f(x⁰)‖ when L is unknown); a pair with sᵀy ≤ 0 (a nonconvex function,
// or rounding) gives α = 1/L as well, and α is kept in [10⁻¹⁰/L, 10¹⁰/L].
// λ shrinks by Raydan's safeguarded quadratic interpolation: the minimiser of
// the parabola through φ(0), φ'(0) and φ(λ), φ(λ) = f(x − λα∇f(x)), kept in
// [0.1 λ, 0.5 λ] (a factor 0.1 when f or ∇f at the trial point is not
// finite). Since R_k ≥ f(x), the search accepts steps that raise f (the BB
// steps are not monotone) while the reference value R_k never increases.
//
// Trial points are evaluated with their gradients, so an iteration whose
// first trial is accepted (the usual case) costs one batched Objective.Eval,
// and the functions' searches share evaluations as LBFGS's do: every round
// evaluates the trial points of all functions still searching at once. A
// function whose search fails (the trial point no longer moves after 60
// reductions, a minimiser reached to rounding) keeps its iterate and tries
// the step 1/L next; after two failures in a row it keeps its iterate and
// costs no more evaluations.
//
// References: J. Barzilai and J. M. Borwein, "Two-point step size gradient
// methods", IMA Journal of Numerical Analysis 8(1), 141–148 (1988);
// L. Grippo, F. Lampariello and S. Lucidi, "A nonmonotone line search
// technique for Newton's method", SIAM Journal on Numerical Analysis 23(4),
// 707–716 (1986); M. Raydan, "The Barzilai and Borwein gradient method for
// the large scale unconstrained minimization problem", SIAM Journal on
// Optimization 7(1), 26–33 (1997).
type BarzilaiBorwein struct {
	// Memory is the number M of values whose maximum is the reference
	// value; 0 means 10 (M = 1 is a monotone Armijo search).
	Memory int
	// Armijo is the sufficient-decrease constant γ in (0, 1); 0 means 10⁻⁴.
	Armijo float64
}

// DefaultBBMemory is BarzilaiBorwein's default M, Raydan's choice.
const DefaultBBMemory = 10

// Name implements Method: "bb", or "bb(m=M)" with another memory than 10.
func (m BarzilaiBorwein) Name() string {
	if m.Memory == 0 || m.Memory == DefaultBBMemory {
		return "bb"
	}
	return fmt.Sprintf("bb(m=%d)", m.Memory)
}

// BB step bounds relative to 1/L.
const (
	bbMinStep = 1e-10
	bbMaxStep = 1e10
)

// Start implements Method.
func (m BarzilaiBorwein) Start(o *problem.Objective) (Iterator, error) {
	b, err := newBatch(m.Name(), o)
	if err != nil {
		return nil, err
	}
	mem, gamma := m.Memory, m.Armijo
	if mem == 0 {
		mem = DefaultBBMemory
	}
	if gamma == 0 {
		gamma = 1e-4
	}
	if mem < 1 {
		return nil, fmt.Errorf("bb: memory M = %d is not positive", m.Memory)
	}
	if !(gamma > 0 && gamma < 1) {
		return nil, fmt.Errorf("bb: Armijo constant %g is not in (0, 1)", m.Armijo)
	}
	size := len(o.X0)
	it := &bbIterator{
		batch: b, mem: mem, gamma: gamma,
		x:       append([]float64(nil), o.X0...),
		g:       make([]float64, size),
		xt:      append([]float64(nil), o.X0...),
		gt:      make([]float64, size),
		f:       make([]float64, o.N),
		ft:      make([]float64, o.N),
		gg:      make([]float64, o.N),
		alpha:   make([]float64, o.N),
		lam:     make([]float64, o.N),
		ref:     make([]float64, o.N),
		hist:    make([]float64, o.N*mem),
		histLen: make([]int, o.N),
		evals:   make([]int, o.N),
		nonmono: make([]int, o.N),
		fails:   make([]int, o.N),
		streak:  make([]int, o.N),
	}
	scale := 1.0
	if o.L > 0 && !math.IsInf(o.L, 0) {
		it.safe = 1 / o.L
		scale = it.safe
	}
	it.minStep, it.maxStep = bbMinStep*scale, bbMaxStep*scale
	if err := it.eval(it.f, it.g, it.x); err != nil {
		return nil, err
	}
	for k, f := range it.f {
		it.evals[k] = 1
		if math.IsNaN(f) || math.IsInf(f, 0) || !finite(it.img(it.g, k)) {
			return nil, fmt.Errorf("bb: f_%d or its gradient at x⁰ is not finite (f = %g): check the data and x0", k, f)
		}
		it.push(k, f)
		it.alpha[k] = it.safeStep(k)
	}
	return it, nil
}

type bbIterator struct {
	*batch
	mem                    int
	gamma                  float64
	safe, minStep, maxStep float64 // safe = 1/L, or 0 when L is unknown

	x, g, xt, gt   []float64
	f, ft, gg      []float64
	alpha, lam     []float64 // BB step α_k and the current trial's λ_k
	ref            []float64 // reference value R_k of the current search
	hist           []float64 // the last M values of every function, [N, M], a ring
	histLen        []int     // values pushed (the ring holds min(histLen, M))
	evals, nonmono []int
	fails, streak  []int
	lockstep       // the functions searching in the current round
}

func (it *bbIterator) X() []float64 { return it.x }

// Values returns f_k(x_k) for the current iterates (a view).
func (it *bbIterator) Values() []float64 { return it.f }

// Evaluations implements Evaluator.
func (it *bbIterator) Evaluations() []int { return it.evals }

// Steps returns the BB steps α_k of the next iteration (a view).
func (it *bbIterator) Steps() []float64 { return it.alpha }

// NonmonotoneSteps returns, for every function, the number of accepted steps
// that raised f (f(x⁺) > f(x)): steps a monotone line search would have
// shortened.
func (it *bbIterator) NonmonotoneSteps() []int { return it.nonmono }

// Failures returns, for every function, the number of failed line searches
// (iterations in which the function kept its iterate).
func (it *bbIterator) Failures() []int { return it.fails }

// References returns the reference values R_k, the maximum of the last M
// values of every function, that the next iteration's search compares with.
func (it *bbIterator) References() []float64 {
	r := make([]float64, it.n)
	for k := range r {
		r[k] = it.reference(k)
	}
	return r
}

// push appends f to function k's last M values.
func (it *bbIterator) push(k int, f float64) {
	it.hist[k*it.mem+it.histLen[k]%it.mem] = f
	it.histLen[k]++
}

// reference is the maximum of function k's last M values.
func (it *bbIterator) reference(k int) float64 {
	h := it.hist[k*it.mem : k*it.mem+min(it.histLen[k], it.mem)]
	r := h[0]
	for _, v := range h[1:] {
		r = math.Max(r, v)
	}
	return r
}

// safeStep is 1/L, or 1/‖∇f_k‖ when L is unknown, within the step bounds.
func (it *bbIterator) safeStep(k int) float64 {
	s := it.safe
	if s == 0 {
		gk := it.img(it.g, k)
		s = 1 / math.Sqrt(dot(gk, gk))
	}
	return math.Min(math.Max(s, it.minStep), it.maxStep)
}

func (it *bbIterator) Next() error {
	it.clearSearches()
	for k := 0; k < it.n; k++ {
		if it.streak[k] >= 2 {
			continue // at the limit of precision
		}
		gk := it.img(it.g, k)
		it.gg[k] = dot(gk, gk)
		if it.gg[k] == 0 {
			continue
		}
		it.ref[k] = it.reference(k)
		it.lam[k] = 1
		it.startSearch(k)
	}
	// Every function still searching puts its trial point in xt, all of
	// them are evaluated with their gradients by one Eval, and each tests
	// its own nonmonotone Armijo condition.
	err := it.runSearches(func(k, round int) bool { return round <= maxHalvings && it.place(k) }, it.fail,
		func() error { return it.eval(it.ft, it.gt, it.xt) }, func(k int) bool { return !it.observe(k) }, it.evals)
	if err != nil {
		return err
	}
	it.iter++
	return nil
}

// place writes function k's trial point x_k − λ_k α_k ∇f_k into xt and
// reports whether it differs from x_k.
func (it *bbIterator) place(k int) bool {
	xk, gk, tk := it.img(it.x, k), it.img(it.g, k), it.img(it.xt, k)
	step := it.lam[k] * it.alpha[k]
	moved := false
	for i := range tk {
		tk[i] = xk[i] - step*gk[i]
		moved = moved || tk[i] != xk[i]
	}
	return moved
}

// observe tests function k's trial point: it accepts it and reports true, or
// shrinks λ_k and reports false.
func (it *bbIterator) observe(k int) bool {
	phi, lam, a, gg := it.ft[k], it.lam[k], it.alpha[k], it.gg[k]
	ok := !math.IsNaN(phi) && !math.IsInf(phi, 0)
	if ok && phi <= it.ref[k]-it.gamma*lam*a*gg && finite(it.img(it.gt, k)) {
		it.accept(k)
		return true
	}
	if !ok {
		it.lam[k] = 0.1 * lam
		return false
	}
	// The minimiser of the parabola through φ(0) = f, φ'(0) = −α‖∇f‖² and
	// φ(λ); the denominator is positive since φ(λ) > R − γλα‖∇f‖² ≥
	// f − γλα‖∇f‖² with γ < 1 (or φ(λ) is finite with a non-finite
	// gradient, when it may not be: then the lower safeguard applies).
	d := phi - it.f[k] + lam*a*gg
	q := 0.1 * lam
	if d > 0 {
		q = lam * lam * a * gg / (2 * d)
	}
	it.lam[k] = math.Min(math.Max(q, 0.1*lam), 0.5*lam)
	return false
}

// accept moves function k to its trial point and computes its next BB step.
func (it *bbIterator) accept(k int) {
	xk, gk := it.img(it.x, k), it.img(it.g, k)
	xt, gt := it.img(it.xt, k), it.img(it.gt, k)
	var ss, sy float64
	for i := range xk {
		s, y := xt[i]-xk[i], gt[i]-gk[i]
		ss += s * s
		sy += s * y
	}
	if it.ft[k] > it.f[k] {
		it.nonmono[k]++
	}
	copy(xk, xt)
	copy(gk, gt)
	it.f[k] = it.ft[k]
	it.push(k, it.f[k])
	it.streak[k] = 0
	a := ss / sy
	if !(sy > 0) || math.IsInf(a, 0) || math.IsNaN(a) {
		a = it.safeStep(k)
	}
	it.alpha[k] = math.Min(math.Max(a, it.minStep), it.maxStep)
}

// fail leaves function k where it is; its next search starts from the safe
// step.
func (it *bbIterator) fail(k int) {
	it.fails[k]++
	it.streak[k]++
	it.alpha[k] = it.safeStep(k)
}
