package greedy

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// validator runs the learned steps on validation functions during training,
// as Algorithm 2 will on unseen functions, and scores candidate steps by the
// mean validation objective after them. With a lookahead of K > 1 a
// candidate step is applied K times in a row, as Algorithm 2 repeats the
// last step beyond T, and scored by the objective after the K-th
// application: a step that fits one iteration but diverges when repeated
// scores badly.
type validator struct {
	o         *problem.Objective
	loss      *steploss.StepLoss // in full parameters
	lookahead int
	x         []float64 // current iterates
	prev      []float64 // previous iterates
	grad      []float64
	p         []float64
	next      []float64 // iterates after the best candidate so far
	try       []float64 // scratch for a candidate
	ahead     [3][]float64
	ws        problem.Workspace
}

func newValidator(m models.Method, o *problem.Objective, tau float64, lookahead int) (*validator, error) {
	loss, err := steploss.NewStepLossFull(m, o, tau)
	if err != nil {
		return nil, fmt.Errorf("validation functions: %w", err)
	}
	n := len(o.X0)
	v := &validator{
		o: o, loss: loss, lookahead: max(lookahead, 1),
		x: append([]float64(nil), o.X0...), prev: append([]float64(nil), o.X0...),
		grad: make([]float64, n), p: make([]float64, n), next: make([]float64, n), try: make([]float64, n),
	}
	if v.lookahead > 1 {
		for i := range v.ahead {
			v.ahead[i] = make([]float64, n)
		}
	}
	return v, nil
}

// begin binds the step at the current validation iterates.
func (v *validator) begin() error {
	return v.bind(v.x, v.prev)
}

// bind binds the step at iterates x with previous iterates prev.
func (v *validator) bind(x, prev []float64) error {
	if err := v.o.Eval(nil, v.grad, x, &v.ws); err != nil {
		return fmt.Errorf("validation functions: %w", err)
	}
	for i := range v.p {
		v.p[i] = x[i] - prev[i]
	}
	return v.loss.SetStep(x, v.grad, v.p, 0, 0)
}

// score returns the mean validation objective after the step with the full
// parameters θ, φ (f1), and after lookahead applications of it (score;
// equal to f1 without lookahead). Values that are not finite become +Inf.
// The iterates after one step are kept for keep.
func (v *validator) score(theta, phi []float64) (score, f1 float64, err error) {
	u := append(append([]float64(nil), theta...), phi...)
	if err := v.loss.Next(v.try, u); err != nil {
		return 0, 0, fmt.Errorf("validation functions: %w", err)
	}
	if f1, err = v.mean(v.try); err != nil {
		return 0, 0, err
	}
	if v.lookahead == 1 || math.IsInf(f1, 1) {
		return f1, f1, nil
	}
	prev, cur, nxt := v.ahead[0], v.ahead[1], v.ahead[2]
	copy(prev, v.x)
	copy(cur, v.try)
	score = f1
	for j := 1; j < v.lookahead; j++ {
		if err := v.again(nxt, cur, prev, u); err != nil {
			return 0, 0, err
		}
		prev, cur, nxt = cur, nxt, prev
		if score, err = v.mean(cur); err != nil {
			return 0, 0, err
		}
		if math.IsInf(score, 1) {
			break
		}
	}
	// Bind the current step again for the next candidate.
	return score, f1, v.begin()
}

// again writes into nxt the step with full parameters u applied once more
// at cur (previous iterates prev), as Algorithm 2 repeats its last step.
func (v *validator) again(nxt, cur, prev, u []float64) error {
	if err := v.bind(cur, prev); err != nil {
		return err
	}
	if err := v.loss.Next(nxt, u); err != nil {
		return fmt.Errorf("validation functions: %w", err)
	}
	return nil
}

// mean is the mean validation objective at x, +Inf when it is not finite.
func (v *validator) mean(x []float64) (float64, error) {
	mf, err := v.o.Mean(x)
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
