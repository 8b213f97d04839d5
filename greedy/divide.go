package greedy

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// newBlockLoss builds this process's block of the step loss (Method.Divide).
func newBlockLoss(m Method, o *problem.Objective, tau float64, t execution.Target) (*steploss.StepLoss, error) {
	d := m.Divide
	if d.Lo < 0 || d.Hi > o.N || d.Lo >= d.Hi || d.Link == nil {
		return nil, fmt.Errorf("greedy: dividing the step loss: block [%d, %d) of %d functions (and a link) wanted", d.Lo, d.Hi, o.N)
	}
	sub, err := o.Block(d.Lo, d.Hi)
	if err != nil {
		return nil, err
	}
	return steploss.NewStepLossBlockFor(m.Param, sub, o.N, tau, t, d.Link)
}

// innerLoss is the step loss the inner solver evaluates: this process's
// block with Method.Divide, the whole one otherwise.
func (tr *trainer) innerLoss() *steploss.StepLoss {
	if tr.block != nil {
		return tr.block
	}
	return tr.loss
}

// setBlockStep gives the block its functions' operands of the step.
func (tr *trainer) setBlockStep(grad, p []float64) error {
	if tr.block == nil {
		return nil
	}
	hw, d := tr.o.ImageLen(), tr.cfg.Method.Divide
	part := func(v []float64) []float64 { return v[d.Lo*hw : d.Hi*hw] }
	return tr.block.SetStep(part(tr.x), part(grad), part(p), 0, 0)
}

// setWeights sets the step's penalty weights on the step losses.
func (tr *trainer) setWeights(lambda, mu float64) error {
	if err := tr.loss.SetWeights(lambda, mu); err != nil {
		return err
	}
	if tr.block != nil {
		return tr.block.SetWeights(lambda, mu)
	}
	return nil
}

// evaluations counts the step-loss evaluations so far, as one process
// counts them on its one step loss.
func (tr *trainer) evaluations() int {
	n := tr.loss.Evaluations()
	if tr.block != nil {
		n += tr.block.Evaluations()
	}
	return n
}
