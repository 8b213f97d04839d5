package problem

import (
	"fmt"
	"runtime"

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
	runtime.AddCleanup(e, func(t *kernels.Team) { t.Close() }, e.team)
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

// Close stops the goroutines of the evaluation; a later Eval starts them
// again.
func (e *FusedObjective[F]) Close() { e.team.Close() }
