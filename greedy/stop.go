package greedy

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// stopRule decides when a run ends, as Config.Stop says, from what it
// measured at the starting points: the gradient norms (the relative
// tolerance) and the mean objective (divergence), and, with OnValidation,
// the validation functions' own.
type stopRule struct {
	Stop
	factor float64 // DivergeFactor, its default filled in
	norm0  []float64
	f0     float64
	// With OnValidation: the validation functions' starting gradient
	// norms, their best mean objective so far and the steps since it.
	valNorm0 []float64
	valBest  float64
	valStale int
}

// newStopRule returns the rule of s (measured at the start by the trainer).
func newStopRule(s Stop) *stopRule {
	r := &stopRule{Stop: s, factor: s.DivergeFactor}
	if r.factor == 0 {
		r.factor = DefaultDivergeFactor
	}
	return r
}

// interrupted reports whether Interrupt asks the run to end before a step.
func (r *stopRule) interrupted() bool { return r.Interrupt != nil && r.Interrupt() }

// converged reports whether every gradient norm n_k is below the
// tolerances, the relative one against the starting norms norm0.
func (r *stopRule) converged(n, norm0 []float64) bool {
	if r.TolAbs == 0 && r.TolRel == 0 {
		return false
	}
	for k, v := range n {
		if r.TolAbs > 0 && v >= r.TolAbs {
			return false
		}
		if r.TolRel > 0 && v*v >= norm0[k]*norm0[k]/r.TolRel {
			return false
		}
	}
	return true
}

// diverged returns ErrDiverged when the mean objective mf after step t is
// not finite or exceeds the divergence factor times its starting value.
func (r *stopRule) diverged(t int, mf float64) error {
	if math.IsNaN(mf) || math.IsInf(mf, 0) {
		return fmt.Errorf("greedy: step %d: the mean training objective is %g: %w (it was %.6g at the start); use a smaller --tau or positive --lambda", t, mf, ErrDiverged, r.f0)
	}
	if r.factor > 0 && r.f0 > 0 && mf > r.factor*r.f0 {
		return fmt.Errorf("greedy: step %d: the mean training objective %.6g exceeds %g times its starting value %.6g: %w; use a smaller --tau or positive --lambda (or raise --diverge-factor)", t, mf, r.factor, r.f0, ErrDiverged)
	}
	return nil
}

// valStalled returns a stop cause when, with OnValidation and a patience,
// the validation functions' mean objective (valF after the step) has not
// improved for ValPatience steps.
func (r *stopRule) valStalled(valF float64) string {
	if !r.OnValidation || r.ValPatience == 0 {
		return ""
	}
	if valF < r.valBest {
		r.valBest, r.valStale = valF, 0
		return ""
	}
	r.valStale++
	if r.valStale >= r.ValPatience {
		return fmt.Sprintf("validation objective did not improve for %d steps", r.valStale)
	}
	return ""
}

// certified returns a stop cause when, with WhenCertified, the step's
// parameters satisfy the certificate for CertifyL (0: the functions' L).
func (r *stopRule) certified(m models.Method, o *problem.Objective, s *Step, tau float64) (string, error) {
	if !r.WhenCertified {
		return "", nil
	}
	cl := r.CertifyL
	if cl == 0 {
		cl = o.L
	}
	e1, e2, err := familyNorms(m, o, s.Theta, s.Phi, tau)
	if err != nil {
		return "", err
	}
	kind := r.Certificate
	if kind == "" {
		kind = learned.DefaultCertificate
	}
	if !learned.Certified(kind, e1, e2, tau, cl) {
		return "", nil
	}
	return "certified (" + string(kind) + ")", nil
}

// familyNorms returns ε1 = ‖G_θ − τI‖ and ε2 = ‖H_φ‖ of the method on o's
// functions: for a family of operators (problem.PerFunction) with
// operator-aware terms, the largest over its operators, so that the
// certificate holds for each.
func familyNorms(m models.Method, o *problem.Objective, theta, phi []float64, tau float64) (eps1, eps2 float64, err error) {
	_, g := m.G.(models.OperatorAware)
	_, h := m.H.(models.OperatorAware)
	pf, ok := o.A.(*problem.PerFunction)
	if !ok || !(g || h) {
		return learned.ParamNorms(m, theta, phi, tau, o.H, o.W)
	}
	seen := map[string]bool{}
	for _, a := range pf.Ops {
		if seen[a.String()] {
			continue
		}
		seen[a.String()] = true
		e1, e2, err := learned.ParamNorms(m.ForOperator(a), theta, phi, tau, o.H, o.W)
		if err != nil {
			return 0, 0, err
		}
		eps1, eps2 = max(eps1, e1), max(eps2, e2)
	}
	return eps1, eps2, nil
}
