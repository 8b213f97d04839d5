package greedy

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/models"
)

// The sums over the functions a step needs besides the step loss (the
// data curvatures and the preconditioner), on a world whose processes
// each hold a block of the functions: each continues the running sums of
// the blocks before it with its own functions, so every process gets one
// process's numbers bit for bit. On one process they are the plain
// functions (blockCurvature, paperCurvature, Preconditioner).

// curvature is blockCurvature of the operands v (this block's functions)
// of every process: the power iteration's adjoint Σk Bkᵀ yk passes along
// the link at every iteration (adjoint).
func (w world) curvature(p models.Parametrization, v []float64, h, wd int) (float64, error) {
	if !w.divided() {
		return blockCurvature(p, v, w.n, h, wd)
	}
	b, ok := p.(models.Binder)
	if !ok {
		return 0, fmt.Errorf("greedy: the data curvature of %s does not divide between processes (it has no bound operator)", p.Name())
	}
	bd, err := b.Bind(v, w.hi-w.lo, h, wd)
	if err != nil {
		return 0, err
	}
	y := make([]float64, len(v))
	return powerIteration(p.ParamShape(h, wd).TotalSize(), func(x []float64) error {
		clear(y)
		if err := bd.AddApply(y, x, 1); err != nil {
			return err
		}
		clear(x)
		return w.adjoint(bd, x, y, 1/float64(w.n))
	})
}

// adjoint adds c Σk Bkᵀ rk over every process's functions to dst (zero
// or this process's own sum so far), r being this block's: through the
// operator's running sum where its adjoint is one (models.SummedBound,
// models.AdjointSum), else through dst itself, which the operator
// continues function by function (PP, PF).
func (w world) adjoint(bd models.Bound, dst, r []float64, c float64) error {
	switch b := bd.(type) {
	case models.SummedBound:
		sum := make([]float64, b.SumLen())
		if err := w.sum(sum, func(s []float64) error { return b.AddSum(s, r, w.n) }); err != nil {
			return err
		}
		b.FinishSum(dst, sum, c)
		return nil
	case models.AdjointSum:
		sum := make([]float64, b.AdjointSumLen())
		if err := w.sum(sum, func(s []float64) error { return b.AddAdjointSum(s, r) }); err != nil {
			return err
		}
		return b.FinishAdjointSum(dst, sum, c)
	}
	return w.sum(dst, func(d []float64) error { return bd.AddAdjoint(d, r, c) })
}

// paperCurvature is paperCurvature of every process's operands v.
func (w world) paperCurvature(p models.Parametrization, v []float64, h, wd int) (float64, error) {
	if !w.divided() {
		return paperCurvature(p, v, w.n, h, wd)
	}
	sum := []float64{0}
	err := w.sum(sum, func(s []float64) error {
		// (1/n) Σk ‖Bk‖² of the block times n is its Σk ‖Bk‖², added in
		// order to the running sum.
		return addPaperNorms(s, p, v, w.hi-w.lo, h, wd)
	})
	return sum[0] / float64(w.n), err
}

// addPaperNorms adds ‖Bk‖² of the n functions of v to s[0], in order.
func addPaperNorms(s []float64, p models.Parametrization, v []float64, n, h, wd int) error {
	hw := h * wd
	for k := range n {
		c, err := paperCurvature(p, v[k*hw:(k+1)*hw], 1, h, wd)
		if err != nil {
			return err
		}
		s[0] += c
	}
	return nil
}

// precondition is the Preconditioner of p from every process's operands v
// (this block's), ok false when p has none.
func (w world) precondition(p models.Parametrization, v []float64, h, wd int, shift float64) (func(dst, src []float64), bool, error) {
	pc, ok := p.(models.Preconditioner)
	if !ok {
		return nil, false, nil
	}
	if !w.divided() {
		f, ok := pc.Precondition(v, w.n, h, wd, shift)
		return f, ok, nil
	}
	sp, ok := p.(models.SummedPreconditioner)
	if !ok {
		return nil, false, fmt.Errorf("greedy: the preconditioner of %s does not divide between processes (no running sum: models.SummedPreconditioner)", p.Name())
	}
	sum := make([]float64, sp.CurvatureSumLen(h, wd))
	err := w.sum(sum, func(s []float64) error {
		sp.AddCurvature(s, v, h, wd, w.n)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return sp.PreconditionSum(sum, h, wd, shift), true, nil
}

// norms returns ‖g_k‖ of every process's functions, g being this block's
// gradients.
func (w world) norms(g []float64) ([]float64, error) {
	return w.all(blockNorms(g, w.hi-w.lo))
}
