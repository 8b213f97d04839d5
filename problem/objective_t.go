package problem

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/tomo"
)

// ObjectiveT evaluates the batched f_k and ∇f_k of an Objective in precision
// F (float32 or float64): f_k(x_k) into vals (length N, may be nil, summed in
// float64) and ∇f_k(x_k) into grad ([N,H,W], may be nil, in F) for the batch
// x in F. An ObjectiveT is not safe for concurrent use; Close releases its
// goroutines.
type ObjectiveT[F kernels.Float] interface {
	Eval(vals []float64, grad, x []F) error
	Close()
}

// NewObjectiveT returns the evaluation of o in precision F for the kinds that
// have one: deblurring with a separable blur (FusedObjective) and CT with the
// ray transform (Problem 2), each with Huber-TV or no regularizer. Other
// objectives (WCRR, non-separable blurs, automatic regularizers) return an
// error.
func NewObjectiveT[F kernels.Float](o *Objective) (ObjectiveT[F], error) {
	if _, _, _, ok := o.fusedBlur(); ok {
		return NewFusedObjective[F](o)
	}
	if ct, err := newCTObjective[F](o); ct != nil || err != nil {
		return ct, err
	}
	return nil, fmt.Errorf("objective with operator %v and regularizer %v: no %s evaluation (needs a separable blur or the ray transform, with Huber-TV or no regularizer)", o.A, o.Reg, precisionName[F]())
}

// precisionName names F.
func precisionName[F kernels.Float]() Precision {
	if is32[F]() {
		return Float32
	}
	return Float64
}

// ctObjective is Problem 2's objective in precision F:
// f_k(x) = ½‖s·R x − y_k‖² + α·S(x), R the ray transform (tomo.ForwardT,
// tomo.AdjointT), S Huber-TV (the fused evaluation's per-image kernel) or
// absent. s, y_k, α and ε are rounded to F once; values sum in float64.
type ctObjective[F kernels.Float] struct {
	p       *tomo.Projector
	s       F
	y       []F
	n, h, w int
	m       int // data length of one function
	tv      bool
	alpha   float64
	eps     float64
	res     []F
	up      []F
}

// newCTObjective returns the CT evaluation of o, or nil (and no error) if o
// is not a ray-transform objective with Huber-TV or no regularizer.
func newCTObjective[F kernels.Float](o *Objective) (*ctObjective[F], error) {
	s, a := 1.0, o.A
	if sc, ok := a.(*Scaled); ok {
		s, a = sc.Scale, sc.Op
	}
	rt, ok := a.(*RayTransform)
	if !ok {
		return nil, nil
	}
	c := &ctObjective[F]{p: rt.P, s: F(s), n: o.N, h: o.H, w: o.W, m: o.DataLen(), alpha: o.Alpha}
	if !(o.Alpha == 0 || o.Reg == nil || o.Reg.Zero()) {
		switch r := o.Reg.(type) {
		case HuberTV:
			c.tv, c.eps = true, r.Eps
		case *HuberTV:
			c.tv, c.eps = true, r.Eps
		default:
			return nil, nil
		}
	}
	if len(o.Y) != o.N*c.m {
		return nil, fmt.Errorf("ct objective: %d data values for %d functions of %d", len(o.Y), o.N, c.m)
	}
	c.y = make([]F, len(o.Y))
	kernels.Convert(c.y, o.Y)
	c.res = make([]F, len(o.Y))
	c.up = make([]F, 4*o.W)
	return c, nil
}

// Eval implements ObjectiveT.
func (c *ctObjective[F]) Eval(vals []float64, grad, x []F) error {
	hw := c.h * c.w
	if len(x) != c.n*hw {
		return fmt.Errorf("objective: iterate has %d values, want %d (N=%d, %d×%d)", len(x), c.n*hw, c.n, c.h, c.w)
	}
	if vals != nil && len(vals) != c.n {
		return fmt.Errorf("objective: %d value slots, want %d", len(vals), c.n)
	}
	if grad != nil && len(grad) != len(x) {
		return fmt.Errorf("objective: gradient has %d values, want %d", len(grad), len(x))
	}
	if err := tomo.ForwardT(c.p, c.res, x, c.n); err != nil {
		return fmt.Errorf("objective: %w", err)
	}
	for i, y := range c.y {
		c.res[i] = c.s*c.res[i] - y
	}
	if vals != nil {
		for k := range vals {
			var d float64
			for _, r := range c.res[k*c.m : (k+1)*c.m] {
				d += float64(r) * float64(r)
			}
			vals[k] = 0.5 * d
		}
	}
	if grad != nil {
		if err := tomo.AdjointT(c.p, grad, c.res, c.n); err != nil {
			return fmt.Errorf("objective: %w", err)
		}
		for i := range grad {
			grad[i] *= c.s
		}
	}
	if !c.tv {
		return nil
	}
	for k := 0; k < c.n; k++ {
		var gk []F
		if grad != nil {
			gk = grad[k*hw : (k+1)*hw]
		}
		v := huberTVImage(gk, x[k*hw:(k+1)*hw], c.h, c.w, c.eps, c.alpha, c.up)
		if vals != nil {
			vals[k] += c.alpha * v
		}
	}
	return nil
}

// Close implements ObjectiveT.
func (c *ctObjective[F]) Close() {}
