package steploss

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// stepEvaluator evaluates the data part of the greedy step loss,
//
//	(1/N) Σk fk(xk⁺),  x⁺ = x − G_θ g + H_φ p,
//
// and its gradient in the parameters of each term (G, then H if any); the
// penalties are StepLoss's. newEvaluator picks one per StepLoss, once:
//
//   - the engine (engine[F]), in float64 or float32, every family through
//     one term interface (models.Binder, or its graph: models.GraphBinder),
//     with the capabilities the terms offer: the affine form (every term
//     one parameter, the objective an analysis form: PS, M-PS), reduced
//     coordinates (models.Reducer: PF), spectral terms sharing FFTs (PC).
//     Its pass over the functions runs image by image on the CPU, or on a
//     device's array operations (devicePass: ondevice terms), or, for terms
//     without a device kind, on the CPU against the device's objective. Its
//     kinds name them (affine, reduced, graph, bound; fused-float32;
//     device, device-graph). Whatever the pass, the running sums
//     (partialSums) and their finish are the engine's: it divides into
//     shards and linked blocks on every pass;
//   - fullGraphStep, the objective and the update in one graph
//     differentiated whole: the oracle (tests: stepPaths.fullGraph).
type stepEvaluator interface {
	// kind names the evaluator (affine, reduced, bound, graph, full-graph).
	kind() string
	// setStep loads the step's iterates x, gradients g = ∇f(x) and momentum
	// directions p (ignored without H); the lengths are checked by the
	// caller. It returns the step's reductions (nil without reduced terms;
	// nil entries for terms in full).
	setStep(x, g, p []float64) ([]models.Reduction, error)
	// eval returns (1/N) Σk fk(xk⁺) for the parameters params[i] of term i
	// and, if grads is not nil, adds its gradient in params[i] to grads[i]
	// for every grads[i] that is not nil. A nil grads[i] is block evaluation
	// (StepLoss.EvalBlock): term i is frozen, its adjoint is not computed,
	// and an evaluator may hold its contribution to x⁺ while its parameters
	// stay the same (frozenTerms). The value and the other gradients are
	// those of a full evaluation: the operations that remain run in its
	// order, so they agree bitwise where the compiler does not fuse
	// multiply–adds (amd64 by default; arm64 may fuse a frozen term's
	// product with its sum in one case and not in the other, a difference
	// of rounding).
	eval(params, grads [][]float64) (float64, error)
	// next writes x⁺ into dst.
	next(dst []float64, params [][]float64) error
	// bytes is the memory the evaluator holds.
	bytes() int64
	close() error
}

// stepPaths restricts the evaluation paths of a step loss (for tests and
// benchmarks); the zero value allows every path.
type stepPaths struct {
	graphOnly bool // every term by its graph (models.GraphBinder), even those that bind
	fullGraph bool // the objective and the update in one graph (implies graphOnly)
	noReduce  bool // bind reducible parametrizations (PF) in full
	noAffine  bool // bound operators for one-parameter terms instead of the affine form
	// precision, if Float32, evaluates in float32 (engine); the zero
	// value and Float64 use the float64 evaluators above.
	precision Precision
	fused64   bool // engine[float64] (tests: the float32 code path in float64)
	// device, if set, evaluates with its array operations (the engine's
	// device pass), whatever the other fields but shards and link say.
	device gpu.Ops
	// shards, if set, divides the functions into these blocks, one engine
	// each, the sums passed from block to block (see partialSums).
	shards [][2]int
	// link, if set, makes the loss one block of total functions, joined to
	// the other blocks by link (NewStepLossBlock).
	link  Link
	total int
}

// terms returns the method's parametrizations: G, then H if any.
func terms(m models.Method) []models.Parametrization {
	if m.H == nil {
		return []models.Parametrization{m.G}
	}
	return []models.Parametrization{m.G, m.H}
}

// termSigns are the signs of the terms in x⁺ = x − G_θ g + H_φ p.
var termSigns = [2]float64{-1, 1}

// termBinders returns the terms' binders: a parametrization's own
// (models.Binder) unless graphOnly, otherwise its graph (models.GraphBinder).
// native reports whether every term has its own.
func termBinders(pars []models.Parametrization, graphOnly bool) (bs []models.Binder, native bool) {
	bs, native = make([]models.Binder, len(pars)), true
	for i, p := range pars {
		if b, ok := p.(models.Binder); ok && !graphOnly {
			bs[i] = b
			continue
		}
		bs[i], native = models.NewGraphBinder(p), false
	}
	return bs, native
}

// affineTerms reports whether every term has the affine capability: it
// binds (the bound map θ ↦ G_θ v is linear, models.Bound) and has a single
// parameter, so that G_θ v = θ·(G_1 v).
func affineTerms(pars []models.Parametrization, h, w int) bool {
	for _, p := range pars {
		if p.ParamShape(h, w).TotalSize() != 1 {
			return false
		}
	}
	return true
}

// reducers returns the terms' reducers (nil entries for terms bound in
// full), or nil if no term reduces.
func reducers(pars []models.Parametrization) []models.Reducer {
	out := make([]models.Reducer, len(pars))
	any := false
	for i, p := range pars {
		if r, ok := p.(models.Reducer); ok {
			out[i], any = r, true
		}
	}
	if !any {
		return nil
	}
	return out
}

// newEvaluator picks the evaluator of m on o from the capabilities of m's
// parametrizations and o's regularizer, within paths. refs are the terms'
// reference parameters (θ̃, φ̃), which reduced terms fold into the base point.
// The reducers of the reduced terms are returned (nil without any).
func newEvaluator(m models.Method, o *problem.Objective, refs [][]float64, paths stepPaths) (stepEvaluator, []models.Reducer, error) {
	pars := terms(m)
	if paths.link != nil {
		return newLinked(m, o, refs, paths)
	}
	if paths.shards != nil {
		ev, reds, err := newShards(m, o, refs, paths, paths.shards)
		if err != nil {
			return nil, nil, err
		}
		return ev, reds, nil
	}
	if paths.device != nil {
		ev, err := newDeviceEngine(m, o, paths.device)
		if err != nil {
			return nil, nil, err
		}
		return ev, nil, nil
	}
	if paths.precision == Float32 {
		ev, err := newEngine[float32](m, o, engineOptions{native: true})
		if err != nil {
			return nil, nil, err
		}
		return ev, nil, nil
	}
	if paths.fused64 {
		ev, err := newEngine[float64](m, o, engineOptions{native: true})
		if err != nil {
			return nil, nil, err
		}
		return ev, nil, nil
	}
	if paths.fullGraph {
		ev, err := newFullGraphStep(m, o)
		return ev, nil, err
	}
	if _, native := termBinders(pars, paths.graphOnly); native && !paths.noAffine && affineTerms(pars, o.H, o.W) {
		if ev := newAffineEngine(m, o); ev != nil {
			return ev, nil, nil
		}
	}
	var reds []models.Reducer
	if !paths.noReduce && !paths.graphOnly {
		reds = reducers(pars)
	}
	ev, err := newEngine[float64](m, o, engineOptions{graphOnly: paths.graphOnly, refs: refs, reducers: reds})
	if err != nil {
		return nil, nil, err
	}
	return ev, reds, nil
}

// checkStep checks the lengths of a step's data.
func checkStep(o *problem.Objective, momentum bool, x, g, p []float64) error {
	n := o.N * o.ImageLen()
	if len(x) != n || len(g) != n || (momentum && len(p) != n) {
		return fmt.Errorf("step loss: x, ∇f(x), p have %d, %d, %d values, want %d each", len(x), len(g), len(p), n)
	}
	return nil
}
