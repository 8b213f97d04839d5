package baselines

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Iterator advances all N functions of a batch by one iteration per call to
// Next.
type Iterator interface {
	// Next runs one iteration for every function. An error (a non-finite
	// iterate, for instance) stops the run.
	Next() error
	// X returns the current iterates [N,H,W]. The slice is owned by the
	// iterator and is valid until the next call to Next: copy it to keep it.
	X() []float64
}

// Evaluator is implemented by iterators that evaluate f and ∇f a varying
// number of times per iteration (line searches, backtracking).
type Evaluator interface {
	// Evaluations returns, for every function, the number of evaluations of
	// f_k (with or without ∇f_k) made so far, including those made by Start.
	Evaluations() []int
}

// Method is an optimization method that can be started on an objective.
type Method interface {
	// Name is the short name of the method ("gd", "nag", …).
	Name() string
	// Start returns an iterator whose iterates start at o.X0 (which it copies).
	Start(o *problem.Objective) (Iterator, error)
}

var parsers = map[string]func() Method{
	"gd":          func() Method { return GradientDescent{} },
	"heavy-ball":  func() Method { return HeavyBall{} },
	"nag":         func() Method { return NAG{} },
	"lbfgs":       func() Method { return LBFGS{} },
	"pgd":         func() Method { return PreconditionedGD{} },
	"silver":      func() Method { return SilverGD{} },
	"nag-restart": func() Method { return RestartNAG{} },
	"bb":          func() Method { return BarzilaiBorwein{} },
}

// MethodNames lists the names ParseMethod accepts, sorted.
func MethodNames() []string {
	var names []string
	for n := range parsers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParseMethod returns the method with the given name ("gd", "heavy-ball",
// "nag", "lbfgs", "pgd", "silver", "nag-restart" or "bb") with default
// settings. With settings: "pgd:δ" is preconditioned GD with that δ (e.g.
// from l2o tune pgd); "lbfgs:m=M" is L-BFGS with memory M (e.g. from
// TuneLBFGSMemory); "bb:m=M" is Barzilai–Borwein with a nonmonotone search
// over the last M values; "nag-restart:function" is NAG with the function
// restart scheme ("nag-restart:gradient" is "nag-restart").
func ParseMethod(name string) (Method, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if d, ok := strings.CutPrefix(name, "pgd:"); ok {
		delta, err := strconv.ParseFloat(d, 64)
		if err != nil || !(delta > 0) || math.IsInf(delta, 0) {
			return nil, fmt.Errorf("method %q: δ must be a positive number (pgd:0.032)", name)
		}
		return PreconditionedGD{Delta: delta}, nil
	}
	if v, ok := strings.CutPrefix(name, "lbfgs:"); ok {
		m, err := parseMemory(name, v)
		if err != nil {
			return nil, err
		}
		return LBFGS{Memory: m}, nil
	}
	if v, ok := strings.CutPrefix(name, "bb:"); ok {
		m, err := parseMemory(name, v)
		if err != nil {
			return nil, err
		}
		return BarzilaiBorwein{Memory: m}, nil
	}
	if v, ok := strings.CutPrefix(name, "nag-restart:"); ok {
		switch v {
		case "gradient":
			return RestartNAG{Scheme: RestartGradient}, nil
		case "function":
			return RestartNAG{Scheme: RestartFunction}, nil
		}
		return nil, fmt.Errorf("method %q: the restart scheme is gradient or function (nag-restart:function)", name)
	}
	p, ok := parsers[name]
	if !ok {
		return nil, fmt.Errorf("unknown method %q: choose one of %s", name, strings.Join(MethodNames(), ", "))
	}
	return p(), nil
}

// parseMemory reads the "m=M" (or "M") of a method name with a memory.
func parseMemory(name, v string) (int, error) {
	v = strings.TrimPrefix(v, "m=")
	m, err := strconv.Atoi(v)
	if err != nil || m < 1 {
		return 0, fmt.Errorf("method %q: the memory must be a positive integer (%s:m=5)", name, strings.SplitN(name, ":", 2)[0])
	}
	return m, nil
}

// batch is the state every iterator shares: the objective, its sizes, a
// workspace and the iteration counter.
type batch struct {
	name  string
	o     *problem.Objective
	n, hw int
	ws    problem.Workspace
	iter  int // number of completed iterations
}

// newBatch checks the objective and its starting point.
func newBatch(name string, o *problem.Objective) (*batch, error) {
	if o == nil {
		return nil, fmt.Errorf("%s: objective is nil", name)
	}
	hw := o.H * o.W
	if o.N < 1 || hw < 1 {
		return nil, fmt.Errorf("%s: objective has N=%d functions of %d×%d images; need at least one non-empty image", name, o.N, o.H, o.W)
	}
	if len(o.X0) != o.N*hw {
		return nil, fmt.Errorf("%s: starting point has %d values, want N·H·W = %d", name, len(o.X0), o.N*hw)
	}
	b := &batch{name: name, o: o, n: o.N, hw: hw}
	for k := 0; k < o.N; k++ {
		if !finite(b.img(o.X0, k)) {
			return nil, fmt.Errorf("%s: starting point of function %d has a non-finite pixel: fix the data or x0", name, k)
		}
	}
	return b, nil
}

// lipschitz returns o.L, or an error when it is needed but not a positive
// finite number.
func (b *batch) lipschitz(what string) (float64, error) {
	l := b.o.L
	if !(l > 0) || math.IsInf(l, 0) {
		return 0, fmt.Errorf("%s: objective's smoothness constant L = %g is not positive and finite; set %s explicitly", b.name, l, what)
	}
	return l, nil
}

// img returns the part of a batch vector that belongs to function k.
func (b *batch) img(v []float64, k int) []float64 { return v[k*b.hw : (k+1)*b.hw] }

// eval evaluates the objective and checks the values and gradients that
// were asked for, naming the first function with a non-finite result.
func (b *batch) eval(vals, grad, x []float64) error {
	if err := b.o.Eval(vals, grad, x, &b.ws); err != nil {
		return fmt.Errorf("%s: iteration %d: %w", b.name, b.iter+1, err)
	}
	return nil
}

// checkGrad reports the first function whose gradient is not finite.
func (b *batch) checkGrad(grad []float64) error {
	for k := 0; k < b.n; k++ {
		if !finite(b.img(grad, k)) {
			return b.diverged(k, "gradient")
		}
	}
	return nil
}

// checkX reports the first function whose iterate is not finite.
func (b *batch) checkX(x []float64) error {
	for k := 0; k < b.n; k++ {
		if !finite(b.img(x, k)) {
			return b.diverged(k, "iterate")
		}
	}
	return nil
}

func (b *batch) diverged(k int, what string) error {
	return fmt.Errorf("%s: function %d, iteration %d: %s is not finite (NaN or ±Inf); the method %w: try a smaller step", b.name, k, b.iter+1, what, ErrDiverged)
}

// ErrDiverged marks an iteration that left the finite numbers (an iterate,
// value or gradient is NaN or ±Inf): the method diverged. Iterators wrap it
// in the error of Next; test with errors.Is.
var ErrDiverged = errors.New("diverged")

// finite reports whether every value of v is finite: x·0 is 0 for finite x
// and NaN otherwise.
func finite(v []float64) bool {
	var s float64
	for _, x := range v {
		s += x * 0
	}
	return s == 0
}

func dot(a, b []float64) float64 { return kernels.Dot(a, b) }
