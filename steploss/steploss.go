package steploss

import (
	"fmt"
	"math"
	"slices"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// StepLoss is the greedy one-step loss
//
//	g(θ, φ) = (1/N) Σk fk(xk − G_θ gk + H_φ pk) + λ/2‖θ − θ̃‖² + μ/2‖φ − φ̃‖²
//
// SetStep loads the data of a step (x, g = ∇f(x), p = x − x⁻, λ, μ), and Eval
// evaluates g and its gradient at u = (θ, φ) concatenated; EvalBlock
// evaluates g and the gradient of one block, the other block's term of x⁺
// held from its last parameters (for block methods: NAG). A StepLoss is not
// safe for concurrent use.
//
// The data part is evaluated by one evaluator, chosen once when the loss is
// built, from the capabilities of the parametrizations (see stepEvaluator):
// the affine form for one-parameter terms that bind (PS, M-PS), bound
// operators for parametrizations implementing models.Binder (PP, PC-k, PC),
// reduced coordinates for those that also implement models.Reducer (PF), and
// for any other parametrization a small gorgonia graph of its forward
// expression beside the objective's direct kernels, with gradients from
// gorgonia. All agree to rounding.
//
// When a term is reduced, its block is solved in the coordinates z of the
// step's subspace, θ = θ̃ + E z: then Dim, ThetaLen and Reference describe
// these working coordinates, which change with every SetStep, and Params
// expands a point to the full parameters. The reduction is exact (see
// models.Reducer).
type StepLoss struct {
	// observe, if set, sees every evaluation (Observe).
	observe  func(evaluations int, loss float64)
	method   models.Method
	obj      *problem.Objective
	ev       stepEvaluator
	nTheta   int
	nPhi     int
	refTheta []float64
	refPhi   []float64

	evaluations          int
	lastU                []float64
	lastLoss             float64
	lastGrad             []float64
	haveLast             bool
	lambdaValue, muValue float64

	// EvalBlock's last point, block, value and block gradient.
	blockU, blockGrad []float64
	blockB            int
	blockLoss         float64
	haveBlock         bool

	// Reduced blocks (nil without any): the reducer of each block, or nil
	// for a block bound in full, and the current step's reductions.
	reducers   []models.Reducer
	reductions []models.Reduction
	fullRefs   [][]float64 // θ̃ and φ̃ of the full parameters
	nFull      [2]int      // full len(θ), len(φ)
}

// NewStepLoss builds the loss for the method on the objective's functions,
// on the fastest evaluator that the method's parametrizations allow. tau
// sets the reference θ̃ (G = τI); φ̃ gives H = 0.
func NewStepLoss(m models.Method, o *problem.Objective, tau float64) (*StepLoss, error) {
	return newStepLoss(m, o, tau, stepPaths{})
}

// NewStepLossIn is NewStepLoss computing in precision prec: Float64 (or "")
// is NewStepLoss; Float32 evaluates x⁺, f, ∇f and the convolution terms in
// float32 (see Float32 for the methods and objectives it supports; others
// return an error).
func NewStepLossIn(m models.Method, o *problem.Objective, tau float64, prec Precision) (*StepLoss, error) {
	prec, err := ParsePrecision(string(prec)) // "" is Float64
	if err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	return newStepLoss(m, o, tau, stepPaths{precision: prec})
}

// NewStepLossOn is NewStepLoss evaluated with the array operations of a
// device (package gpu's Ops: gpu.CPU() in float64, the CUDA device of
// package gpu/cuda in float32), the step's arrays kept on the device between
// evaluations. It supports PS, PP, PC-k and PC terms on deblurring with
// Huber-TV or no regularizer and returns CheckDevice's error otherwise.
func NewStepLossOn(m models.Method, o *problem.Objective, tau float64, device gpu.Ops) (*StepLoss, error) {
	if device == nil {
		return nil, fmt.Errorf("step loss: no device")
	}
	return newStepLoss(m, o, tau, stepPaths{device: device})
}

// NewStepLossFull is NewStepLoss with every term in its full parameters:
// a parametrization that reduces (models.Reducer: PF) is bound in full
// instead of solved in the coordinates of the step's subspace, so that Dim,
// Reference and the points Eval and Next take are the full (θ, φ) whatever
// the step. For scoring given parameters (greedy's validation functions).
func NewStepLossFull(m models.Method, o *problem.Objective, tau float64) (*StepLoss, error) {
	return newStepLoss(m, o, tau, stepPaths{noReduce: true})
}

// newStepLoss builds the loss on the paths that paths allows.
func newStepLoss(m models.Method, o *problem.Objective, tau float64, paths stepPaths) (*StepLoss, error) {
	if m.G == nil {
		return nil, fmt.Errorf("step loss: the method has no parametrization of G")
	}
	if o == nil || o.N < 1 {
		return nil, fmt.Errorf("step loss: no functions to train on")
	}
	m = m.ForOperator(o.A) // operator-aware terms take the functions' operator
	s := &StepLoss{method: m, obj: o}
	h, w := o.H, o.W
	s.nTheta = m.G.ParamShape(h, w).TotalSize()
	s.refTheta = m.G.Reference(tau, h, w)
	if m.H != nil {
		s.nPhi = m.H.ParamShape(h, w).TotalSize()
		s.refPhi = m.H.Reference(0, h, w)
	}
	s.nFull = [2]int{s.nTheta, s.nPhi}
	refs := [][]float64{s.refTheta, s.refPhi}[:len(terms(m))]
	ev, reds, err := newEvaluator(m, o, refs, paths)
	if err != nil {
		return nil, err
	}
	s.ev = ev
	if reds != nil {
		s.reducers, s.fullRefs = reds, refs
	}
	return s, nil
}

// Dim is the number of parameters, len(θ) + len(φ).
func (s *StepLoss) Dim() int { return s.nTheta + s.nPhi }

// ThetaLen is len(θ); u[:ThetaLen()] is θ and u[ThetaLen():] is φ.
func (s *StepLoss) ThetaLen() int { return s.nTheta }

// Reference returns ũ = (θ̃, φ̃).
func (s *StepLoss) Reference() []float64 {
	return append(append([]float64(nil), s.refTheta...), s.refPhi...)
}

// Observe makes fn see every evaluation of the loss: the count so far
// (Evaluations) and the value g(u); nil stops it. For progress reports.
func (s *StepLoss) Observe(fn func(evaluations int, loss float64)) { s.observe = fn }

func (s *StepLoss) notify(v float64) {
	if s.observe != nil {
		s.observe(s.evaluations, v)
	}
}

// Evaluations counts the calls of Eval that evaluated the loss (not those
// answered from the last value).
func (s *StepLoss) Evaluations() int { return s.evaluations }

// SetStep loads the data of one greedy step: iterates x, gradients g = ∇f(x),
// momentum directions p = x − x⁻ (ignored without H), and the weights λ, μ.
func (s *StepLoss) SetStep(x, g, p []float64, lambda, mu float64) error {
	if err := checkStep(s.obj, s.method.H != nil, x, g, p); err != nil {
		return err
	}
	reds, err := s.ev.setStep(x, g, p)
	if err != nil {
		return err
	}
	if reds != nil {
		s.setReductions(reds)
	}
	s.lambdaValue, s.muValue = lambda, mu
	s.haveLast, s.haveBlock = false, false
	return nil
}

// SetWeights replaces the penalty weights λ and μ of the current step.
func (s *StepLoss) SetWeights(lambda, mu float64) error {
	s.haveLast, s.haveBlock = false, false
	s.lambdaValue, s.muValue = lambda, mu
	return nil
}

// Eval returns g(u) and, if grad is not nil, writes ∇g(u) into it. Without
// grad only the value is computed (no ∇f, no adjoints) and the last-value
// cache is left alone.
func (s *StepLoss) Eval(u, grad []float64) (float64, error) {
	if len(u) != s.Dim() {
		return math.NaN(), fmt.Errorf("step loss: %d parameters, want %d", len(u), s.Dim())
	}
	if grad != nil && len(grad) != s.Dim() {
		return math.NaN(), fmt.Errorf("step loss: gradient has %d slots, want %d", len(grad), s.Dim())
	}
	if s.haveLast && slices.Equal(u, s.lastU) {
		if grad != nil {
			copy(grad, s.lastGrad)
		}
		return s.lastLoss, nil
	}
	params := s.split(u)
	if grad == nil {
		v, err := s.ev.eval(params, nil)
		if err != nil {
			return math.NaN(), err
		}
		s.evaluations++
		v += s.penalties(params, nil)
		s.notify(v)
		return v, nil
	}
	if cap(s.lastGrad) < s.Dim() {
		s.lastGrad = make([]float64, s.Dim())
	}
	g := s.lastGrad[:s.Dim()]
	s.haveLast = false // g is about to be overwritten
	clear(g)
	grads := s.split(g)
	v, err := s.ev.eval(params, grads)
	if err != nil {
		return math.NaN(), err
	}
	s.evaluations++
	v += s.penalties(params, grads)
	s.notify(v)
	s.lastGrad = g
	s.lastU = append(s.lastU[:0], u...)
	s.lastLoss = v
	s.haveLast = true
	copy(grad, g)
	return v, nil
}

// BlockLen is the length of block b (0: θ, 1: φ) in working coordinates.
func (s *StepLoss) BlockLen(b int) int {
	if b == 0 {
		return s.nTheta
	}
	return s.nPhi
}

// EvalBlock returns g(u) and writes the gradient of g in block b alone
// (0: θ, 1: φ) into grad, of length BlockLen(b): what a block method needs
// while the other block stays fixed. The other block's term of x⁺ is
// computed when its parameters are first seen and reused while they stay
// the same (for PC its spectra, one per image), and its adjoint is not
// computed, so an evaluation costs one term instead of two. The value and
// the block's gradient are Eval's, bitwise on amd64 (to rounding where the
// compiler fuses multiply–adds; see stepEvaluator.eval).
// A call at the point and block of the previous call is answered from its
// result, as Eval answers from its last value, and not counted in
// Evaluations.
func (s *StepLoss) EvalBlock(b int, u, grad []float64) (float64, error) {
	if len(u) != s.Dim() {
		return math.NaN(), fmt.Errorf("step loss: %d parameters, want %d", len(u), s.Dim())
	}
	nb := len(terms(s.method))
	if b < 0 || b >= nb {
		return math.NaN(), fmt.Errorf("step loss: no block %d (the method has %d)", b, nb)
	}
	if len(grad) != s.BlockLen(b) {
		return math.NaN(), fmt.Errorf("step loss: gradient of block %d has %d slots, want %d", b, len(grad), s.BlockLen(b))
	}
	if s.haveBlock && s.blockB == b && s.sameBlockPoint(b, u) {
		copy(grad, s.blockGrad)
		return s.blockLoss, nil
	}
	s.haveBlock = false
	var buf, gbuf [2][]float64
	params := s.splitInto(buf[:0], u)
	kernels.ClearLarge(grad)
	grads := gbuf[:len(params)]
	grads[b] = grad
	v, err := s.ev.eval(params, grads)
	if err != nil {
		return math.NaN(), err
	}
	s.evaluations++
	// The penalties as penalties adds them, the gradient of block b alone.
	var gt, gp []float64
	if b == 0 {
		gt = grad
	} else {
		gp = grad
	}
	pen := penaltyAdd(gt, params[0], s.refTheta, s.lambdaValue)
	if len(params) > 1 {
		pen += penaltyAdd(gp, params[1], s.refPhi, s.muValue)
	}
	v += pen
	s.notify(v)
	s.blockU = copyInto(s.blockU, u)
	s.blockGrad = copyInto(s.blockGrad, grad)
	s.blockB, s.blockLoss, s.haveBlock = b, v, true
	return v, nil
}

// sameBlockPoint reports whether u is EvalBlock's last point, comparing
// block b first (where a block method's points differ).
func (s *StepLoss) sameBlockPoint(b int, u []float64) bool {
	if len(s.blockU) != len(u) {
		return false
	}
	lo, hi := 0, s.nTheta
	if b == 1 {
		lo, hi = s.nTheta, len(u)
	}
	return slices.Equal(u[lo:hi], s.blockU[lo:hi]) && slices.Equal(u[:lo], s.blockU[:lo]) && slices.Equal(u[hi:], s.blockU[hi:])
}

// Next writes x⁺(u) = x − G_θ g + H_φ p into dst.
func (s *StepLoss) Next(dst, u []float64) error {
	if len(u) != s.Dim() {
		return fmt.Errorf("step loss: %d parameters, want %d", len(u), s.Dim())
	}
	if n := s.obj.N * s.obj.ImageLen(); len(dst) != n {
		return fmt.Errorf("step loss: next iterate has %d values, want %d", len(dst), n)
	}
	return s.ev.next(dst, s.split(u))
}

// DeviceObjective returns the step loss's functions evaluated on its
// device (problem.BatchEvaluator; attach it with problem.Objective.
// OnEvaluator), sharing the data the step loss holds there, or nil where
// the step loss runs on the CPU. A trainer takes f and ∇f at its iterates
// from it, so that they are computed where the step loss computes them
// (on CUDA in float32 with float64 sums). It is the step loss's: Close
// frees it, and it must not be called while an evaluation runs.
func (s *StepLoss) DeviceObjective() (problem.BatchEvaluator, error) {
	d, ok := s.ev.(interface {
		deviceObjective() (problem.BatchEvaluator, error)
	})
	if !ok {
		return nil, nil
	}
	return d.deviceObjective()
}

// Close releases the evaluator (its graph machines, if it has any).
func (s *StepLoss) Close() error { return s.ev.close() }

// HeldBytes is the number of bytes the evaluator holds after an evaluation
// (buffers, bound operators, graph values and gradients): the memory of one
// greedy step, which does not depend on the number of steps trained.
func (s *StepLoss) HeldBytes() int64 { return s.ev.bytes() }

// split returns θ and (if there is H) φ as views of u.
func (s *StepLoss) split(u []float64) [][]float64 {
	return s.splitInto(make([][]float64, 0, 2), u)
}

// splitInto appends θ and (if there is H) φ, views of u, to dst.
func (s *StepLoss) splitInto(dst [][]float64, u []float64) [][]float64 {
	if s.method.H == nil {
		return append(dst, u[:s.nTheta])
	}
	return append(dst, u[:s.nTheta], u[s.nTheta:])
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

// setReductions switches the working coordinates of the reduced blocks to
// the step's reductions, whose reference point is z = 0.
func (s *StepLoss) setReductions(reds []models.Reduction) {
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

// copyInto returns dst holding a copy of src, reusing dst's storage when it
// is large enough (kernels.CopyLarge: long vectors on every core).
func copyInto(dst, src []float64) []float64 {
	if cap(dst) < len(src) {
		dst = make([]float64, len(src))
	}
	dst = dst[:len(src)]
	kernels.CopyLarge(dst, src)
	return dst
}
