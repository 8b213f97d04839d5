package greedy

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/param"
	"github.com/greedyl2o/greedyl2o/problem"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// graphStep evaluates the step loss of any parametrizations from their
// forward expressions alone. The objective is the part that costs, and it
// does not depend on the parametrization, so only the terms are a gorgonia
// graph: with B(θ, φ) = −G_θ g + H_φ p,
//
//	x⁺ = x + B(θ, φ)                       (the graph's forward pass: Apply)
//	f_k(x⁺), ∇f_k(x⁺)                      (the objective's direct kernels)
//	∇_(θ,φ) (1/N) Σk fk(xk⁺) = J_Bᵀ r,  r = (1/N) ∇f(x⁺)
//
// and the vector–Jacobian product J_Bᵀ r is the graph's backward pass, from
// one gorgonia.Backpropagate with r fed in as the terms' output gradient
// (graph.VJP). No adjoint is written by hand, and Apply may be nonlinear in
// θ. The graph is built once and re-run; g, p and r are its inputs.
type graphStep struct {
	o        *problem.Objective
	signs    []float64 // of the terms: −1 for G, +1 for H
	params   []*G.Node // θ, φ
	operands []*G.Node // g, p
	r        *G.Node   // ∇f(x⁺): the terms' output gradient
	rData    []float64 // the value of r, written by the objective's kernels
	vjp      *graph.VJP

	x, xPlus, vals []float64
	ws             problem.Workspace
	loaded         bool
}

// newGraphStep builds the terms' graph for pars (G, then H if any) on o.
func newGraphStep(pars []param.Parametrization, o *problem.Objective) (*graphStep, error) {
	n, h, w := o.N, o.H, o.W
	gr := G.NewGraph()
	s := &graphStep{o: o, signs: termSigns[:len(pars)]}
	names := [2][2]string{{"theta", "grad"}, {"phi", "momentum"}}
	outs := make(G.Nodes, len(pars))
	for i, p := range pars {
		th := graph.Input(gr, names[i][0], p.ParamShape(h, w)...)
		v := graph.Input(gr, names[i][1], n, h, w)
		out, err := p.Apply(th, v)
		if err != nil {
			return nil, fmt.Errorf("step loss: %s: %w", p.Name(), err)
		}
		if want := (tensor.Shape{n, h, w}); !out.Shape().Eq(want) {
			return nil, fmt.Errorf("step loss: %s gives shape %v for a batch %v", p.Name(), out.Shape(), want)
		}
		s.params = append(s.params, th)
		s.operands = append(s.operands, v)
		outs[i] = out
	}
	s.r = graph.Input(gr, "r", n, h, w)
	cots := make(G.Nodes, len(outs))
	for i := range cots {
		cots[i] = s.r
	}
	vjp, err := graph.NewVJP(gr, outs, cots, s.params)
	if err != nil {
		return nil, fmt.Errorf("step loss: differentiating %s: %w", pars[0].Name(), err)
	}
	s.vjp = vjp
	if s.rData, err = graph.Value(s.r); err != nil {
		return nil, err
	}
	size := n * o.ImageLen()
	s.x, s.xPlus, s.vals = make([]float64, size), make([]float64, size), make([]float64, n)
	return s, nil
}

// kind implements stepEvaluator.
func (s *graphStep) kind() string { return "graph" }

// close implements stepEvaluator.
func (s *graphStep) close() error { return s.vjp.Close() }

// setStep implements stepEvaluator.
func (s *graphStep) setStep(x, g, p []float64) ([]param.Reduction, error) {
	copy(s.x, x)
	for i, v := range [][]float64{g, p}[:len(s.operands)] {
		if err := graph.Set(s.operands[i], v); err != nil {
			return nil, fmt.Errorf("step loss: %w", err)
		}
	}
	s.loaded = true
	return nil, nil
}

// advance writes x⁺ for params into s.xPlus.
func (s *graphStep) advance(params [][]float64) error {
	if !s.loaded {
		return fmt.Errorf("step loss: SetStep was not called")
	}
	for i, th := range s.params {
		if err := graph.Set(th, params[i]); err != nil {
			return fmt.Errorf("step loss: %w", err)
		}
	}
	if err := s.vjp.Forward(); err != nil {
		return fmt.Errorf("step loss: %w", err)
	}
	ts := make([][]float64, len(s.signs))
	for i := range ts {
		t, err := s.vjp.Output(i)
		if err != nil {
			return fmt.Errorf("step loss: %w", err)
		}
		ts[i] = t
	}
	// x⁺ = (x − G_θ g) + H_φ p, in the order of param.Method.GraphUpdate.
	x, xp := s.x, s.xPlus
	if len(ts) == 1 {
		for j, a := range ts[0] {
			xp[j] = x[j] - a
		}
		return nil
	}
	a, b := ts[0], ts[1]
	kernels.ParallelFor(len(xp), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			xp[j] = x[j] - a[j] + b[j]
		}
	})
	return nil
}

// next implements stepEvaluator.
func (s *graphStep) next(dst []float64, params [][]float64) error {
	if err := s.advance(params); err != nil {
		return err
	}
	copy(dst, s.xPlus)
	return nil
}

// eval implements stepEvaluator.
func (s *graphStep) eval(params, grads [][]float64) (float64, error) {
	if err := s.advance(params); err != nil {
		return 0, err
	}
	var r []float64
	if grads != nil {
		r = s.rData
	}
	if err := s.o.Eval(s.vals, r, s.xPlus, &s.ws); err != nil {
		return 0, fmt.Errorf("step loss: %w", err)
	}
	var sum float64
	for _, v := range s.vals {
		sum += v
	}
	inv := 1 / float64(s.o.N)
	if grads == nil {
		return sum * inv, nil
	}
	if err := s.vjp.Backward(); err != nil {
		return 0, fmt.Errorf("step loss: %w", err)
	}
	for i, sign := range s.signs {
		d, err := s.vjp.Grad(i)
		if err != nil {
			return 0, fmt.Errorf("step loss: %w", err)
		}
		if len(d) != len(grads[i]) {
			return 0, fmt.Errorf("step loss: gradient of term %d has %d values, want %d", i, len(d), len(grads[i]))
		}
		c := sign * inv
		for j, v := range d {
			grads[i][j] += c * v
		}
	}
	return sum * inv, nil
}

// bytes implements stepEvaluator.
func (s *graphStep) bytes() int64 {
	return int64(8*(len(s.x)+len(s.xPlus)+len(s.vals))) + graph.HeldBytes(s.vjp.Graph)
}

// fullGraphStep is the step loss as one gorgonia graph: the update
// (param.Method.GraphUpdate) and the objective (problem.Objective.GraphValue),
// differentiated whole by one gorgonia.Grad. It is what graphStep computes,
// at several times the cost, and stays as a reference for tests
// (stepPaths.fullGraph).
type fullGraphStep struct {
	machine     *graph.Machine
	theta, phi  *G.Node
	x, g, p, y  *G.Node
	loss, xPlus *G.Node
}

// newFullGraphStep builds the loss graph of m on o.
func newFullGraphStep(m param.Method, o *problem.Objective) (*fullGraphStep, error) {
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
func (s *fullGraphStep) setStep(x, g, p []float64) ([]param.Reduction, error) {
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
