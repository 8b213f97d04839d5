package greedy

import (
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// newLoss builds the run's step loss on this process's functions: all of
// them, or with Method.Divide its block, joined to the other blocks by the
// link (steploss.NewStepLossBlockFor).
func (tr *trainer) newLoss(o *problem.Objective) (*steploss.StepLoss, error) {
	m, w := tr.cfg.Method, tr.w
	if !w.divided() {
		return steploss.NewStepLossFor(m.Param, o, tr.tau, tr.cfg.Target)
	}
	return steploss.NewStepLossBlockFor(m.Param, o, w.n, tr.tau, tr.cfg.Target, m.Divide.Link)
}

// family is o without its data: its operators (for the certificate, which
// takes every function's), sizes and L.
func family(o *problem.Objective) *problem.Objective {
	f := *o
	f.Y, f.X0, f.Truth = nil, nil, nil
	return &f
}

// meanF returns the mean objective at x (this process's functions'
// iterates) over every process's functions, in function order: in float64
// on the CPU, or on the step loss's device where the run has one.
func (tr *trainer) meanF(x []float64) (float64, error) {
	o := tr.o
	if tr.onDevice {
		o = tr.eo
	}
	if err := o.Eval(tr.vals, nil, x, nil); err != nil {
		return 0, err
	}
	return tr.w.mean(tr.vals)
}

// saveStep hands step s to the store with every function's iterates: with
// Method.Divide the first block's process gathers them from the others.
func (tr *trainer) saveStep(s *Step) error {
	x, xprev := s.X, s.XPrev
	if tr.w.divided() {
		var err error
		if x, err = tr.w.toFirst(x); err != nil {
			return err
		}
		if xprev, err = tr.w.toFirst(xprev); err != nil {
			return err
		}
	}
	if tr.val != nil && tr.val.w.divided() {
		// The validation functions' iterates, every block's.
		all := *s
		var err error
		if all.XVal, err = tr.val.w.toFirst(s.XVal); err != nil {
			return err
		}
		if all.XValPrev, err = tr.val.w.toFirst(s.XValPrev); err != nil {
			return err
		}
		s = &all
	}
	return tr.store.save(s, x, xprev)
}

// readState reads the iterates named i (checkpoint.StateNames) of a
// resumed run's last step, of n values, and returns part's part of them.
func (tr *trainer) readState(i, n int, part func([]float64) []float64) ([]float64, error) {
	v, err := checkpoint.ReadNPYVerified(tr.cfg.Store.Dir, checkpoint.StateFile(checkpoint.StateNames[i], tr.start), n, tr.man.Checksums)
	if err != nil {
		return nil, err
	}
	return append([]float64(nil), part(v)...), nil
}
