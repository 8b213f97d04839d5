package greedy

import (
	"fmt"
	"math"
	"runtime"

	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/problem"
)

// StepLossMPST is the greedy step loss of M-PS (G = θI, H = φI with scalar
// θ, φ) evaluated in precision F (float32 or float64) through the objective's
// fused kernels (problem.FusedObjective[F]):
//
//	x⁺ = x − θ g + φ p
//	L(θ, φ) = (1/N) Σk fk(xk⁺) + λ/2 (θ − θ̃)² + μ/2 (φ − φ̃)²
//	∂L/∂θ = −(1/N) Σk ⟨∇fk(xk⁺), gk⟩ + λ(θ − θ̃)
//	∂L/∂φ =  (1/N) Σk ⟨∇fk(xk⁺), pk⟩ + μ(φ − φ̃)
//
// with θ̃ = τ and φ̃ = 0, as in StepLoss for "m-ps". Unlike StepLoss's affine
// path, which precomputes the residual and analysis directions once per step
// and then does only pointwise work, every evaluation here runs the
// objective's blur, adjoint and Huber-TV gradient at x⁺: it is the step loss
// of a method whose x⁺ is not affine in few parameters, written for M-PS so
// that it can be checked against StepLoss and timed in both precisions.
//
// SetStep rounds x, g and p once to F. An evaluation forms x⁺ in float64
// from the stored F values and rounds it once to F (so for float32, x⁺ has
// one rounding, not three); f and ∇f at x⁺ come from FusedObjective[F]
// (values accumulated in float64, gradients in F); the inner products
// ⟨∇fk(xk⁺), gk⟩ and ⟨∇fk(xk⁺), pk⟩ accumulate in float64 (kernels.DotT),
// one per image, and the per-image values and products are summed in image
// order, so the result does not depend on how the images are shared out.
// The loss, its gradient and the parameters stay float64.
//
// Evaluations allocate nothing (after the first): the images are shared out
// by kernels.Team goroutines kept between evaluations, stopped by Close or
// when the StepLossMPST is garbage collected. A StepLossMPST is not safe for
// concurrent use.
type StepLossMPST[F kernels.Float] struct {
	N, H, W int

	obj        *problem.FusedObjective[F]
	run        *mpsRun[F]
	team       *kernels.Team
	refTheta   float64
	lambda, mu float64
	loaded     bool
}

// mpsRun is the state the team's goroutines see. It does not refer to the
// StepLossMPST, so that the latter can be collected and its team stopped.
type mpsRun[F kernels.Float] struct {
	hw           int
	dots         bool // the phase: false forms x⁺, true the inner products
	theta, phi   float64
	x, g, p      []F       // the step's data, [N,H,W]
	xPlus, r     []F       // x⁺ and ∇f(x⁺)
	vals         []float64 // fk(xk⁺)
	dTheta, dPhi []float64 // ⟨∇fk(xk⁺), gk⟩, ⟨∇fk(xk⁺), pk⟩
}

// chunk runs the current phase on images [lo, hi).
func (m *mpsRun[F]) chunk(_, lo, hi int) {
	a, b := lo*m.hw, hi*m.hw
	if !m.dots {
		x, g, p, xp := m.x[a:b], m.g[a:b], m.p[a:b], m.xPlus[a:b]
		g, p, xp = g[:len(x)], p[:len(x)], xp[:len(x)]
		th, ph := m.theta, m.phi
		for i, v := range x {
			xp[i] = F(float64(v) - th*float64(g[i]) + ph*float64(p[i]))
		}
		return
	}
	for k := lo; k < hi; k++ {
		s, e := k*m.hw, (k+1)*m.hw
		r := m.r[s:e]
		m.dTheta[k] = kernels.DotT(r, m.g[s:e])
		m.dPhi[k] = kernels.DotT(r, m.p[s:e])
	}
}

// NewStepLossMPST returns the M-PS step loss on o's functions in precision F,
// with reference θ̃ = tau (and φ̃ = 0), or an error if o has no fused
// evaluation (see problem.FusedObjective).
func NewStepLossMPST[F kernels.Float](o *problem.Objective, tau float64) (*StepLossMPST[F], error) {
	if o == nil || o.N < 1 {
		return nil, fmt.Errorf("step loss: no functions to train on")
	}
	obj, err := problem.NewFusedObjective[F](o)
	if err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	hw := o.ImageLen()
	n := o.N * hw
	r := &mpsRun[F]{
		hw: hw,
		x:  make([]F, n), g: make([]F, n), p: make([]F, n),
		xPlus: make([]F, n), r: make([]F, n),
		vals: make([]float64, o.N), dTheta: make([]float64, o.N), dPhi: make([]float64, o.N),
	}
	s := &StepLossMPST[F]{N: o.N, H: o.H, W: o.W, obj: obj, run: r, team: kernels.NewTeam(r.chunk), refTheta: tau}
	runtime.AddCleanup(s, func(t *kernels.Team) { t.Close() }, s.team)
	return s, nil
}

// Reference returns (θ̃, φ̃) = (τ, 0).
func (s *StepLossMPST[F]) Reference() []float64 { return []float64{s.refTheta, 0} }

// SetStep loads one greedy step: iterates x, gradients g = ∇f(x), momentum
// directions p = x − x⁻ (all [N,H,W], float64, rounded once to F) and the
// weights λ, μ.
func (s *StepLossMPST[F]) SetStep(x, g, p []float64, lambda, mu float64) error {
	n := len(s.run.x)
	if len(x) != n || len(g) != n || len(p) != n {
		return fmt.Errorf("step loss: x, ∇f(x), p have %d, %d, %d values, want %d each", len(x), len(g), len(p), n)
	}
	kernels.Convert(s.run.x, x)
	kernels.Convert(s.run.g, g)
	kernels.Convert(s.run.p, p)
	s.lambda, s.mu = lambda, mu
	s.loaded = true
	return nil
}

// Eval returns L(u) at u = (θ, φ) and, if grad (length 2) is not nil, writes
// (∂L/∂θ, ∂L/∂φ) into it. Without grad only the values fk(xk⁺) are computed.
func (s *StepLossMPST[F]) Eval(u, grad []float64) (float64, error) {
	if !s.loaded {
		return math.NaN(), fmt.Errorf("step loss: SetStep was not called")
	}
	if len(u) != 2 {
		return math.NaN(), fmt.Errorf("step loss: %d parameters, want 2 (θ, φ)", len(u))
	}
	if grad != nil && len(grad) != 2 {
		return math.NaN(), fmt.Errorf("step loss: gradient has %d slots, want 2", len(grad))
	}
	r := s.run
	theta, phi := u[0], u[1]
	r.theta, r.phi, r.dots = theta, phi, false
	s.team.Run(s.N)
	var rg []F
	if grad != nil {
		rg = r.r
	}
	if err := s.obj.Eval(r.vals, rg, r.xPlus); err != nil {
		return math.NaN(), fmt.Errorf("step loss: %w", err)
	}
	inv := 1 / float64(s.N)
	var sum float64
	for _, v := range r.vals {
		sum += v
	}
	dt, dp := theta-s.refTheta, phi
	loss := sum*inv + 0.5*s.lambda*dt*dt + 0.5*s.mu*dp*dp
	if grad == nil {
		return loss, nil
	}
	r.dots = true
	s.team.Run(s.N)
	var gt, gp float64
	for k := range r.dTheta {
		gt += r.dTheta[k]
		gp += r.dPhi[k]
	}
	grad[0] = -gt*inv + s.lambda*dt
	grad[1] = gp*inv + s.mu*dp
	return loss, nil
}

// Close stops the goroutines of the evaluation (the loss's and the fused
// objective's); a later Eval starts them again.
func (s *StepLossMPST[F]) Close() {
	s.team.Close()
	s.obj.Close()
}
