package greedy

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/models"
)

// validator runs the learned steps on validation functions during training,
// as Algorithm 2 will on unseen functions, and scores candidate steps by the
// mean validation objective after them.
type validator struct {
	o    *models.Objective
	loss *StepLoss // in full parameters
	x    []float64 // current iterates
	prev []float64 // previous iterates
	grad []float64
	p    []float64
	next []float64 // iterates after the best candidate so far
	try  []float64 // scratch for a candidate
	ws   models.Workspace
}

func newValidator(m models.Method, o *models.Objective, tau float64) (*validator, error) {
	loss, err := newStepLoss(m, o, tau, stepPaths{noReduce: true})
	if err != nil {
		return nil, fmt.Errorf("validation functions: %w", err)
	}
	n := len(o.X0)
	return &validator{
		o: o, loss: loss,
		x: append([]float64(nil), o.X0...), prev: append([]float64(nil), o.X0...),
		grad: make([]float64, n), p: make([]float64, n), next: make([]float64, n), try: make([]float64, n),
	}, nil
}

// begin binds the step at the current validation iterates.
func (v *validator) begin() error {
	if err := v.o.Eval(nil, v.grad, v.x, &v.ws); err != nil {
		return fmt.Errorf("validation functions: %w", err)
	}
	for i := range v.p {
		v.p[i] = v.x[i] - v.prev[i]
	}
	return v.loss.SetStep(v.x, v.grad, v.p, 0, 0)
}

// score returns the mean validation objective after the step with the full
// parameters θ, φ (+Inf when it is not finite); keep makes that step's
// iterates the ones advance moves to.
func (v *validator) score(theta, phi []float64) (float64, error) {
	u := append(append([]float64(nil), theta...), phi...)
	if err := v.loss.Next(v.try, u); err != nil {
		return 0, fmt.Errorf("validation functions: %w", err)
	}
	mf, err := v.o.Mean(v.try)
	if err != nil {
		return 0, fmt.Errorf("validation functions: %w", err)
	}
	if math.IsNaN(mf) {
		mf = math.Inf(1)
	}
	return mf, nil
}

// keep records the last scored step as the best so far.
func (v *validator) keep() { v.next, v.try = v.try, v.next }

// advance moves the validation iterates to those of the kept step.
func (v *validator) advance() {
	v.prev, v.x, v.next = v.x, v.next, v.prev
}

func (v *validator) close() error { return v.loss.Close() }
