package steploss

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
// does not depend on the parametrization, so only the terms are gorgonia
// graphs: with B(θ, φ) = −G_θ g + H_φ p,
//
//	x⁺ = x + B(θ, φ)                       (the graphs' forward passes: Apply)
//	f_k(x⁺), ∇f_k(x⁺)                      (the objective's direct kernels)
//	∇_(θ,φ) (1/N) Σk fk(xk⁺) = J_Bᵀ r,  r = (1/N) ∇f(x⁺)
//
// and the vector–Jacobian product J_Bᵀ r is the graphs' backward pass, from
// one gorgonia.Backpropagate with r fed in as the term's output gradient
// (graph.VJP). No adjoint is written by hand, and Apply may be nonlinear in
// θ. Each term is its own graph (G_θ g depends on θ and g alone), built once
// and re-run, with inputs its parameters, its operand and r; the terms' r
// nodes share one buffer, which the objective's kernels write. In block
// mode (evalBlock) only the active term's graph runs: the frozen term's
// output is kept from its last forward pass at its parameters.
type graphStep struct {
	o     *problem.Objective
	signs []float64 // of the terms: −1 for G, +1 for H
	terms []*graphTerm
	rData []float64 // the value of r, written by the objective's kernels

	x, xPlus, vals []float64
	ws             problem.Workspace
	loaded         bool

	frozen frozenTerms
	fout   []float64 // the frozen term's output
}

// graphTerm is one term's graph: out = P_param(operand), and the product of
// its Jacobian in param with the cotangent r.
type graphTerm struct {
	param, operand, r *G.Node
	vjp               *graph.VJP
}

// newGraphStep builds the terms' graphs for pars (G, then H if any) on o.
func newGraphStep(pars []param.Parametrization, o *problem.Objective) (*graphStep, error) {
	n, h, w := o.N, o.H, o.W
	size := n * o.ImageLen()
	s := &graphStep{o: o, signs: termSigns[:len(pars)], rData: make([]float64, size)}
	names := [2][2]string{{"theta", "grad"}, {"phi", "momentum"}}
	for i, p := range pars {
		gr := G.NewGraph()
		tm := &graphTerm{
			param:   graph.Input(gr, names[i][0], p.ParamShape(h, w)...),
			operand: graph.Input(gr, names[i][1], n, h, w),
			r:       graph.InputOn(gr, "r", s.rData, n, h, w),
		}
		out, err := p.Apply(tm.param, tm.operand)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("step loss: %s: %w", p.Name(), err)
		}
		if want := (tensor.Shape{n, h, w}); !out.Shape().Eq(want) {
			s.close()
			return nil, fmt.Errorf("step loss: %s gives shape %v for a batch %v", p.Name(), out.Shape(), want)
		}
		if tm.vjp, err = graph.NewVJP(gr, G.Nodes{out}, G.Nodes{tm.r}, G.Nodes{tm.param}); err != nil {
			s.close()
			return nil, fmt.Errorf("step loss: differentiating %s: %w", p.Name(), err)
		}
		s.terms = append(s.terms, tm)
	}
	s.x, s.xPlus, s.vals = make([]float64, size), make([]float64, size), make([]float64, n)
	return s, nil
}

// kind implements stepEvaluator.
func (s *graphStep) kind() string { return "graph" }

// close implements stepEvaluator.
func (s *graphStep) close() error {
	var err error
	for _, tm := range s.terms {
		if e := tm.vjp.Close(); err == nil {
			err = e
		}
	}
	return err
}

// setStep implements stepEvaluator.
func (s *graphStep) setStep(x, g, p []float64) ([]param.Reduction, error) {
	copy(s.x, x)
	for i, v := range [][]float64{g, p}[:len(s.terms)] {
		if err := graph.Set(s.terms[i].operand, v); err != nil {
			return nil, fmt.Errorf("step loss: %w", err)
		}
	}
	s.frozen.valid = false
	s.loaded = true
	return nil, nil
}

// forward runs term i's graph at params and returns its output (a view).
func (s *graphStep) forward(i int, params []float64) ([]float64, error) {
	tm := s.terms[i]
	if err := graph.Set(tm.param, params); err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	if err := tm.vjp.Forward(); err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	out, err := tm.vjp.Output(0)
	if err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	return out, nil
}

// combine writes x⁺ = (x − a) + b (b nil without H), in the order of
// param.Method.GraphUpdate, into s.xPlus.
func (s *graphStep) combine(a, b []float64) {
	x, xp := s.x, s.xPlus
	if b == nil {
		for j, v := range a {
			xp[j] = x[j] - v
		}
		return
	}
	kernels.ParallelFor(len(xp), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			xp[j] = x[j] - a[j] + b[j]
		}
	})
}

// advance writes x⁺ for params into s.xPlus.
func (s *graphStep) advance(params [][]float64) error {
	if !s.loaded {
		return fmt.Errorf("step loss: SetStep was not called")
	}
	var ts [2][]float64
	for i := range s.terms {
		t, err := s.forward(i, params[i])
		if err != nil {
			return err
		}
		ts[i] = t
	}
	s.combine(ts[0], ts[1])
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

// objective evaluates the objective at s.xPlus, writes r into s.rData if
// withGrad, and returns the mean value.
func (s *graphStep) objective(withGrad bool) (float64, error) {
	var r []float64
	if withGrad {
		r = s.rData
	}
	if err := s.o.Eval(s.vals, r, s.xPlus, &s.ws); err != nil {
		return 0, fmt.Errorf("step loss: %w", err)
	}
	var sum float64
	for _, v := range s.vals {
		sum += v
	}
	return sum / float64(s.o.N), nil
}

// backward runs term i's backward pass and adds sign/N times its product
// with r to grad.
func (s *graphStep) backward(i int, grad []float64) error {
	tm := s.terms[i]
	if err := tm.vjp.Backward(); err != nil {
		return fmt.Errorf("step loss: %w", err)
	}
	d, err := tm.vjp.Grad(0)
	if err != nil {
		return fmt.Errorf("step loss: %w", err)
	}
	if len(d) != len(grad) {
		return fmt.Errorf("step loss: gradient of term %d has %d values, want %d", i, len(d), len(grad))
	}
	c := s.signs[i] * (1 / float64(s.o.N))
	for j, v := range d {
		grad[j] += c * v
	}
	return nil
}

// eval implements stepEvaluator.
func (s *graphStep) eval(params, grads [][]float64) (float64, error) {
	if a, ok := activeTerm(grads); ok {
		return s.evalBlock(a, params, grads[a])
	}
	if err := s.advance(params); err != nil {
		return 0, err
	}
	v, err := s.objective(grads != nil)
	if err != nil || grads == nil {
		return v, err
	}
	for i := range s.terms {
		if err := s.backward(i, grads[i]); err != nil {
			return 0, err
		}
	}
	return v, nil
}

// evalBlock implements stepEvaluator: the frozen term's output is kept
// (fout) and only the active term's graph runs.
func (s *graphStep) evalBlock(a int, params [][]float64, grad []float64) (float64, error) {
	if a < 0 || a >= len(s.terms) {
		return 0, fmt.Errorf("step loss: no term %d", a)
	}
	if !s.loaded {
		return 0, fmt.Errorf("step loss: SetStep was not called")
	}
	var ts [2][]float64
	if len(s.terms) > 1 {
		f := 1 - a
		if !s.frozen.holds(a, params) {
			out, err := s.forward(f, params[f])
			if err != nil {
				return 0, err
			}
			s.fout = append(s.fout[:0], out...)
			s.frozen.set(a, params)
		}
		ts[f] = s.fout
	}
	out, err := s.forward(a, params[a])
	if err != nil {
		return 0, err
	}
	ts[a] = out
	s.combine(ts[0], ts[1])
	v, err := s.objective(true)
	if err != nil {
		return 0, err
	}
	if err := s.backward(a, grad); err != nil {
		return 0, err
	}
	return v, nil
}

// bytes implements stepEvaluator.
func (s *graphStep) bytes() int64 {
	t := int64(8 * (len(s.x) + len(s.xPlus) + len(s.vals) + len(s.rData) + len(s.fout)))
	for _, tm := range s.terms {
		t += graph.HeldBytes(tm.vjp.Graph)
	}
	return t
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
