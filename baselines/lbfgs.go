package baselines

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/problem"
)

// LBFGS is the limited-memory BFGS method with a line search satisfying the
// strong Wolfe conditions
//
//	f(x + a d) ≤ f(x) + c1 a ∇f(x)·d,   |∇f(x + a d)·d| ≤ c2 |∇f(x)·d|,
//
// c1 = 10⁻⁴, c2 = 0.9, run separately for every function. Directions come from
// the two-loop recursion (Nocedal and Wright, Algorithm 7.4) with the initial
// inverse Hessian γ I, γ = sᵀy/yᵀy of the newest pair; the first trial step is
// 1 (1/L along −∇f while the memory is empty). The trial points of all
// functions still searching are evaluated together in one batched Eval. One
// call to Next is one L-BFGS iteration.
//
// When the line search fails (typically at machine precision near a
// minimiser) or needs more than MaxEvaluations evaluations, the function
// keeps its iterate and its memory is cleared, so that its next iteration
// starts again from the steepest-descent direction. A function whose
// steepest-descent line search fails as well is at the limit of precision:
// it keeps its iterate from then on and costs no more evaluations.
type LBFGS struct {
	// Memory is the number of stored (s, y) pairs; 0 means 10.
	Memory int
	// MaxEvaluations bounds the evaluations of one line search; 0 means 20.
	MaxEvaluations int
}

// Wolfe constants of LBFGS's line search.
const (
	WolfeDecrease  = 1e-4 // c1
	WolfeCurvature = 0.9  // c2
)

// Name implements Method.
func (LBFGS) Name() string { return "lbfgs" }

// Start implements Method.
func (m LBFGS) Start(o *problem.Objective) (Iterator, error) {
	b, err := newBatch(m.Name(), o)
	if err != nil {
		return nil, err
	}
	mem, maxEvals := m.Memory, m.MaxEvaluations
	if mem == 0 {
		mem = 10
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
		x:      append([]float64(nil), o.X0...),
		g:      make([]float64, size),
		d:      make([]float64, size),
		xt:     append([]float64(nil), o.X0...),
		gt:     make([]float64, size),
		f:      make([]float64, o.N),
		ft:     make([]float64, o.N),
		slope0: make([]float64, o.N),
		step:   make([]float64, o.N),
		mem:    make([]lbfgsMemory, o.N),
		ls:     make([]wolfeSearch, o.N),
		active: make([]bool, o.N),
		used:   make([]int, o.N),
		evals:  make([]int, o.N),
		fails:  make([]int, o.N),
		streak: make([]int, o.N),
	}
	if o.L > 0 && !math.IsInf(o.L, 0) {
		it.firstStep = 1 / o.L
	}
	for k := range it.mem {
		it.mem[k] = newLBFGSMemory(mem, b.hw)
		it.ls[k] = wolfeSearch{c1: WolfeDecrease, c2: WolfeCurvature}
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

// Values returns f_k(x_k) for the current iterates (a view).
func (it *lbfgsIterator) Values() []float64 { return it.f }

type lbfgsIterator struct {
	*batch
	maxEvals  int
	firstStep float64 // first step along −∇f with an empty memory (0: 1/‖∇f‖)

	x, g, d, xt, gt    []float64
	f, ft, slope0      []float64
	step               []float64
	mem                []lbfgsMemory
	ls                 []wolfeSearch
	active             []bool
	used, evals, fails []int
	// streak counts the consecutive failed line searches of each function.
	streak []int
}

func (it *lbfgsIterator) X() []float64 { return it.x }

// Evaluations implements Evaluator.
func (it *lbfgsIterator) Evaluations() []int { return it.evals }

// Failures returns, for every function, the number of failed line searches
// (iterations in which the function kept its iterate).
func (it *lbfgsIterator) Failures() []int { return it.fails }

// direction sets d_k and the first trial step and starts the line search of
// function k; it reports false when ∇f_k = 0 (nothing to do).
func (it *lbfgsIterator) direction(k int) bool {
	gk, dk := it.img(it.g, k), it.img(it.d, k)
	gnorm2 := dot(gk, gk)
	if gnorm2 == 0 {
		return false
	}
	m := &it.mem[k]
	step := 1.0
	slope := math.NaN()
	if m.len > 0 {
		m.direction(dk, gk)
		slope = dot(gk, dk)
	}
	if !(slope < 0) || math.IsInf(slope, 0) {
		// Empty memory, or not a descent direction through rounding:
		// steepest descent with a fresh memory.
		m.clear()
		for i, v := range gk {
			dk[i] = -v
		}
		slope = -gnorm2
		step = it.firstStep
		if step == 0 {
			step = 1 / math.Sqrt(gnorm2)
		}
	}
	it.slope0[k], it.step[k] = slope, step
	it.ls[k].init(it.f[k], slope, step)
	it.used[k] = 0
	return true
}

// fail leaves function k where it is and clears its memory.
func (it *lbfgsIterator) fail(k int) {
	it.active[k] = false
	it.mem[k].clear()
	it.fails[k]++
	it.streak[k]++
}

func (it *lbfgsIterator) Next() error {
	nActive := 0
	for k := 0; k < it.n; k++ {
		it.active[k] = it.streak[k] < 2 && it.direction(k)
		if it.active[k] {
			nActive++
		}
	}
	for nActive > 0 {
		for k := 0; k < it.n; k++ {
			if !it.active[k] {
				continue
			}
			xk, dk, tk := it.img(it.x, k), it.img(it.d, k), it.img(it.xt, k)
			a := it.step[k]
			for i := range tk {
				tk[i] = xk[i] + a*dk[i]
			}
		}
		if err := it.eval(it.ft, it.gt, it.xt); err != nil {
			return err
		}
		nActive = 0
		for k := 0; k < it.n; k++ {
			if !it.active[k] {
				continue
			}
			it.evals[k]++
			it.used[k]++
			phi, dphi := it.ft[k], dot(it.img(it.gt, k), it.img(it.d, k))
			if math.IsNaN(phi) || math.IsInf(phi, 0) || math.IsNaN(dphi) || math.IsInf(dphi, 0) {
				// The trial point left the region where f is finite: restart
				// the line search with a step ten times shorter.
				if it.used[k] >= it.maxEvals {
					it.fail(k)
					continue
				}
				it.step[k] /= 10
				it.ls[k].init(it.f[k], it.slope0[k], it.step[k])
				nActive++
				continue
			}
			done, next, err := it.ls[k].iterate(phi, dphi)
			switch {
			case done:
				it.accept(k)
			case err != nil || it.used[k] >= it.maxEvals || !(next > 0):
				it.fail(k)
			default:
				it.step[k] = next
				nActive++
			}
		}
	}
	it.iter++
	return nil
}

// accept moves function k to its trial point and updates its memory.
func (it *lbfgsIterator) accept(k int) {
	xk, gk := it.img(it.x, k), it.img(it.g, k)
	xt, gt := it.img(it.xt, k), it.img(it.gt, k)
	s, y := it.mem[k].slot()
	for i := range s {
		s[i] = xt[i] - xk[i]
		y[i] = gt[i] - gk[i]
	}
	it.mem[k].push()
	copy(xk, xt)
	copy(gk, gt)
	it.f[k] = it.ft[k]
	it.active[k] = false
	it.streak[k] = 0
}

// lbfgsMemory is the ring buffer of the newest (s, y) pairs of one function.
type lbfgsMemory struct {
	s, y  [][]float64
	rho   []float64
	alpha []float64
	head  int // index of the next slot to fill
	len   int
	dim   int
}

func newLBFGSMemory(m, dim int) lbfgsMemory {
	return lbfgsMemory{s: make([][]float64, m), y: make([][]float64, m), rho: make([]float64, m), alpha: make([]float64, m), dim: dim}
}

func (m *lbfgsMemory) clear() { m.len = 0 }

// slot returns the vectors to fill with the next pair (allocated lazily).
func (m *lbfgsMemory) slot() (s, y []float64) {
	if m.s[m.head] == nil {
		m.s[m.head], m.y[m.head] = make([]float64, m.dim), make([]float64, m.dim)
	}
	return m.s[m.head], m.y[m.head]
}

// push stores the pair written into slot when sᵀy > 0 (always true after a
// strong Wolfe step; the check guards against rounding).
func (m *lbfgsMemory) push() {
	s, y := m.s[m.head], m.y[m.head]
	sy := dot(s, y)
	if !(sy > 0) || math.IsInf(sy, 0) {
		return
	}
	m.rho[m.head] = 1 / sy
	m.head = (m.head + 1) % len(m.s)
	if m.len < len(m.s) {
		m.len++
	}
}

// index returns the slot of the i-th newest pair (i = 0 is the newest).
func (m *lbfgsMemory) index(i int) int {
	n := len(m.s)
	return ((m.head-1-i)%n + n) % n
}

// direction writes d = −H g by the two-loop recursion.
func (m *lbfgsMemory) direction(d, g []float64) {
	copy(d, g)
	for i := 0; i < m.len; i++ {
		j := m.index(i)
		m.alpha[j] = m.rho[j] * dot(m.s[j], d)
		axpy(-m.alpha[j], m.y[j], d)
	}
	newest := m.index(0)
	yn := m.y[newest]
	gamma := 1 / (m.rho[newest] * dot(yn, yn))
	for i := range d {
		d[i] *= gamma
	}
	for i := m.len - 1; i >= 0; i-- {
		j := m.index(i)
		beta := m.rho[j] * dot(m.y[j], d)
		axpy(m.alpha[j]-beta, m.s[j], d)
	}
	for i := range d {
		d[i] = -d[i]
	}
}

// axpy sets y += a·x.
func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}
