package steploss

import (
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// NewStepLossFor is the step loss of m on o for the execution target t:
// NewStepLossOn with t's device, NewStepLossIn in t's precision on the CPU.
func NewStepLossFor(m models.Method, o *problem.Objective, tau float64, t execution.Target) (*StepLoss, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	if t.Device != nil {
		return NewStepLossOn(m, o, tau, t.Device)
	}
	return NewStepLossIn(m, o, tau, t.Prec())
}

// NewStepLossBlockFor is NewStepLossBlock on the target t: on a device
// (NewStepLossBlockOn) each process sums its block on its device, so the
// processes agree with one holding every function to rounding.
func NewStepLossBlockFor(m models.Method, block *problem.Objective, total int, tau float64, t execution.Target, link Link) (*StepLoss, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	if t.Device != nil {
		return NewStepLossBlockOn(m, block, total, tau, t.Device, link)
	}
	return NewStepLossBlock(m, block, total, tau, t.Prec(), link)
}
