package greedy

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/param"
	"github.com/greedyl2o/greedyl2o/problem"
	G "gorgonia.org/gorgonia"
)

// StepLoss is the greedy one-step loss
//
//	g(θ, φ) = (1/N) Σk fk(xk − G_θ gk + H_φ pk) + λ/2‖θ − θ̃‖² + μ/2‖φ − φ̃‖²
//
// as a gorgonia graph built once; SetStep loads the data of a step (x, g = ∇f(x),
// p = x − x⁻, λ, μ), and Eval evaluates g and its gradient at u = (θ, φ)
// concatenated. A StepLoss is not safe for concurrent use.
//
// When G (and H) implement param.Binder, as the built-in PS, PP, PC-k and
// PC do, no graph is built: θ ↦ G_θ g and φ ↦ H_φ p are bound once per step
// and the loss is evaluated by direct kernels (see fastStep), which agrees
// with the graph to rounding. Other parametrizations use the graph, with
// gradients from gorgonia.
//
// When a parametrization on the fast path also implements param.Reducer (PF
// does), its block is solved in the coordinates z of the step's subspace,
// θ = θ̃ + E z: then Dim, ThetaLen and Reference describe these working
// coordinates, which change with every SetStep, and Params expands a point
// to the full parameters. The reduction is exact (see param.Reducer).
type StepLoss struct {
	method   param.Method
	obj      *problem.Objective
	nTheta   int
	nPhi     int
	refTheta []float64
	refPhi   []float64

	machine              *graph.Machine
	theta, phi           *G.Node
	x, g, p, y           *G.Node
	thetaRef, phiRef     *G.Node
	lambda, mu           *G.Node
	loss, xPlus          *G.Node
	evaluations          int
	lastU                []float64
	lastLoss             float64
	lastGrad             []float64
	haveLast             bool
	lambdaValue, muValue float64

	fast *fastStep // nil: the graph path

	// Reduced blocks (nil without any): the reducer of each block, or nil
	// for a block bound in full, and the current step's reductions.
	reducers   []param.Reducer
	reductions []param.Reduction
	fullRefs   [][]float64 // θ̃ and φ̃ of the full parameters
	nFull      [2]int      // full len(θ), len(φ)
}

// NewStepLoss builds the loss for the method on the objective's functions:
// the fast path when the method's parametrizations implement param.Binder,
// the graph otherwise. tau sets the reference θ̃ (G = τI); φ̃ gives H = 0.
func NewStepLoss(m param.Method, o *problem.Objective, tau float64) (*StepLoss, error) {
	return newStepLoss(m, o, tau, stepPaths{})
}

// stepPaths restricts the evaluation paths of a step loss (for tests and
// benchmarks); the zero value allows every path.
type stepPaths struct {
	graphOnly bool // the gorgonia graph, no fast path
	noReduce  bool // bind reducible parametrizations (PF) in full
	noAffine  bool // bound operators for PS and M-PS instead of the affine form
}

// newStepLoss builds the loss on the paths that paths allows.
func newStepLoss(m param.Method, o *problem.Objective, tau float64, paths stepPaths) (*StepLoss, error) {
	if m.G == nil {
		return nil, fmt.Errorf("step loss: the method has no parametrization of G")
	}
	if o == nil || o.N < 1 {
		return nil, fmt.Errorf("step loss: no functions to train on")
	}
	s := &StepLoss{method: m, obj: o}
	h, w := o.H, o.W
	if !paths.graphOnly {
		if s.fast = newFastStep(m, o); s.fast != nil {
			if !paths.noAffine {
				s.fast.affine = newAffineStep(m, o)
			}
			s.nTheta = m.G.ParamShape(h, w).TotalSize()
			s.refTheta = m.G.Reference(tau, h, w)
			if m.H != nil {
				s.nPhi = m.H.ParamShape(h, w).TotalSize()
				s.refPhi = m.H.Reference(0, h, w)
			}
			s.nFull = [2]int{s.nTheta, s.nPhi}
			if !paths.noReduce {
				s.initReducers()
			}
			return s, nil
		}
	}
	gr := G.NewGraph()
	ts := m.G.ParamShape(h, w)
	s.theta = graph.Input(gr, "theta", ts...)
	s.thetaRef = graph.Input(gr, "theta_ref", ts...)
	s.nTheta = ts.TotalSize()
	s.refTheta = m.G.Reference(tau, h, w)
	s.x = graph.Input(gr, "x", o.N, h, w)
	s.g = graph.Input(gr, "grad", o.N, h, w)
	s.y = graph.Input(gr, "y", o.DataShape(o.N)...)
	s.lambda = graph.Input(gr, "lambda")
	wrt := G.Nodes{s.theta}
	pen, err := penalty(s.theta, s.thetaRef, s.lambda)
	if err != nil {
		return nil, err
	}
	if m.H != nil {
		ps := m.H.ParamShape(h, w)
		s.phi = graph.Input(gr, "phi", ps...)
		s.phiRef = graph.Input(gr, "phi_ref", ps...)
		s.nPhi = ps.TotalSize()
		s.refPhi = m.H.Reference(0, h, w)
		s.p = graph.Input(gr, "momentum", o.N, h, w)
		s.mu = graph.Input(gr, "mu")
		penPhi, err := penalty(s.phi, s.phiRef, s.mu)
		if err != nil {
			return nil, err
		}
		if pen, err = G.Add(pen, penPhi); err != nil {
			return nil, err
		}
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
	mean, err := G.Mul(fsum, G.NewConstant(1/float64(o.N)))
	if err != nil {
		return nil, err
	}
	if s.loss, err = G.Add(mean, pen); err != nil {
		return nil, err
	}
	if _, err := G.Grad(s.loss, wrt...); err != nil {
		return nil, fmt.Errorf("step loss: differentiating: %w", err)
	}
	s.machine = graph.NewMachine(gr, wrt...)
	if err := graph.Set(s.thetaRef, s.refTheta); err != nil {
		return nil, err
	}
	if s.phiRef != nil {
		if err := graph.Set(s.phiRef, s.refPhi); err != nil {
			return nil, err
		}
	}
	if err := graph.Set(s.y, o.Y); err != nil {
		return nil, err
	}
	return s, nil
}

// penalty returns w/2 ‖a − b‖².
func penalty(a, b, w *G.Node) (*G.Node, error) {
	d, err := G.Sub(a, b)
	if err != nil {
		return nil, err
	}
	sq, err := G.Sum(G.Must(G.Square(d)))
	if err != nil {
		return nil, err
	}
	return G.Mul(G.Must(G.Mul(sq, w)), G.NewConstant(0.5))
}

// Dim is the number of parameters, len(θ) + len(φ).
func (s *StepLoss) Dim() int { return s.nTheta + s.nPhi }

// ThetaLen is len(θ); u[:ThetaLen()] is θ and u[ThetaLen():] is φ.
func (s *StepLoss) ThetaLen() int { return s.nTheta }

// Reference returns ũ = (θ̃, φ̃).
func (s *StepLoss) Reference() []float64 {
	return append(append([]float64(nil), s.refTheta...), s.refPhi...)
}

// Evaluations counts calls of Eval that ran the graph.
func (s *StepLoss) Evaluations() int { return s.evaluations }

// SetStep loads the data of one greedy step: iterates x, gradients g = ∇f(x),
// momentum directions p = x − x⁻ (ignored without H), and the weights λ, μ.
func (s *StepLoss) SetStep(x, g, p []float64, lambda, mu float64) error {
	if s.fast != nil {
		reds, err := s.fast.setStep(x, g, p, s.fullRefs, s.reducers)
		if err != nil {
			return err
		}
		if reds != nil {
			s.setReductions(reds)
		}
		s.lambdaValue, s.muValue = lambda, mu
		s.haveLast = false
		return nil
	}
	if err := graph.Set(s.x, x); err != nil {
		return err
	}
	if err := graph.Set(s.g, g); err != nil {
		return err
	}
	if err := graph.Set(s.lambda, []float64{lambda}); err != nil {
		return err
	}
	s.lambdaValue, s.muValue = lambda, mu
	if s.p != nil {
		if err := graph.Set(s.p, p); err != nil {
			return err
		}
		if err := graph.Set(s.mu, []float64{mu}); err != nil {
			return err
		}
	}
	s.haveLast = false
	return nil
}

// SetWeights replaces the penalty weights λ and μ of the current step.
func (s *StepLoss) SetWeights(lambda, mu float64) error {
	s.haveLast = false
	s.lambdaValue, s.muValue = lambda, mu
	if s.fast != nil {
		return nil
	}
	if err := graph.Set(s.lambda, []float64{lambda}); err != nil {
		return err
	}
	if s.mu != nil {
		return graph.Set(s.mu, []float64{mu})
	}
	return nil
}

// Eval returns g(u) and, if grad is not nil, writes ∇g(u) into it.
func (s *StepLoss) Eval(u, grad []float64) (float64, error) {
	if len(u) != s.Dim() {
		return math.NaN(), fmt.Errorf("step loss: %d parameters, want %d", len(u), s.Dim())
	}
	if grad != nil && len(grad) != s.Dim() {
		return math.NaN(), fmt.Errorf("step loss: gradient has %d slots, want %d", len(grad), s.Dim())
	}
	if s.haveLast && equal(u, s.lastU) {
		if grad != nil {
			copy(grad, s.lastGrad)
		}
		return s.lastLoss, nil
	}
	if s.fast != nil {
		return s.evalFast(u, grad)
	}
	if err := graph.Set(s.theta, u[:s.nTheta]); err != nil {
		return math.NaN(), err
	}
	if s.phi != nil {
		if err := graph.Set(s.phi, u[s.nTheta:]); err != nil {
			return math.NaN(), err
		}
	}
	if err := s.machine.Run(); err != nil {
		return math.NaN(), err
	}
	s.evaluations++
	v, err := graph.Scalar(s.loss)
	if err != nil {
		return math.NaN(), err
	}
	if cap(s.lastGrad) < s.Dim() {
		s.lastGrad = make([]float64, s.Dim())
	}
	s.lastGrad = s.lastGrad[:s.Dim()]
	gt, err := graph.Grad(s.theta)
	if err != nil {
		return math.NaN(), err
	}
	copy(s.lastGrad, gt)
	if s.phi != nil {
		gp, err := graph.Grad(s.phi)
		if err != nil {
			return math.NaN(), err
		}
		copy(s.lastGrad[s.nTheta:], gp)
	}
	s.lastU = append(s.lastU[:0], u...)
	s.lastLoss = v
	s.haveLast = true
	if grad != nil {
		copy(grad, s.lastGrad)
	}
	return v, nil
}

// Next writes x⁺(u) = x − G_θ g + H_φ p into dst.
func (s *StepLoss) Next(dst, u []float64) error {
	if s.fast != nil {
		if len(u) != s.Dim() {
			return fmt.Errorf("step loss: %d parameters, want %d", len(u), s.Dim())
		}
		if len(dst) != len(s.fast.xPlus) {
			return fmt.Errorf("step loss: next iterate has %d values, want %d", len(dst), len(s.fast.xPlus))
		}
		if err := s.fast.next(s.split(u)); err != nil {
			return err
		}
		copy(dst, s.fast.xPlus)
		return nil
	}
	s.haveLast = false
	if _, err := s.Eval(u, nil); err != nil {
		return err
	}
	v, err := graph.Value(s.xPlus)
	if err != nil {
		return err
	}
	copy(dst, v)
	return nil
}

// Close releases the graph machine.
func (s *StepLoss) Close() error {
	if s.machine == nil {
		return nil
	}
	return s.machine.Close()
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// HeldBytes is the number of bytes of tensors the loss graph holds after an
// evaluation (values and gradients): the memory of one greedy step, which
// does not depend on the number of steps trained.
func (s *StepLoss) HeldBytes() int64 {
	if s.fast != nil {
		return s.fast.bytes()
	}
	return graph.HeldBytes(s.machine.Graph)
}

// split returns θ and (if there is H) φ as views of u.
func (s *StepLoss) split(u []float64) [][]float64 {
	if s.method.H == nil {
		return [][]float64{u[:s.nTheta]}
	}
	return [][]float64{u[:s.nTheta], u[s.nTheta:]}
}

// evalFast is Eval on the fast path. Without grad only the value is
// computed (no ∇f, no adjoints) and the last-value cache is left alone.
func (s *StepLoss) evalFast(u, grad []float64) (float64, error) {
	params := s.split(u)
	if grad == nil {
		v, err := s.fast.eval(params, nil)
		if err != nil {
			return math.NaN(), err
		}
		s.evaluations++
		return v + s.penalties(params, nil), nil
	}
	if cap(s.lastGrad) < s.Dim() {
		s.lastGrad = make([]float64, s.Dim())
	}
	g := s.lastGrad[:s.Dim()]
	s.haveLast = false // g is about to be overwritten
	clear(g)
	grads := s.split(g)
	v, err := s.fast.eval(params, grads)
	if err != nil {
		return math.NaN(), err
	}
	s.evaluations++
	v += s.penalties(params, grads)
	s.lastGrad = g
	s.lastU = append(s.lastU[:0], u...)
	s.lastLoss = v
	s.haveLast = true
	copy(grad, g)
	return v, nil
}

// penalties returns λ/2‖θ − θ̃‖² + μ/2‖φ − φ̃‖² and adds its gradient to
// grads (if not nil).
func (s *StepLoss) penalties(params, grads [][]float64) float64 {
	var gt, gp []float64
	if grads != nil {
		gt = grads[0]
		if len(grads) > 1 {
			gp = grads[1]
		}
	}
	v := penaltyAdd(gt, params[0], s.refTheta, s.lambdaValue)
	if len(params) > 1 {
		v += penaltyAdd(gp, params[1], s.refPhi, s.muValue)
	}
	return v
}

// initReducers records which blocks of a fast-path method are reduced.
func (s *StepLoss) initReducers() {
	pars := []param.Parametrization{s.method.G}
	if s.method.H != nil {
		pars = append(pars, s.method.H)
	}
	reducers := make([]param.Reducer, len(pars))
	any := false
	for i, p := range pars {
		if r, ok := p.(param.Reducer); ok {
			reducers[i], any = r, true
		}
	}
	if !any {
		return
	}
	s.reducers = reducers
	s.fullRefs = [][]float64{s.refTheta, s.refPhi}[:len(pars)]
}

// setReductions switches the working coordinates of the reduced blocks to
// the step's reductions, whose reference point is z = 0.
func (s *StepLoss) setReductions(reds []param.Reduction) {
	s.reductions = reds
	lens := s.nFull
	refs := [2][]float64{s.fullRefs[0], nil}
	if len(s.fullRefs) > 1 {
		refs[1] = s.fullRefs[1]
	}
	for i, r := range reds {
		if r != nil {
			lens[i] = r.Len()
			refs[i] = make([]float64, r.Len())
		}
	}
	s.nTheta, s.nPhi = lens[0], lens[1]
	s.refTheta, s.refPhi = refs[0], refs[1]
}

// ParamLens returns len(θ) and len(φ) of the full parameters (equal to
// ThetaLen and Dim − ThetaLen unless a block is reduced).
func (s *StepLoss) ParamLens() (theta, phi int) {
	if s.reducers == nil {
		return s.nTheta, s.nPhi
	}
	return s.nFull[0], s.nFull[1]
}

// Params returns the full parameters θ and φ (nil without H) of the point u
// in working coordinates, as new slices.
func (s *StepLoss) Params(u []float64) (theta, phi []float64, err error) {
	if len(u) != s.Dim() {
		return nil, nil, fmt.Errorf("step loss: %d parameters, want %d", len(u), s.Dim())
	}
	parts := s.split(u)
	out := make([][]float64, len(parts))
	for i, part := range parts {
		if s.reductions == nil || s.reductions[i] == nil {
			out[i] = append([]float64(nil), part...)
			continue
		}
		full := append([]float64(nil), s.fullRefs[i]...)
		if err := s.reductions[i].AddExpand(full, part); err != nil {
			return nil, nil, fmt.Errorf("step loss: %w", err)
		}
		out[i] = full
	}
	if len(out) > 1 {
		return out[0], out[1], nil
	}
	return out[0], nil, nil
}

// Curvature returns ‖(1/N) Σk Bkᵀ Bk‖ of block b (0: θ, 1: φ) in working
// coordinates when the block is reduced (exact, from the reduction); ok is
// false otherwise.
func (s *StepLoss) Curvature(b int) (c float64, ok bool) {
	if s.reductions == nil || b >= len(s.reductions) || s.reductions[b] == nil {
		return 0, false
	}
	return s.reductions[b].Curvature(), true
}

// Precondition returns the preconditioner (C + shift)^(−1/2) of block b in
// working coordinates when the block is reduced; ok is false otherwise.
func (s *StepLoss) Precondition(b int, shift float64) (apply func(dst, src []float64), ok bool) {
	if s.reductions == nil || b >= len(s.reductions) || s.reductions[b] == nil {
		return nil, false
	}
	return s.reductions[b].Precondition(shift), true
}
