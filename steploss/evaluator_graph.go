package steploss

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	G "gorgonia.org/gorgonia"
)

// fullGraphStep is the step loss as one gorgonia graph: the update
// (models.Method.GraphUpdate) and the objective (problem.Objective.GraphValue),
// differentiated whole by one gorgonia.Grad. It is what the engine computes with graph terms,
// at several times the cost, and stays as a reference for tests
// (stepPaths.fullGraph).
type fullGraphStep struct {
	machine     *graph.Machine
	theta, phi  *G.Node
	x, g, p, y  *G.Node
	loss, xPlus *G.Node
}

// newFullGraphStep builds the loss graph of m on o.
func newFullGraphStep(m models.Method, o *problem.Objective) (*fullGraphStep, error) {
	h, w := o.H, o.W
	gr := G.NewGraph()
	s := &fullGraphStep{}
	s.theta = graph.Input(gr, "theta", m.G.ParamShape(h, w)...)
	s.x = graph.Input(gr, "x", o.N, h, w)
	s.g = graph.Input(gr, "grad", o.N, h, w)
	s.y = graph.Input(gr, "y", o.DataShape(o.N)...)
	wrt := G.Nodes{s.theta}
	if m.H != nil {
		s.phi = graph.Input(gr, "phi", m.H.ParamShape(h, w)...)
		s.p = graph.Input(gr, "momentum", o.N, h, w)
		wrt = append(wrt, s.phi)
	}
	xp, err := m.GraphUpdate(s.theta, s.phi, s.x, s.g, s.p)
	if err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	s.xPlus = xp
	fsum, err := o.GraphValue(xp, s.y)
	if err != nil {
		return nil, fmt.Errorf("step loss: objective: %w", err)
	}
	if s.loss, err = G.Mul(fsum, G.NewConstant(1/float64(o.N))); err != nil {
		return nil, err
	}
	if _, err := G.Grad(s.loss, wrt...); err != nil {
		return nil, fmt.Errorf("step loss: differentiating: %w", err)
	}
	s.machine = graph.NewMachine(gr, wrt...)
	if err := graph.Set(s.y, o.Y); err != nil {
		return nil, err
	}
	return s, nil
}

// kind implements stepEvaluator.
func (s *fullGraphStep) kind() string { return "full-graph" }

// close implements stepEvaluator.
func (s *fullGraphStep) close() error { return s.machine.Close() }

// setStep implements stepEvaluator.
func (s *fullGraphStep) setStep(x, g, p []float64) ([]models.Reduction, error) {
	if err := graph.Set(s.x, x); err != nil {
		return nil, err
	}
	if err := graph.Set(s.g, g); err != nil {
		return nil, err
	}
	if s.p != nil {
		if err := graph.Set(s.p, p); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// run evaluates the graph at params.
func (s *fullGraphStep) run(params [][]float64) error {
	if err := graph.Set(s.theta, params[0]); err != nil {
		return err
	}
	if s.phi != nil {
		if err := graph.Set(s.phi, params[1]); err != nil {
			return err
		}
	}
	return s.machine.Run()
}

// eval implements stepEvaluator.
func (s *fullGraphStep) eval(params, grads [][]float64) (float64, error) {
	if err := s.run(params); err != nil {
		return 0, err
	}
	v, err := graph.Scalar(s.loss)
	if err != nil || grads == nil {
		return v, err
	}
	for i, n := range []*G.Node{s.theta, s.phi}[:len(grads)] {
		if grads[i] == nil {
			continue // frozen (block mode): the graph computes it anyway
		}
		d, err := graph.Grad(n)
		if err != nil {
			return 0, err
		}
		for j, x := range d {
			grads[i][j] += x
		}
	}
	return v, nil
}

// next implements stepEvaluator.
func (s *fullGraphStep) next(dst []float64, params [][]float64) error {
	if err := s.run(params); err != nil {
		return err
	}
	v, err := graph.Value(s.xPlus)
	if err != nil {
		return err
	}
	copy(dst, v)
	return nil
}

// bytes implements stepEvaluator.
func (s *fullGraphStep) bytes() int64 { return graph.HeldBytes(s.machine.Graph) }
