package problem

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ErrFirstOrderOnly marks a regularizer whose gradient cannot be
// differentiated (a third-party Regularizer's GraphGrad may return it):
// training that differentiates through ∇f (unrolled, Banert) cannot use it.
// An AutoRegularizer no longer does: its GraphGrad carries HessVec. Test
// with errors.Is.
var ErrFirstOrderOnly = errors.New("the regularizer's gradient has no forward expression")

// AutoRegularizer is a regularizer given by its value expression alone:
// S is written with gorgonia's operations and the project's differentiable
// ops (graph.Linear with graph.Diff, convolutions, potentials), and ∇S comes
// from one gorgonia.Grad over a graph that is built once per image size and
// re-run. Everything the baselines, the greedy step loss and evaluation need
// (ValueGrad, GraphValue) follows; GraphGrad, which unrolled and Banert
// training differentiate once more, carries Hessian–vector products by
// central differences of ∇S (HessVec).
//
// Create one with NewAutoRegularizer. It is safe for concurrent use.
type AutoRegularizer struct {
	name  string
	value func(x *G.Node) (*G.Node, error)
	lip   float64
	// LipschitzEstimated is set when Lipschitz is an estimate (see
	// NewAutoRegularizer) rather than the constant given.
	LipschitzEstimated bool

	mu    sync.Mutex
	pools map[[2]int][]*autoGraph // per image size: idle one-image graphs
}

// autoGraph evaluates S and ∇S for one image.
type autoGraph struct {
	m     *graph.Machine
	x     *G.Node
	total *G.Node
}

// LipschitzMargin multiplies the estimated Lipschitz constant of an
// AutoRegularizer given none: power iteration finds the largest curvature
// at the points it tries, a lower bound of the true constant.
const LipschitzMargin = 1.1

// NewAutoRegularizer returns the regularizer whose value on a batch node
// x [N,H,W] is the scalar node Σ_k S(x_k) that value builds. name
// identifies it with all its parameters (it is recorded in checkpoints and
// keys the f* cache). lip is a Lipschitz constant of ∇S; lip = 0 estimates
// it on h×w images: the largest Hessian eigenvalue found by power iteration
// on central differences of ∇S at three points (zero, a flat grey image
// with small noise, uniform noise in [0, 1]), times LipschitzMargin. S must
// be a sum over the images of the batch.
func NewAutoRegularizer(name string, value func(x *G.Node) (*G.Node, error), h, w int, lip float64) (*AutoRegularizer, error) {
	if name == "" || value == nil {
		return nil, errors.New("auto regularizer: a name and a value expression are required")
	}
	if lip < 0 || math.IsNaN(lip) || math.IsInf(lip, 0) {
		return nil, fmt.Errorf("auto regularizer %s: Lipschitz constant %g must be finite and ≥ 0 (0: estimate it)", name, lip)
	}
	r := &AutoRegularizer{name: name, value: value, lip: lip, pools: map[[2]int][]*autoGraph{}}
	// Build once now, so that a bad expression fails here.
	g, err := r.get(h, w)
	if err != nil {
		return nil, err
	}
	r.put(h, w, g)
	if lip == 0 {
		est, err := r.EstimateLipschitz(h, w)
		if err != nil {
			return nil, err
		}
		r.lip, r.LipschitzEstimated = LipschitzMargin*est, true
	}
	return r, nil
}

func (r *AutoRegularizer) String() string { return r.name }

func (r *AutoRegularizer) build(h, w int) (*autoGraph, error) {
	g := G.NewGraph()
	x := graph.Input(g, "x", 1, h, w)
	total, err := r.value(x)
	if err != nil {
		return nil, fmt.Errorf("auto regularizer %s: value expression: %w", r.name, err)
	}
	if total.Shape().TotalSize() != 1 {
		return nil, fmt.Errorf("auto regularizer %s: the value expression has shape %v, want a scalar (Σ_k S(x_k))", r.name, total.Shape())
	}
	if _, err := G.Grad(total, x); err != nil {
		return nil, fmt.Errorf("auto regularizer %s: differentiating the value expression: %w", r.name, err)
	}
	return &autoGraph{m: graph.NewMachine(g, x), x: x, total: total}, nil
}

func (r *AutoRegularizer) get(h, w int) (*autoGraph, error) {
	r.mu.Lock()
	pool := r.pools[[2]int{h, w}]
	if n := len(pool); n > 0 {
		g := pool[n-1]
		r.pools[[2]int{h, w}] = pool[:n-1]
		r.mu.Unlock()
		return g, nil
	}
	r.mu.Unlock()
	return r.build(h, w)
}

func (r *AutoRegularizer) put(h, w int, g *autoGraph) {
	r.mu.Lock()
	r.pools[[2]int{h, w}] = append(r.pools[[2]int{h, w}], g)
	r.mu.Unlock()
}

// ValueGrad implements Regularizer: image by image, in parallel, each
// worker re-running its own one-image graph.
func (r *AutoRegularizer) ValueGrad(vals, grad, x []float64, n, h, w int) error {
	hw := h * w
	if len(x) != n*hw {
		return fmt.Errorf("auto regularizer %s: %d values for %d images of %d×%d", r.name, len(x), n, h, w)
	}
	errs := make([]error, kernels.ParallelChunks(n, nil))
	kernels.ParallelChunks(n, func(chunk, lo, hi int) {
		g, err := r.get(h, w)
		if err != nil {
			errs[chunk] = err
			return
		}
		defer r.put(h, w, g)
		for k := lo; k < hi; k++ {
			if err := graph.Set(g.x, x[k*hw:(k+1)*hw]); err != nil {
				errs[chunk] = err
				return
			}
			if err := g.m.Run(); err != nil {
				errs[chunk] = fmt.Errorf("auto regularizer %s: %w", r.name, err)
				return
			}
			if vals != nil {
				v, err := graph.Value(g.total)
				if err != nil {
					errs[chunk] = err
					return
				}
				vals[k] = v[0]
			}
			if grad != nil {
				gv, err := graph.Grad(g.x)
				if err != nil {
					errs[chunk] = err
					return
				}
				copy(grad[k*hw:(k+1)*hw], gv)
			}
		}
	})
	return errors.Join(errs...)
}

// GraphValue implements Regularizer: the user's expression.
func (r *AutoRegularizer) GraphValue(x *G.Node) (*G.Node, error) { return r.value(x) }

// GraphGrad implements Regularizer: ∇S as a graph node whose own
// derivative (needed by unrolled and Banert training, which differentiate
// through ∇f) is the Hessian–vector product HessVec. It is a
// graph.Potential over the batch, not a second gorgonia.Grad (which gorgonia
// gets silently wrong).
func (r *AutoRegularizer) GraphGrad(x *G.Node) (*G.Node, error) {
	return graph.PotentialDerivative(autoPotential{r}, x)
}

// HessVecStep is the relative step of HessVec's differences: the
// displacement along u is HessVecStep·max(1, ‖x_k‖∞) in the largest entry.
const HessVecStep = 1e-3

// HessVec writes H_S(x_k) u_k into dst for each of the n images (h×w) of
// x and u. ∇S has no forward expression to differentiate, so the product is
// the fourth-order central difference of ∇S along u_k,
//
//	H u ≈ [8(∇S(x + εu) − ∇S(x − εu)) − (∇S(x + 2εu) − ∇S(x − 2εu))] / (12ε),
//
// with ε = HessVecStep·max(1, ‖x_k‖∞)/‖u_k‖∞ per image: exact for
// quadratic S up to rounding (about 1e-12 relative), within O(ε⁴) of the
// product where S is smooth, and an average of the two sides where ∇S has a
// kink within 2ε of x (Huber-TV).
func (r *AutoRegularizer) HessVec(dst, x, u []float64, n, h, w int) error {
	hw := h * w
	if len(x) != n*hw || len(u) != n*hw || len(dst) != n*hw {
		return fmt.Errorf("auto regularizer %s: Hessian–vector product of %d, %d, %d values for %d images of %d×%d", r.name, len(x), len(u), len(dst), n, h, w)
	}
	eps := make([]float64, n)
	for k := range n {
		xmax, umax := 1.0, 0.0
		for i := k * hw; i < (k+1)*hw; i++ {
			xmax, umax = math.Max(xmax, math.Abs(x[i])), math.Max(umax, math.Abs(u[i]))
		}
		if umax > 0 {
			eps[k] = HessVecStep * xmax / umax
		}
	}
	clear(dst)
	xs, g := make([]float64, n*hw), make([]float64, n*hw)
	for _, term := range []struct{ steps, weight float64 }{{1, 8}, {-1, -8}, {2, -1}, {-2, 1}} {
		for i := range xs {
			xs[i] = x[i] + term.steps*eps[i/hw]*u[i]
		}
		if err := r.ValueGrad(nil, g, xs, n, h, w); err != nil {
			return err
		}
		for i := range dst {
			dst[i] += term.weight * g[i]
		}
	}
	for i := range dst {
		if e := eps[i/hw]; e > 0 {
			dst[i] /= 12 * e
		} else {
			dst[i] = 0
		}
	}
	return nil
}

// autoPotential is an AutoRegularizer as a graph.Potential over a batch
// [N,H,W] (or one image [H,W]): value and derivative from its one-image
// graphs, the Hessian–vector product from HessVec.
type autoPotential struct{ r *AutoRegularizer }

func (p autoPotential) String() string { return "auto:" + p.r.name }

func (p autoPotential) dims(shape tensor.Shape) (n, h, w int, err error) {
	switch len(shape) {
	case 2:
		return 1, shape[0], shape[1], nil
	case 3:
		return shape[0], shape[1], shape[2], nil
	}
	return 0, 0, 0, fmt.Errorf("auto regularizer %s: a batch has shape [N,H,W], not %v", p.r.name, shape)
}

func (p autoPotential) Value(z []float64, shape tensor.Shape) (float64, error) {
	n, h, w, err := p.dims(shape)
	if err != nil {
		return 0, err
	}
	vals := make([]float64, n)
	if err := p.r.ValueGrad(vals, nil, z, n, h, w); err != nil {
		return 0, err
	}
	var s float64
	for _, v := range vals {
		s += v
	}
	return s, nil
}

func (p autoPotential) Derivative(dst, z []float64, shape tensor.Shape) error {
	n, h, w, err := p.dims(shape)
	if err != nil {
		return err
	}
	return p.r.ValueGrad(nil, dst, z, n, h, w)
}

func (p autoPotential) HessVec(dst, z, u []float64, shape tensor.Shape) error {
	n, h, w, err := p.dims(shape)
	if err != nil {
		return err
	}
	return p.r.HessVec(dst, z, u, n, h, w)
}

// PiecewiseQuadratic is false: third derivatives are not available.
func (autoPotential) PiecewiseQuadratic() bool { return false }

// Lipschitz implements Regularizer: the constant given, or the estimate.
func (r *AutoRegularizer) Lipschitz() float64 { return r.lip }

// Zero implements Regularizer.
func (*AutoRegularizer) Zero() bool { return false }

// EstimateLipschitz returns the largest Hessian eigenvalue of S found on
// h×w images by power iteration on central differences of ∇S, at zero, at
// a flat grey image with small noise and at uniform noise in [0, 1] (no
// margin: a lower bound of the Lipschitz constant of ∇S).
func (r *AutoRegularizer) EstimateLipschitz(h, w int) (float64, error) {
	hw := h * w
	rng := rand.New(rand.NewPCG(5, 8))
	points := [][]float64{make([]float64, hw), make([]float64, hw), make([]float64, hw)}
	for i := range hw {
		points[1][i] = 0.5 + 0.01*rng.NormFloat64()
		points[2][i] = rng.Float64()
	}
	gp, gm, xp := make([]float64, hw), make([]float64, hw), make([]float64, hw)
	best := 0.0
	for _, x0 := range points {
		const step = 1e-5
		hess := func(v []float64) error {
			for i := range v {
				xp[i] = x0[i] + step*v[i]
			}
			if err := r.ValueGrad(nil, gp, xp, 1, h, w); err != nil {
				return err
			}
			for i := range v {
				xp[i] = x0[i] - step*v[i]
			}
			if err := r.ValueGrad(nil, gm, xp, 1, h, w); err != nil {
				return err
			}
			for i := range v {
				v[i] = (gp[i] - gm[i]) / (2 * step)
			}
			return nil
		}
		lam, _, err := kernels.PowerIteration{Seed: [2]uint64{3, 9}, MaxIter: 300, MinIter: 10, RelTol: 1e-6}.Largest(hw, hess)
		if err != nil {
			return 0, fmt.Errorf("auto regularizer %s: estimating the Lipschitz constant: %w", r.name, err)
		}
		best = math.Max(best, lam)
	}
	return best, nil
}

// AutoOperator is a linear forward operator given by its forward
// expression alone: its adjoint comes from the vector–Jacobian product
// (one gorgonia.Grad of ⟨A x, r⟩ with respect to x), built once per batch
// shape and re-run. NewAutoOperator checks linearity and adjointness and
// refuses an expression that fails either. It is safe for concurrent use.
type AutoOperator struct {
	name    string
	forward func(x *G.Node) (*G.Node, error)
	mu      sync.Mutex
	graphs  map[[3]int]*autoOpGraph
}

type autoOpGraph struct {
	mu   sync.Mutex
	m    *graph.Machine
	x, r *G.Node
	out  *G.Node
	// zeroIn and zeroOut are fed to the unused input (r for Apply, x for
	// Adjoint), allocated once.
	zeroIn, zeroOut []float64
}

// NewAutoOperator returns the linear operator whose value on a batch node
// x [N,H,W] is the node forward builds, checked on h×w images: A(a u + b v)
// = a A u + b A v and ⟨A u, y⟩ = ⟨u, Aᵀ y⟩ to 1e-9 relative for random u, v,
// y, or an error naming the failure. name identifies it with its
// parameters.
func NewAutoOperator(name string, forward func(x *G.Node) (*G.Node, error), h, w int) (*AutoOperator, error) {
	if name == "" || forward == nil {
		return nil, errors.New("auto operator: a name and a forward expression are required")
	}
	a := &AutoOperator{name: name, forward: forward, graphs: map[[3]int]*autoOpGraph{}}
	if err := CheckLinearAdjoint(a, 2, h, w, 1e-9); err != nil {
		return nil, fmt.Errorf("auto operator %s: %w", name, err)
	}
	return a, nil
}

func (a *AutoOperator) String() string { return a.name }

func (a *AutoOperator) graphFor(in tensor.Shape) (*autoOpGraph, error) {
	if len(in) != 3 {
		return nil, fmt.Errorf("auto operator %s: input shape %v, want [N,H,W]", a.name, in)
	}
	key := [3]int{in[0], in[1], in[2]}
	a.mu.Lock()
	defer a.mu.Unlock()
	if g, ok := a.graphs[key]; ok {
		return g, nil
	}
	gr := G.NewGraph()
	x := graph.Input(gr, "x", in...)
	out, err := a.forward(x)
	if err != nil {
		return nil, fmt.Errorf("auto operator %s: forward expression: %w", a.name, err)
	}
	r := graph.Input(gr, "r", out.Shape()...)
	inner, err := G.Sum(G.Must(G.HadamardProd(out, r)))
	if err != nil {
		return nil, fmt.Errorf("auto operator %s: ⟨A x, r⟩: %w", a.name, err)
	}
	if _, err := G.Grad(inner, x); err != nil {
		return nil, fmt.Errorf("auto operator %s: differentiating ⟨A x, r⟩: %w", a.name, err)
	}
	g := &autoOpGraph{m: graph.NewMachine(gr, x), x: x, r: r, out: out,
		zeroIn: make([]float64, in.TotalSize()), zeroOut: make([]float64, out.Shape().TotalSize())}
	a.graphs[key] = g
	return g, nil
}

// OutShape implements graph.LinearMap.
func (a *AutoOperator) OutShape(in tensor.Shape) (tensor.Shape, error) {
	g, err := a.graphFor(in)
	if err != nil {
		return nil, err
	}
	return tensor.Shape(g.out.Shape()).Clone(), nil
}

// DataShape implements Operator.
func (a *AutoOperator) DataShape(h, w int) []int {
	s, err := a.OutShape(tensor.Shape{1, h, w})
	if err != nil {
		return nil
	}
	return s[1:]
}

// Apply implements graph.LinearMap.
func (a *AutoOperator) Apply(dst, src []float64, in tensor.Shape) error {
	g, err := a.graphFor(in)
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := graph.Set(g.x, src); err != nil {
		return err
	}
	if err := graph.Set(g.r, g.zeroOut); err != nil {
		return err
	}
	if err := g.m.Run(); err != nil {
		return fmt.Errorf("auto operator %s: %w", a.name, err)
	}
	v, err := graph.Value(g.out)
	if err != nil {
		return err
	}
	if len(dst) != len(v) {
		return fmt.Errorf("auto operator %s: %d output values, want %d", a.name, len(dst), len(v))
	}
	copy(dst, v)
	return nil
}

// Adjoint implements graph.LinearMap: ∇_x ⟨A x, src⟩ (at x = 0, A being linear).
func (a *AutoOperator) Adjoint(dst, src []float64, in tensor.Shape) error {
	g, err := a.graphFor(in)
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := graph.Set(g.x, g.zeroIn); err != nil {
		return err
	}
	if err := graph.Set(g.r, src); err != nil {
		return err
	}
	if err := g.m.Run(); err != nil {
		return fmt.Errorf("auto operator %s adjoint: %w", a.name, err)
	}
	gv, err := graph.Grad(g.x)
	if err != nil {
		return err
	}
	if len(dst) != len(gv) {
		return fmt.Errorf("auto operator %s adjoint: %d output values, want %d", a.name, len(dst), len(gv))
	}
	copy(dst, gv)
	return nil
}

// CheckLinearAdjoint tests an operator on n random images of h×w, as
// deepinv's adjointness test does: A(a u + b v) = a A u + b A v and
// ⟨A u, y⟩ = ⟨u, Aᵀ y⟩, each to the relative tolerance tol.
func CheckLinearAdjoint(op Operator, n, h, w int, tol float64) error {
	in := tensor.Shape{n, h, w}
	outShape, err := op.OutShape(in)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(21, 34))
	rnd := func(m int) []float64 {
		v := make([]float64, m)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	m := outShape.TotalSize()
	u, v, y := rnd(in.TotalSize()), rnd(in.TotalSize()), rnd(m)
	au, av, acomb := make([]float64, m), make([]float64, m), make([]float64, m)
	comb := make([]float64, len(u))
	const ca, cb = 0.7, -1.3
	for i := range comb {
		comb[i] = ca*u[i] + cb*v[i]
	}
	for _, c := range []struct {
		dst, src []float64
	}{{au, u}, {av, v}, {acomb, comb}} {
		if err := op.Apply(c.dst, c.src, in); err != nil {
			return err
		}
	}
	var diff, scale float64
	for i := range acomb {
		want := ca*au[i] + cb*av[i]
		diff = math.Max(diff, math.Abs(acomb[i]-want))
		scale = math.Max(scale, math.Abs(want))
	}
	if diff > tol*math.Max(scale, 1e-300) {
		return fmt.Errorf("not linear: A(a u + b v) differs from a A u + b A v by %.3g (relative %.3g)", diff, diff/scale)
	}
	aty := make([]float64, len(u))
	if err := op.Adjoint(aty, y, in); err != nil {
		return err
	}
	lhs, rhs := kernels.Dot(au, y), kernels.Dot(u, aty)
	if d := math.Abs(lhs-rhs) / math.Max(math.Max(math.Abs(lhs), math.Abs(rhs)), 1e-300); d > tol {
		return fmt.Errorf("adjoint mismatch: ⟨A u, y⟩ = %.15g, ⟨u, Aᵀ y⟩ = %.15g (relative %.3g)", lhs, rhs, d)
	}
	return nil
}
