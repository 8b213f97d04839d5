package banert

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/problem"
	"gorgonia.org/tensor"
)

// Method runs a trained Banert network as an optimization method
// (baselines.Method), for any number of iterations, on all functions of an
// objective at once.
type Method struct {
	Net *Network
	// Label is the name reported by Name ("banert" when empty).
	Label string
	// Target is where the iterations compute. With a Device (it must have
	// network operations, and the objective a device form: CheckTarget)
	// the iterates, ∇f, the network and the safeguard stay there
	// (ondevice.BanertIteration) and each iteration copies x^{t+1} back. On
	// the CPU (the zero value) f and ∇f come from the objective Start
	// receives, in its precision; a float32 Target evaluates them in
	// float32.
	Target execution.Target
}

// Name implements baselines.Method.
func (m *Method) Name() string {
	if m.Label == "" {
		return "banert"
	}
	return m.Label
}

// Start implements baselines.Method. The step uses the objective's L.
func (m *Method) Start(o *problem.Objective) (baselines.Iterator, error) {
	if m == nil || m.Net == nil {
		return nil, fmt.Errorf("banert: method has no network: train one or load a checkpoint")
	}
	if err := m.Net.Validate(); err != nil {
		return nil, err
	}
	if o == nil || o.N < 1 || o.H < 1 || o.W < 1 {
		return nil, fmt.Errorf("banert: objective must have at least one function of a non-empty image")
	}
	n := o.N * o.ImageLen()
	if len(o.X0) != n {
		return nil, fmt.Errorf("banert: starting point has %d values, want N·H·W = %d", len(o.X0), n)
	}
	if !(o.L > 0) || math.IsInf(o.L, 0) {
		return nil, fmt.Errorf("banert: objective's smoothness constant L = %g is not positive and finite", o.L)
	}
	if m.Target.Device != nil {
		return m.startOnDevice(o)
	}
	o, err := m.Target.Objective(o)
	if err != nil {
		return nil, fmt.Errorf("banert: %w", err)
	}
	it := &iterator{
		net: m.Net, o: o,
		x: append([]float64(nil), o.X0...), grad: make([]float64, n), delta: make([]float64, n),
		h: make([]float64, n), in: make([]float64, n*m.Net.Inputs),
		deltaNorm: make([]float64, o.N), gradNorm: make([]float64, o.N),
	}
	if m.Net.Inputs == 4 {
		it.gdata, it.greg = make([]float64, n), make([]float64, n)
		it.res = make([]float64, o.N*o.DataLen())
	}
	return it, nil
}

// iterator is the state of one run of the Banert method.
type iterator struct {
	net               *Network
	o                 *problem.Objective
	x, grad, delta, h []float64
	in                []float64
	gdata, greg, res  []float64 // 4-input variant: the two parts of ∇f
	deltaNorm         []float64 // ‖Δ_k‖ of the last iteration
	gradNorm          []float64 // ‖∇f_k(x^t)‖ of the last iteration
	ws                problem.Workspace
	fws               forwardWorkspace
	iter              int
}

// X implements baselines.Iterator.
func (it *iterator) X() []float64 { return it.x }

// Next implements baselines.Iterator: x ← x − (1/L)(∇f(x) + Δ).
func (it *iterator) Next() error {
	o := it.o
	hw := o.ImageLen()
	if err := it.gradients(); err != nil {
		return fmt.Errorf("banert: iteration %d: %w", it.iter+1, err)
	}
	var channels [][]float64
	if it.net.Inputs == 3 {
		channels = [][]float64{it.x, it.grad, it.delta}
	} else {
		channels = [][]float64{it.x, it.gdata, it.greg, it.delta}
	}
	stackChannels(it.in, channels, o.N, hw)
	if err := it.net.Forward(it.h, it.in, o.N, o.H, o.W, &it.fws); err != nil {
		return fmt.Errorf("banert: iteration %d: %w", it.iter+1, err)
	}
	safeguard(it.delta, it.h, it.grad, o.N, hw, it.deltaNorm, it.gradNorm)
	c := 1 / o.L
	for i, g := range it.grad {
		it.x[i] -= c * (g + it.delta[i])
	}
	it.iter++
	for k := 0; k < o.N; k++ {
		var s float64
		for _, v := range it.x[k*hw : (k+1)*hw] {
			s += v * 0
		}
		if s != 0 {
			return fmt.Errorf("banert: function %d, iteration %d: iterate is not finite (NaN or ±Inf)", k, it.iter)
		}
	}
	return nil
}

// gradients computes ∇f(x), and for the 4-input network its data and
// regularizer parts.
func (it *iterator) gradients() error {
	o := it.o
	if it.net.Inputs == 3 {
		return o.Eval(nil, it.grad, it.x, &it.ws)
	}
	in := tensor.Shape{o.N, o.H, o.W}
	if err := o.A.Apply(it.res, it.x, in); err != nil {
		return fmt.Errorf("applying %s: %w", o.A, err)
	}
	for i, y := range o.Y {
		it.res[i] -= y
	}
	if err := o.A.Adjoint(it.gdata, it.res, in); err != nil {
		return fmt.Errorf("applying the adjoint of %s: %w", o.A, err)
	}
	if o.LeastSquares() {
		clear(it.greg)
	} else {
		if err := o.Reg.ValueGrad(nil, it.greg, it.x, o.N, o.H, o.W); err != nil {
			return fmt.Errorf("regularizer %s: %w", o.Reg, err)
		}
		for i := range it.greg {
			it.greg[i] *= o.Alpha
		}
	}
	for i, v := range it.gdata {
		it.grad[i] = v + it.greg[i]
	}
	return nil
}
