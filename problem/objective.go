package problem

import (
	"fmt"
	"math"
	"strconv"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Objective is a batch of N functions f_k(x) = ½‖A x − y_k‖² + α S(x) on H×W
// images, together with their ground truths and starting points.
type Objective struct {
	A     Operator
	Reg   Regularizer
	Alpha float64
	N     int
	H, W  int
	// Y holds the data y_k, [N, DataShape...].
	Y []float64
	// Noise names the standard deviation of the data's Gaussian noise: a
	// level ("0.01"), or "A:B" for levels drawn a function from [A, B]; ""
	// where unknown (data not simulated by Instantiate).
	Noise string
	// Truth holds the ground-truth images [N,H,W] (may be nil).
	Truth []float64
	// X0 holds the starting points x_k^0 [N,H,W].
	X0 []float64
	// L is a Lipschitz constant of every ∇f_k: ‖A‖² + α Lip(∇S).
	L float64
	// NormA is ‖A‖ (1 for normalised operators).
	NormA float64
	// Problem names the problem the functions come from, and Conventions
	// its unstated choices (Problem.Conventions); both may be empty for
	// objectives built by hand.
	Problem     string
	Conventions Conventions

	// single, if set, evaluates Eval in float32 (InPrecision).
	single *singleEval
	// external, if set, evaluates Eval instead (OnEvaluator).
	external BatchEvaluator
}

// BatchEvaluator evaluates f_k(x_k) and ∇f_k(x_k) of a whole batch of an
// objective's functions elsewhere, for example on a device (package
// ondevice): Eval's contract without the workspace.
type BatchEvaluator interface {
	// Eval writes f_k(x_k) into vals (length N, may be nil) and ∇f_k(x_k)
	// into grad ([N,H,W], may be nil) for the batch x.
	Eval(vals, grad, x []float64) error
	// Name says where it evaluates ("cuda:0 (…)", "cpu"); recorded in
	// Setting as "evaluator".
	Name() string
}

// WholeBatchOnly reports whether Eval is bound to o's N functions and their
// data (an evaluator from OnEvaluator, or a float32 evaluation from
// InPrecision): a copy of o with fewer functions or other data must be made
// with Subset, not by changing its fields.
func (o *Objective) WholeBatchOnly() bool {
	_, ops := o.A.(*PerFunction)
	_, weights := o.Reg.(FunctionWeights)
	return o.external != nil || o.single != nil || ops || weights
}

// OnEvaluator returns a copy of o whose Eval runs ev, which must evaluate
// o's functions (the caller builds it from o); the data, starting points
// and constants are shared with o. Subsets and precision changes of the
// copy drop ev, and so does it drop a float32 evaluation of o (the
// evaluator computes in its own precision).
func (o *Objective) OnEvaluator(ev BatchEvaluator) *Objective {
	c := *o
	c.single, c.external = nil, ev
	return &c
}

// Setting describes where the functions come from, for output files: the
// problem's name, the operator, the regularizer, α, the noise, the image
// size and every convention.
func (o *Objective) Setting() map[string]string {
	s := map[string]string{
		"operator":    o.A.String(),
		"regularizer": o.Reg.String(),
		"alpha":       strconv.FormatFloat(o.Alpha, 'g', -1, 64),
		"size":        fmt.Sprintf("%dx%d", o.H, o.W),
	}
	if o.Problem != "" {
		s["problem"] = o.Problem
	}
	if o.Noise != "" {
		s["noise"] = o.Noise
	}
	if o.external != nil {
		s["evaluator"] = o.external.Name()
	}
	if o.single != nil {
		s["precision"] = string(Float32)
	}
	for k, v := range o.Conventions {
		s[k] = v
	}
	return s
}

// ImageLen is H·W.
func (o *Objective) ImageLen() int { return o.H * o.W }

// DataLen is the number of data values of one function.
func (o *Objective) DataLen() int { return len(o.Y) / o.N }

// LeastSquares reports whether S ≡ 0 (or α = 0), so each f_k is a quadratic.
func (o *Objective) LeastSquares() bool { return o.Alpha == 0 || o.Reg.Zero() }

// Block returns the objective made of the functions lo, …, hi−1: a block
// of contiguous functions (a shard of a divided step loss).
func (o *Objective) Block(lo, hi int) (*Objective, error) {
	if lo < 0 || hi > o.N || lo >= hi {
		return nil, fmt.Errorf("block [%d, %d) of %d functions", lo, hi, o.N)
	}
	return o.Subset(blockIndices(lo, hi))
}

// Varied reports whether its functions differ by more than their data: a
// family of operators (PerFunction) or of weights (Weighted).
func (o *Objective) Varied() bool {
	if _, ok := o.A.(*PerFunction); ok {
		return true
	}
	_, ok := o.Reg.(interface{ subsetWeights([]int) Regularizer })
	return ok
}

// Subset returns the objective made of the functions with the given indices.
func (o *Objective) Subset(idx []int) (*Objective, error) {
	s := *o
	s.N = len(idx)
	hw, m := o.ImageLen(), o.DataLen()
	s.Y = make([]float64, 0, len(idx)*m)
	s.X0 = make([]float64, 0, len(idx)*hw)
	if o.Truth != nil {
		s.Truth = make([]float64, 0, len(idx)*hw)
	}
	for _, k := range idx {
		if k < 0 || k >= o.N {
			return nil, fmt.Errorf("function index %d out of range [0, %d)", k, o.N)
		}
		s.Y = append(s.Y, o.Y[k*m:(k+1)*m]...)
		s.X0 = append(s.X0, o.X0[k*hw:(k+1)*hw]...)
		if o.Truth != nil {
			s.Truth = append(s.Truth, o.Truth[k*hw:(k+1)*hw]...)
		}
	}
	if pf, ok := o.A.(*PerFunction); ok {
		s.A = pf.Subset(idx) // each function keeps its own operator
	}
	if w, ok := o.Reg.(interface{ subsetWeights([]int) Regularizer }); ok {
		s.Reg = w.subsetWeights(idx) // and its own weight
	}
	s.external = nil
	if o.single != nil {
		s.single = nil
		return s.InPrecision(Float32)
	}
	return &s, nil
}

// Workspace holds scratch buffers for Eval; reuse one per goroutine to avoid
// allocations in loops.
type Workspace struct {
	res   []float64
	regv  []float64
	regg  []float64
	fused []*fusedScratch
}

// Eval computes f_k(x_k) into vals (length N, may be nil) and ∇f_k(x_k) into
// grad ([N,H,W], may be nil) for the batch x. ws may be nil.
func (o *Objective) Eval(vals, grad, x []float64, ws *Workspace) error {
	hw := o.ImageLen()
	if len(x) != o.N*hw {
		return fmt.Errorf("objective: iterate has %d values, want %d (N=%d, %d×%d)", len(x), o.N*hw, o.N, o.H, o.W)
	}
	if vals != nil && len(vals) != o.N {
		return fmt.Errorf("objective: %d value slots, want %d", len(vals), o.N)
	}
	if grad != nil && len(grad) != len(x) {
		return fmt.Errorf("objective: gradient has %d values, want %d", len(grad), len(x))
	}
	if o.external != nil {
		if err := o.external.Eval(vals, grad, x); err != nil {
			return fmt.Errorf("objective on %s: %w", o.external.Name(), err)
		}
		return nil
	}
	if o.single != nil {
		return o.single.eval(vals, grad, x)
	}
	if ws == nil {
		ws = &Workspace{}
	}
	if b, s, tv, ok := o.fusedBlur(); ok && len(o.Y) == len(x) {
		o.evalFused(vals, grad, x, ws, b, s, tv)
		return nil
	}
	m := o.DataLen()
	ws.res = grow(ws.res, o.N*m)
	in := tensor.Shape{o.N, o.H, o.W}
	if err := o.A.Apply(ws.res, x, in); err != nil {
		return fmt.Errorf("objective: applying %s: %w", o.A, err)
	}
	for i, y := range o.Y {
		ws.res[i] -= y
	}
	if vals != nil {
		for k := 0; k < o.N; k++ {
			r := ws.res[k*m : (k+1)*m]
			vals[k] = 0.5 * kernels.Dot(r, r)
		}
	}
	if grad != nil {
		if err := o.A.Adjoint(grad, ws.res, in); err != nil {
			return fmt.Errorf("objective: applying adjoint of %s: %w", o.A, err)
		}
	}
	if o.Alpha == 0 || o.Reg.Zero() {
		return nil
	}
	var regv, regg []float64
	if vals != nil {
		ws.regv = grow(ws.regv, o.N)
		regv = ws.regv
	}
	if grad != nil {
		ws.regg = grow(ws.regg, len(x))
		regg = ws.regg
	}
	if err := o.Reg.ValueGrad(regv, regg, x, o.N, o.H, o.W); err != nil {
		return fmt.Errorf("objective: regularizer %s: %w", o.Reg, err)
	}
	for k := range regv {
		vals[k] += o.Alpha * regv[k]
	}
	for i := range regg {
		grad[i] += o.Alpha * regg[i]
	}
	return nil
}

func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// Mean returns (1/N) Σ_k f_k(x_k).
func (o *Objective) Mean(x []float64) (float64, error) {
	vals := make([]float64, o.N)
	if err := o.Eval(vals, nil, x, nil); err != nil {
		return math.NaN(), err
	}
	var s float64
	for _, v := range vals {
		s += v
	}
	return s / float64(o.N), nil
}

// GraphValue returns the scalar node Σ_k f_k(x_k) for a batch node x [n,H,W]
// and a data node y [n, DataShape...].
func (o *Objective) GraphValue(x, y *G.Node) (*G.Node, error) {
	ax, err := graph.Linear(o.A, x)
	if err != nil {
		return nil, err
	}
	res, err := G.Sub(ax, y)
	if err != nil {
		return nil, fmt.Errorf("objective graph: residual: %w", err)
	}
	data, err := graph.PotentialValue(graph.SquaredNorm{}, res)
	if err != nil {
		return nil, err
	}
	if o.LeastSquares() {
		return data, nil
	}
	reg, err := o.Reg.GraphValue(x)
	if err != nil {
		return nil, err
	}
	return G.Add(data, G.Must(G.Mul(reg, G.NewConstant(o.Alpha))))
}

// GraphGrad returns ∇f(x) = Aᵀ(Ax − y) + α∇S(x) for a batch node x, written as
// forward operations so that the result can be differentiated.
func (o *Objective) GraphGrad(x, y *G.Node) (*G.Node, error) {
	data, reg, err := o.GraphGradParts(x, y)
	if err != nil || reg == nil {
		return data, err
	}
	return G.Add(data, reg)
}

// GraphGradParts returns the two parts of ∇f as nodes: the data term
// Aᵀ(Ax − y) and the regularizer's α∇S(x) (nil for a least-squares
// objective). GraphGrad is their sum; methods that feed the parts separately
// (Banert et al.'s four-channel network) use them apart.
func (o *Objective) GraphGradParts(x, y *G.Node) (data, reg *G.Node, err error) {
	ax, err := graph.Linear(o.A, x)
	if err != nil {
		return nil, nil, err
	}
	res, err := G.Sub(ax, y)
	if err != nil {
		return nil, nil, fmt.Errorf("objective graph: residual: %w", err)
	}
	if data, err = graph.LinearAdjoint(o.A, res, tensor.Shape(x.Shape()).Clone()); err != nil {
		return nil, nil, err
	}
	if o.LeastSquares() {
		return data, nil, nil
	}
	rg, err := o.Reg.GraphGrad(x)
	if err != nil {
		return nil, nil, err
	}
	if reg, err = G.Mul(rg, G.NewConstant(o.Alpha)); err != nil {
		return nil, nil, fmt.Errorf("objective graph: α∇S: %w", err)
	}
	return data, reg, nil
}

// DataShape is the shape of y for a batch of n functions.
func (o *Objective) DataShape(n int) tensor.Shape {
	return batchShape(n, o.A.DataShape(o.H, o.W)...)
}
