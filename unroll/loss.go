package unroll

import (
	"errors"
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
	G "gorgonia.org/gorgonia"
)

// Loss is the unrolled loss
//
//	ℓ(u) = (1/B) Σk Σ_{t=1..T} ωt fk(xk^t)
//
// of a mini-batch of B functions, as one gorgonia graph built once. The
// parameter vector u holds (θ0, φ0, θ1, φ1, …, θ_{T−1}, φ_{T−1}) one block
// after another (φ is absent for methods without momentum). SetBatch loads
// the functions of a mini-batch, Eval evaluates ℓ and its gradient. A Loss is
// not safe for concurrent use.
type Loss struct {
	method     models.Method
	obj        *problem.Objective
	steps      int
	batch      int
	nTheta     int
	nPhi       int
	refTheta   []float64
	refPhi     []float64
	weights    []float64
	machine    *graph.Machine
	exprGraph  *G.ExprGraph
	theta, phi []*G.Node
	x0, y      *G.Node
	loss       *G.Node
	values     []*G.Node // Σk fk(xk^t), t = 1..T
	iterates   []*G.Node // x^t, t = 1..T
	tracked    int64
	held       int64
	evals      int
	xbuf, ybuf []float64
	// dev, if set, evaluates on a device's array operations instead of
	// the graph (NewLossFor); the graph fields are then unused.
	dev *ondevice.Unrolled
	// recordOn, if set, is the device the checkpoint's record of the
	// learned trajectory runs on (Loss.trajectory), and records the
	// evaluator of the training functions there, made on first use.
	recordOn gpu.Ops
	records  *ondevice.BatchEvaluator
}

// NewLoss builds the unrolled loss graph for T steps of the method on
// mini-batches of batch functions drawn from o. tau sets the reference
// θ̃ (G = τI; 0 means 1/L of o); φ̃ gives H = 0. weights holds ω1, …, ωT
// (nil: all ones).
func NewLoss(m models.Method, o *problem.Objective, steps, batch int, tau float64, weights []float64) (*Loss, error) {
	return newLoss(m, o, steps, batch, tau, weights, nil)
}

// onDevice builds the unrolled loss's device part (ondevice.Unrolled) for
// a method, its functions, T and the batch size.
type onDevice func(m models.Method, o *problem.Objective, steps, batch int) (*ondevice.Unrolled, error)

func newLoss(m models.Method, o *problem.Objective, steps, batch int, tau float64, weights []float64, device onDevice) (*Loss, error) {
	if m.G == nil {
		return nil, errors.New("unroll: no parametrization for G")
	}
	if o == nil || o.N < 1 {
		return nil, errors.New("unroll: no training functions")
	}
	if _, ok := o.A.(*problem.PerFunction); ok {
		return nil, errors.New("unroll: a family of operators (problem.PerFunction) cannot be unrolled: the graph holds one operator for every mini-batch")
	}
	if _, ok := o.Reg.(problem.FunctionWeights); ok {
		return nil, errors.New("unroll: a family of regularisation weights (problem.Weighted) cannot be unrolled: the graph holds one α for every mini-batch")
	}
	m = m.ForOperator(o.A) // operator-aware terms take the functions' operator
	if steps < 1 {
		return nil, fmt.Errorf("unroll: the number of unrolled steps T must be at least 1, got %d", steps)
	}
	if batch < 1 || batch > o.N {
		return nil, fmt.Errorf("unroll: batch size %d must be between 1 and the number of training functions %d", batch, o.N)
	}
	if tau == 0 {
		tau = 1 / o.L
	}
	if tau < 0 || math.IsNaN(tau) || math.IsInf(tau, 0) {
		return nil, fmt.Errorf("unroll: reference step τ = %g must be positive and finite", tau)
	}
	if weights == nil {
		weights = make([]float64, steps)
		for i := range weights {
			weights[i] = 1
		}
	}
	if len(weights) != steps {
		return nil, fmt.Errorf("unroll: %d loss weights ωt for T = %d steps", len(weights), steps)
	}
	for t, w := range weights {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("unroll: loss weight ω%d = %g must be finite and ≥ 0", t+1, w)
		}
	}
	h, w := o.H, o.W
	l := &Loss{method: m, obj: o, steps: steps, batch: batch, weights: append([]float64(nil), weights...)}
	l.refTheta = m.G.Reference(tau, h, w)
	l.nTheta = len(l.refTheta)
	if m.H != nil {
		l.refPhi = m.H.Reference(0, h, w)
		l.nPhi = len(l.refPhi)
	}
	if device != nil {
		dev, err := device(m, o, steps, batch)
		if err != nil {
			return nil, err
		}
		l.dev = dev
		idx := make([]int, batch)
		for i := range idx {
			idx[i] = i
		}
		if err := l.SetBatch(idx); err != nil {
			dev.Close()
			return nil, err
		}
		return l, nil
	}
	g := G.NewGraph()
	l.exprGraph = g
	l.x0 = graph.Input(g, "x0", batch, h, w)
	l.y = graph.Input(g, "y", o.DataShape(batch)...)
	var p0 *G.Node
	if m.H != nil {
		// x^0 − x^{−1} = 0: a zero input keeps φ0 in the graph (its gradient is 0).
		p0 = graph.Input(g, "p0", batch, h, w)
	}
	var wrt G.Nodes
	x, xprev := l.x0, l.x0
	var total *G.Node
	for t := 0; t < steps; t++ {
		th := graph.Input(g, fmt.Sprintf("theta_%d", t), m.G.ParamShape(h, w)...)
		l.theta = append(l.theta, th)
		wrt = append(wrt, th)
		grad, err := o.GraphGrad(x, l.y)
		if err != nil {
			return nil, fmt.Errorf("unroll: step %d: ∇f: %w", t, err)
		}
		var ph, mom *G.Node
		if m.H != nil {
			ph = graph.Input(g, fmt.Sprintf("phi_%d", t), m.H.ParamShape(h, w)...)
			l.phi = append(l.phi, ph)
			wrt = append(wrt, ph)
			mom = p0
			if t > 0 {
				if mom, err = G.Sub(x, xprev); err != nil {
					return nil, fmt.Errorf("unroll: step %d: momentum: %w", t, err)
				}
			}
		}
		next, err := m.GraphUpdate(th, ph, x, grad, mom)
		if err != nil {
			return nil, fmt.Errorf("unroll: step %d: %w", t, err)
		}
		fsum, err := o.GraphValue(next, l.y)
		if err != nil {
			return nil, fmt.Errorf("unroll: step %d: objective: %w", t, err)
		}
		l.values = append(l.values, fsum)
		l.iterates = append(l.iterates, next)
		term, err := G.Mul(fsum, G.NewConstant(weights[t]/float64(batch)))
		if err != nil {
			return nil, fmt.Errorf("unroll: step %d: %w", t, err)
		}
		if total == nil {
			total = term
		} else if total, err = G.Add(total, term); err != nil {
			return nil, fmt.Errorf("unroll: step %d: %w", t, err)
		}
		xprev, x = x, next
	}
	l.loss = total
	// The single gradient computation of this graph.
	if _, err := G.Grad(l.loss, wrt...); err != nil {
		return nil, fmt.Errorf("unroll: differentiating the unrolled loss: %w", err)
	}
	l.machine = graph.NewMachine(g, wrt...)
	idx := make([]int, batch)
	for i := range idx {
		idx[i] = i
	}
	if err := l.SetBatch(idx); err != nil {
		return nil, err
	}
	return l, nil
}

// Steps is the number of unrolled iterations T.
func (l *Loss) Steps() int { return l.steps }

// Batch is the mini-batch size B the graph was built for.
func (l *Loss) Batch() int { return l.batch }

// ThetaLen is len(θt); PhiLen is len(φt) (0 without momentum).
func (l *Loss) ThetaLen() int { return l.nTheta }

// PhiLen is len(φt), 0 for methods without momentum.
func (l *Loss) PhiLen() int { return l.nPhi }

// Dim is the number of parameters T·(len(θ) + len(φ)).
func (l *Loss) Dim() int { return l.steps * (l.nTheta + l.nPhi) }

// Reference returns the parameter vector with every step at (θ̃, φ̃).
func (l *Loss) Reference() []float64 {
	u := make([]float64, 0, l.Dim())
	for t := 0; t < l.steps; t++ {
		u = append(append(u, l.refTheta...), l.refPhi...)
	}
	return u
}

// Split returns views of θt and φt (nil without momentum) inside u.
func (l *Loss) Split(u []float64) (theta, phi [][]float64) {
	blk := l.nTheta + l.nPhi
	for t := 0; t < l.steps; t++ {
		b := u[t*blk : (t+1)*blk]
		theta = append(theta, b[:l.nTheta])
		if l.nPhi > 0 {
			phi = append(phi, b[l.nTheta:])
		}
	}
	return theta, phi
}

// SetBatch loads the starting points and data of the training functions with
// the given indices (exactly Batch of them) into the graph.
func (l *Loss) SetBatch(idx []int) error {
	if len(idx) != l.batch {
		return fmt.Errorf("unroll: mini-batch of %d functions, the graph was built for %d", len(idx), l.batch)
	}
	hw, m := l.obj.ImageLen(), l.obj.DataLen()
	l.xbuf = l.xbuf[:0]
	l.ybuf = l.ybuf[:0]
	for _, k := range idx {
		if k < 0 || k >= l.obj.N {
			return fmt.Errorf("unroll: function index %d out of range [0, %d)", k, l.obj.N)
		}
		l.xbuf = append(l.xbuf, l.obj.X0[k*hw:(k+1)*hw]...)
		l.ybuf = append(l.ybuf, l.obj.Y[k*m:(k+1)*m]...)
	}
	if l.dev != nil {
		return l.dev.SetBatch(l.xbuf, l.ybuf)
	}
	if err := graph.Set(l.x0, l.xbuf); err != nil {
		return fmt.Errorf("unroll: %w", err)
	}
	if err := graph.Set(l.y, l.ybuf); err != nil {
		return fmt.Errorf("unroll: %w", err)
	}
	return nil
}

// Eval returns ℓ(u) for the current mini-batch and, if grad is not nil,
// writes ∇ℓ(u) into it.
func (l *Loss) Eval(u, grad []float64) (float64, error) {
	if len(u) != l.Dim() {
		return math.NaN(), fmt.Errorf("unroll: %d parameters, want %d (T = %d steps of %d)", len(u), l.Dim(), l.steps, l.nTheta+l.nPhi)
	}
	if grad != nil && len(grad) != l.Dim() {
		return math.NaN(), fmt.Errorf("unroll: gradient has %d slots, want %d", len(grad), l.Dim())
	}
	theta, phi := l.Split(u)
	if l.dev != nil {
		return l.evalOnDevice(theta, phi, grad)
	}
	for t := 0; t < l.steps; t++ {
		if err := graph.Set(l.theta[t], theta[t]); err != nil {
			return math.NaN(), err
		}
		if l.nPhi > 0 {
			if err := graph.Set(l.phi[t], phi[t]); err != nil {
				return math.NaN(), err
			}
		}
	}
	if err := l.machine.Run(); err != nil {
		return math.NaN(), fmt.Errorf("unroll: %w", err)
	}
	l.evals++
	l.account()
	v, err := graph.Scalar(l.loss)
	if err != nil {
		return math.NaN(), err
	}
	if grad == nil {
		return v, nil
	}
	gt, gp := l.Split(grad)
	for t := 0; t < l.steps; t++ {
		d, err := graph.Grad(l.theta[t])
		if err != nil {
			return math.NaN(), err
		}
		copy(gt[t], d)
		if l.nPhi > 0 {
			if d, err = graph.Grad(l.phi[t]); err != nil {
				return math.NaN(), err
			}
			copy(gp[t], d)
		}
	}
	return v, nil
}

// evalOnDevice is Eval on the device.
func (l *Loss) evalOnDevice(theta, phi [][]float64, grad []float64) (float64, error) {
	c := make([]float64, l.steps)
	for t, w := range l.weights {
		c[t] = w / float64(l.batch)
	}
	var gt, gp [][]float64
	if grad != nil {
		gt, gp = l.Split(grad)
	}
	v, err := l.dev.Eval(theta, phi, c, gt, gp)
	if err != nil {
		return math.NaN(), fmt.Errorf("unroll on %s: %w", l.dev.Device(), err)
	}
	l.evals++
	l.held = l.dev.Bytes()
	return v, nil
}

// account records the bytes the graph holds on the CPU device's counters.
func (l *Loss) account() {
	l.held = graph.HeldBytes(l.exprGraph)
	if l.held > l.tracked {
		gpu.Track(l.held - l.tracked)
		l.tracked = l.held
	}
}

// StepValues returns (1/B) Σk fk(xk^t) for t = 1..T of the last Eval.
func (l *Loss) StepValues() ([]float64, error) {
	out := make([]float64, l.steps)
	if l.dev != nil {
		for t, v := range l.dev.Values() {
			out[t] = v / float64(l.batch)
		}
		return out, nil
	}
	for t, n := range l.values {
		v, err := graph.Scalar(n)
		if err != nil {
			return nil, err
		}
		out[t] = v / float64(l.batch)
	}
	return out, nil
}

// Iterate returns a copy of the batch of iterates x^t (1 ≤ t ≤ T) of the last Eval.
func (l *Loss) Iterate(t int) ([]float64, error) {
	if t < 1 || t > l.steps {
		return nil, fmt.Errorf("unroll: iterate %d out of range [1, %d]", t, l.steps)
	}
	if l.dev != nil {
		out := make([]float64, l.dev.BatchLen())
		if err := l.dev.Iterate(out, t); err != nil {
			return nil, fmt.Errorf("unroll: %w", err)
		}
		return out, nil
	}
	v, err := graph.Value(l.iterates[t-1])
	if err != nil {
		return nil, err
	}
	return append([]float64(nil), v...), nil
}

// HeldBytes is the number of bytes of values and gradients the graph held
// after the last Eval (0 before the first).
func (l *Loss) HeldBytes() int64 { return l.held }

// Evaluations counts calls of Eval.
func (l *Loss) Evaluations() int { return l.evals }

// Close releases the graph machine and removes its bytes from the device counters.
func (l *Loss) Close() error {
	if l.records != nil {
		l.records.Close()
		l.records = nil
	}
	if l.dev != nil {
		l.dev.Close()
		return nil
	}
	gpu.Untrack(l.tracked)
	l.tracked = 0
	return l.machine.Close()
}
