package models

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// GraphBinder binds any parametrization through its forward expression: the
// bound map θ ↦ G_θ v runs Apply in a small gorgonia graph, and its adjoint
// is the graph's vector–Jacobian product (graph.VJP), so that no adjoint is
// written by hand. It is the term every parametrization has (the greedy step
// loss uses it for families without their own Binder) and the oracle the
// fast bound operators are tested against.
//
// The graph is built on the first Bind and re-run afterwards: a later Bind
// with the same batch shape sets the new operand and returns the same Bound,
// so a Bound is valid until the next Bind. Apply may be nonlinear in θ; then
// AddAdjoint is the adjoint of the linearisation at the parameters of the
// last AddApply (the order in which the step loss calls them). Close releases
// the graph's machines. A GraphBinder is not safe for concurrent use.
type GraphBinder struct {
	p  Parametrization
	gb *graphBound
}

// NewGraphBinder returns the graph binder of p.
func NewGraphBinder(p Parametrization) *GraphBinder { return &GraphBinder{p: p} }

// Parametrization returns the parametrization bound.
func (b *GraphBinder) Parametrization() Parametrization { return b.p }

// Bind implements Binder.
func (b *GraphBinder) Bind(v []float64, n, h, w int) (Bound, error) {
	if err := checkBatch(b.p.Name(), v, n, h, w); err != nil {
		return nil, err
	}
	if b.gb == nil || b.gb.n != n || b.gb.h != h || b.gb.w != w {
		if err := b.Close(); err != nil {
			return nil, err
		}
		gb, err := newGraphBound(b.p, n, h, w)
		if err != nil {
			return nil, err
		}
		b.gb = gb
	}
	if err := graph.Set(b.gb.operand, v); err != nil {
		return nil, fmt.Errorf("%s: %w", b.p.Name(), err)
	}
	return b.gb, nil
}

// Close releases the graph's machines (a later Bind builds a new graph).
func (b *GraphBinder) Close() error {
	if b.gb == nil {
		return nil
	}
	err := b.gb.vjp.Close()
	b.gb = nil
	return err
}

// graphBound is GraphBinder's Bound: out = G_param(operand), and the product
// of its Jacobian in param with the cotangent r.
type graphBound struct {
	name              string
	n, h, w           int
	param, operand, r *G.Node
	vjp               *graph.VJP
}

func newGraphBound(p Parametrization, n, h, w int) (*graphBound, error) {
	gr := G.NewGraph()
	gb := &graphBound{
		name: p.Name(), n: n, h: h, w: w,
		param:   graph.Input(gr, "theta", p.ParamShape(h, w)...),
		operand: graph.Input(gr, "v", n, h, w),
		r:       graph.Input(gr, "r", n, h, w),
	}
	out, err := p.Apply(gb.param, gb.operand)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	if want := (tensor.Shape{n, h, w}); !out.Shape().Eq(want) {
		return nil, fmt.Errorf("%s gives shape %v for a batch %v", p.Name(), out.Shape(), want)
	}
	if gb.vjp, err = graph.NewVJP(gr, G.Nodes{out}, G.Nodes{gb.r}, G.Nodes{gb.param}); err != nil {
		return nil, fmt.Errorf("differentiating %s: %w", p.Name(), err)
	}
	return gb, nil
}

// AddApply implements Bound: the graph's forward pass at theta.
func (b *graphBound) AddApply(dst, theta []float64, c float64) error {
	if len(dst) != b.n*b.h*b.w {
		return checkLens(b.name, len(dst), len(theta), b.n*b.h*b.w, len(theta))
	}
	if err := graph.Set(b.param, theta); err != nil {
		return fmt.Errorf("%s: %w", b.name, err)
	}
	if err := b.vjp.Forward(); err != nil {
		return fmt.Errorf("%s: %w", b.name, err)
	}
	out, err := b.vjp.Output(0)
	if err != nil {
		return fmt.Errorf("%s: %w", b.name, err)
	}
	addScaled(dst, out, c)
	return nil
}

// AddAdjoint implements Bound: the graph's backward pass with r as the
// output's cotangent, at the parameters of the last AddApply.
func (b *graphBound) AddAdjoint(dst, r []float64, c float64) error {
	if err := b.setCotangent(r); err != nil {
		return err
	}
	if err := b.vjp.Backward(); err != nil {
		return fmt.Errorf("%s: %w", b.name, err)
	}
	d, err := b.vjp.Grad(0)
	if err != nil {
		return fmt.Errorf("%s: %w", b.name, err)
	}
	if len(d) != len(dst) {
		return fmt.Errorf("%s: gradient has %d values, want %d", b.name, len(dst), len(d))
	}
	for j, v := range d {
		dst[j] += c * v
	}
	return nil
}

// setCotangent makes r the value of the cotangent node: the node's value is
// backed by r, so that a caller passing the same buffer every time (the step
// loss's ∇f(x⁺)) is not copied.
func (b *graphBound) setCotangent(r []float64) error {
	if len(r) != b.n*b.h*b.w {
		return fmt.Errorf("%s: cotangent has %d values, want %d", b.name, len(r), b.n*b.h*b.w)
	}
	if v, err := graph.Value(b.r); err == nil && len(v) > 0 && &v[0] == &r[0] {
		return nil
	}
	if err := G.Let(b.r, tensor.New(tensor.WithBacking(r), tensor.WithShape(b.n, b.h, b.w))); err != nil {
		return fmt.Errorf("%s: %w", b.name, err)
	}
	return nil
}

// Bytes implements Bound: the graph's values and gradients.
func (b *graphBound) Bytes() int64 { return graph.HeldBytes(b.vjp.Graph) }

// addScaled adds c·src to dst, in parallel chunks: for c = ±1 exactly
// dst ± src.
func addScaled(dst, src []float64, c float64) {
	kernels.ParallelFor(len(dst), func(lo, hi int) {
		d, s := dst[lo:hi], src[lo:hi]
		switch c {
		case 1:
			for j, v := range s {
				d[j] += v
			}
		case -1:
			for j, v := range s {
				d[j] -= v
			}
		default:
			for j, v := range s {
				d[j] += c * v
			}
		}
	})
}
