package problem

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/greedyl2o/greedyl2o/kernels"
)

// FusedObjective evaluates the batched f_k and ∇f_k of a deblurring
// objective in precision F (float32 or float64): objectives that
// Objective.Eval runs through its fused path, ½‖s·B x − y_k‖² + α·S(x) with B
// a separable blur (any boundary) and S Huber-TV or absent, such as
// Problem 1's. It runs the same generic kernels as Objective.Eval, which is
// the float64 instance: FusedObjective[float64] gives Eval's results bit for
// bit.
//
// In float32 the blur factors (with s folded into the column factor), the
// data y_k, ε and α are rounded once to float32; pixels, residuals and
// gradients are computed and stored in float32; the function values are
// accumulated in float64. The data are copied when the FusedObjective is
// made: later changes to the Objective are not seen.
//
// Evaluations allocate nothing (after the first): the images are shared out
// among goroutines kept by the FusedObjective (kernels.Team), which are
// stopped by Close or when the FusedObjective is garbage collected. A
// FusedObjective is not safe for concurrent use.
type FusedObjective[F kernels.Float] struct {
	N, H, W int

	run  *fusedRun[F]
	team *kernels.Team
	// cleanup stops the team if the objective is dropped without Close.
	cleanup runtime.Cleanup
}

// fusedRun is the state the team's goroutines see: the problem, the current
// evaluation's slices and one scratch per chunk. It does not refer to the
// FusedObjective, so that the latter can be collected and its team stopped.
type fusedRun[F kernels.Float] struct {
	fp      fusedProblem[F]
	vals    []float64
	grad, x []F
	scratch []*fusedScratchT[F]
}

func (r *fusedRun[F]) chunk(worker, lo, hi int) {
	fusedImages(r.fp, r.vals, r.grad, r.x, r.scratch[worker], lo, hi)
}

// NewFusedObjective returns the evaluation of o in precision F, or an error
// if o is not of the fused kind (see FusedObjective).
func NewFusedObjective[F kernels.Float](o *Objective) (*FusedObjective[F], error) {
	b, s, tv, ok := o.fusedBlur()
	hw := o.ImageLen()
	if !ok || len(o.Y) != o.N*hw {
		return nil, fmt.Errorf("objective with operator %v: no fused evaluation (needs a separable blur, Huber-TV or no regularizer, and data of image size)", o.A)
	}
	fp := fusedProblem[F]{
		sep: convertSeparable[F](b.sep, s), s: 1,
		y: make([]F, len(o.Y)), n: o.N, h: o.H, w: o.W,
		tv: tv != nil, alpha: o.Alpha,
	}
	kernels.Convert(fp.y, o.Y)
	if tv != nil {
		fp.eps = tv.Eps
	}
	r := &fusedRun[F]{fp: fp}
	e := &FusedObjective[F]{N: o.N, H: o.H, W: o.W, run: r, team: kernels.NewTeam(r.chunk)}
	e.cleanup = runtime.AddCleanup(e, func(t *kernels.Team) { t.Close() }, e.team)
	return e, nil
}

// Eval computes f_k(x_k) into vals (length N, may be nil) and ∇f_k(x_k) into
// grad ([N,H,W], may be nil) for the batch x.
func (e *FusedObjective[F]) Eval(vals []float64, grad, x []F) error {
	hw := e.H * e.W
	if len(x) != e.N*hw {
		return fmt.Errorf("objective: iterate has %d values, want %d (N=%d, %d×%d)", len(x), e.N*hw, e.N, e.H, e.W)
	}
	if vals != nil && len(vals) != e.N {
		return fmt.Errorf("objective: %d value slots, want %d", len(vals), e.N)
	}
	if grad != nil && len(grad) != len(x) {
		return fmt.Errorf("objective: gradient has %d values, want %d", len(grad), len(x))
	}
	r := e.run
	for nw := kernels.ParallelChunks(e.N, nil); len(r.scratch) < nw; {
		r.scratch = append(r.scratch, &fusedScratchT[F]{})
	}
	r.vals, r.grad, r.x = vals, grad, x
	e.team.Run(e.N)
	r.vals, r.grad, r.x = nil, nil, nil
	return nil
}

// Workers prepares scratch for EvalImages calls from n concurrent workers.
func (e *FusedObjective[F]) Workers(n int) {
	for len(e.run.scratch) < n {
		e.run.scratch = append(e.run.scratch, &fusedScratchT[F]{})
	}
}

// EvalImages is Eval for the images lo ≤ k < hi alone, on the calling
// goroutine with the scratch of worker (0 ≤ worker < the n of Workers):
// vals[k] (vals of length N, or nil) and grad's and x's image k ([N,H,W]
// slices). Calls with different workers may run concurrently on disjoint
// images. The results are Eval's, image for image.
func (e *FusedObjective[F]) EvalImages(worker int, vals []float64, grad, x []F, lo, hi int) {
	fusedImages(e.run.fp, vals, grad, x, e.run.scratch[worker], lo, hi)
}

// Close stops the goroutines of the evaluation; a later Eval starts them
// again.
func (e *FusedObjective[F]) Close() {
	e.cleanup.Stop() // the runtime then holds nothing of the evaluation
	e.team.Close()
}

// Precision names the floating-point type an evaluation computes in.
type Precision string

// The precisions.
const (
	// Float64 is the default: every evaluation.
	Float64 Precision = "float64"
	// Float32 evaluates f and ∇f in float32 through ObjectiveT[float32]
	// (values summed in float64; see kernels.Float): deblurring with a
	// separable blur (Problem 1) and CT (Problem 2), with Huber-TV or no
	// regularizer.
	Float32 Precision = "float32"
)

// ParsePrecision parses "float64" or "float32" ("" means Float64).
func ParsePrecision(s string) (Precision, error) {
	switch Precision(s) {
	case "", Float64:
		return Float64, nil
	case Float32:
		return Float32, nil
	}
	return "", fmt.Errorf("unknown precision %q: use float64 or float32", s)
}

// InPrecision returns o evaluated in precision p: for Float64 o itself (or,
// for an objective already in float32, a float64 copy); for Float32 a copy
// whose Eval (and Mean) rounds the iterates to float32, computes f and ∇f in
// float32 (NewObjectiveT[float32]) and returns them as float64 values. The
// copy shares o's data; its Setting records "precision": "float32", and its
// Subsets stay in float32. Methods that run on it keep their own vector
// arithmetic (steps, momentum, line searches) in float64: what changes is
// every evaluation of f and ∇f, their dominant cost. Graph evaluations
// (GraphValue, GraphGrad) stay float64. It returns an error for objectives
// without a float32 evaluation (see NewObjectiveT).
func (o *Objective) InPrecision(p Precision) (*Objective, error) {
	p, err := ParsePrecision(string(p))
	if err != nil {
		return nil, err
	}
	c := *o
	c.single, c.external = nil, nil
	if p == Float64 {
		if o.single == nil && o.external == nil {
			return o, nil
		}
		return &c, nil
	}
	f, err := NewObjectiveT[float32](&c)
	if err != nil {
		return nil, fmt.Errorf("float32 evaluation: %w", err)
	}
	n := o.N * o.ImageLen()
	c.single = &singleEval{f: f, x: make([]float32, n), g: make([]float32, n)}
	return &c, nil
}

// Precision returns the precision Eval computes in.
func (o *Objective) Precision() Precision {
	if o.single != nil {
		return Float32
	}
	return Float64
}

// singleEval is an Objective's float32 evaluation: the fused evaluator and
// its float32 copies of the iterate and the gradient, used by one Eval at a
// time.
type singleEval struct {
	mu   sync.Mutex
	f    ObjectiveT[float32]
	x, g []float32
}

func (s *singleEval) eval(vals, grad, x []float64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(x) != len(s.x) {
		return fmt.Errorf("objective: iterate has %d values, want %d", len(x), len(s.x))
	}
	kernels.Convert(s.x, x)
	var g []float32
	if grad != nil {
		g = s.g
	}
	if err := s.f.Eval(vals, g, s.x); err != nil {
		return err
	}
	if grad != nil {
		kernels.Convert(grad, s.g)
	}
	return nil
}
