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
// scores badly. With Divide.ValTotal each process holds and steps its block
// of the validation functions (o nil when it holds none), and the means,
// gradient norms and repeat checks are combined over the processes in
// function order (w).
type validator struct {
	o         *problem.Objective // this process's validation functions
	w         world
	loss      *steploss.StepLoss // in full parameters; nil when o is
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

// newValidator returns the validator of the functions o (this process's
// block of w's, nil when it holds none).
func newValidator(m models.Method, o *problem.Objective, w world, tau float64, lookahead int) (*validator, error) {
	v := &validator{o: o, w: w, lookahead: max(lookahead, 1)}
	n := 0
	if o != nil {
		var err error
		if v.loss, err = steploss.NewStepLossFull(m, o, tau); err != nil {
			return nil, fmt.Errorf("validation functions: %w", err)
		}
		n = len(o.X0)
	}
	v.x, v.prev = v.start(), v.start()
	v.grad, v.p, v.next, v.try = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
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

// start returns a copy of this process's starting points.
func (v *validator) start() []float64 {
	if v.o == nil {
		return []float64{}
	}
	return append([]float64(nil), v.o.X0...)
}

// bind binds the step at iterates x with previous iterates prev.
func (v *validator) bind(x, prev []float64) error {
	if v.o == nil {
		return nil
	}
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
	if err := v.apply(v.try, u); err != nil {
		return 0, 0, err
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
	return v.apply(nxt, u)
}

// apply writes into dst the bound step with full parameters u applied to
// this process's functions.
func (v *validator) apply(dst, u []float64) error {
	if v.o == nil {
		return nil
	}
	if err := v.loss.Next(dst, u); err != nil {
		return fmt.Errorf("validation functions: %w", err)
	}
	return nil
}

// mean is the mean validation objective at x, +Inf when it is not finite.
func (v *validator) mean(x []float64) (float64, error) {
	mf, err := v.meanAt(x)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(mf) {
		mf = math.Inf(1)
	}
	return mf, nil
}

// meanAt is the mean objective of every validation function, x being this
// process's iterates (Objective.Mean's sum, in function order).
func (v *validator) meanAt(x []float64) (float64, error) {
	vals := make([]float64, v.w.hi-v.w.lo)
	if v.o != nil {
		if err := v.o.Eval(vals, nil, x, nil); err != nil {
			return 0, fmt.Errorf("validation functions: %w", err)
		}
	}
	return v.w.mean(vals)
}

// norms returns ‖∇f_k‖ of every validation function, x being this
// process's iterates.
func (v *validator) norms(x []float64) ([]float64, error) {
	local := []float64{}
	if v.o != nil {
		if err := v.o.Eval(nil, v.grad, x, nil); err != nil {
			return nil, fmt.Errorf("validation functions: %w", err)
		}
		local = blockNorms(v.grad, v.o.N)
	}
	return v.w.all(local)
}

// keep records the last scored step as the best so far.
func (v *validator) keep() { v.next, v.try = v.try, v.next }

// advance moves the validation iterates to those of the kept step.
func (v *validator) advance() {
	v.prev, v.x, v.next = v.x, v.next, v.prev
}

func (v *validator) close() error {
	if v.loss == nil {
		return nil
	}
	return v.loss.Close()
}
