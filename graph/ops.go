package graph

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// LinearMap is a linear map between float64 tensors together with its adjoint.
type LinearMap interface {
	// String identifies the map and all of its parameters: two maps with the
	// same String must compute the same thing (gorgonia merges such nodes).
	String() string
	// OutShape is the shape of A x for an input of shape in.
	OutShape(in tensor.Shape) (tensor.Shape, error)
	// Apply writes A src into dst; src has shape in.
	Apply(dst, src []float64, in tensor.Shape) error
	// Adjoint writes Aᵀ src into dst; dst has shape in.
	Adjoint(dst, src []float64, in tensor.Shape) error
}

// BilinearMap is a map c = B(a, b), linear in each argument, with both adjoints:
// ⟨B(a, b), c⟩ = ⟨a, AdjointA(c, b)⟩ = ⟨b, AdjointB(a, c)⟩.
type BilinearMap interface {
	String() string
	OutShape(a, b tensor.Shape) (tensor.Shape, error)
	Apply(dst, a, b []float64, sa, sb tensor.Shape) error
	AdjointA(dst, c, b []float64, sa, sb tensor.Shape) error
	AdjointB(dst, a, c []float64, sa, sb tensor.Shape) error
}

// Potential is a sum Σ φ(z) over a tensor z, with its derivative and its
// Hessian-vector product.
type Potential interface {
	String() string
	Value(z []float64, shape tensor.Shape) (float64, error)
	Derivative(dst, z []float64, shape tensor.Shape) error
	HessVec(dst, z, u []float64, shape tensor.Shape) error
	// PiecewiseQuadratic reports whether φ'' is piecewise constant, so that
	// the derivative of HessVec with respect to z is zero almost everywhere.
	PiecewiseQuadratic() bool
}

// Linear returns the node A x.
func Linear(m LinearMap, x *G.Node) (*G.Node, error) {
	in := x.Shape().Clone()
	if _, err := m.OutShape(in); err != nil {
		return nil, fmt.Errorf("%s applied to %v: %w", m, in, err)
	}
	return G.ApplyOp(&linearOp{m: m, in: in}, x)
}

// LinearAdjoint returns the node Aᵀ y, where A maps tensors of shape in.
func LinearAdjoint(m LinearMap, y *G.Node, in tensor.Shape) (*G.Node, error) {
	out, err := m.OutShape(in)
	if err != nil {
		return nil, fmt.Errorf("%s adjoint for input shape %v: %w", m, in, err)
	}
	if !out.Eq(y.Shape()) {
		return nil, fmt.Errorf("%s adjoint: argument has shape %v, want %v", m, y.Shape(), out)
	}
	return G.ApplyOp(&linearOp{m: m, in: in.Clone(), adjoint: true}, y)
}

// Bilinear returns the node B(a, b).
func Bilinear(m BilinearMap, a, b *G.Node) (*G.Node, error) {
	sa, sb := a.Shape().Clone(), b.Shape().Clone()
	if _, err := m.OutShape(sa, sb); err != nil {
		return nil, fmt.Errorf("%s applied to %v and %v: %w", m, sa, sb, err)
	}
	return G.ApplyOp(&bilinearOp{m: m, sa: sa, sb: sb, kind: bilinearApply}, a, b)
}

// BilinearAdjointA returns the node B₁ᵀ(c, b), the adjoint of B in its first
// argument (shaped sa) applied to c.
func BilinearAdjointA(m BilinearMap, c, b *G.Node, sa tensor.Shape) (*G.Node, error) {
	sb := b.Shape().Clone()
	if _, err := m.OutShape(sa, sb); err != nil {
		return nil, fmt.Errorf("%s adjoint for %v and %v: %w", m, sa, sb, err)
	}
	return G.ApplyOp(&bilinearOp{m: m, sa: sa.Clone(), sb: sb, kind: bilinearAdjointA}, c, b)
}

// BilinearAdjointB returns the node B₂ᵀ(a, c), the adjoint of B in its second
// argument (shaped sb) applied to c.
func BilinearAdjointB(m BilinearMap, a, c *G.Node, sb tensor.Shape) (*G.Node, error) {
	sa := a.Shape().Clone()
	if _, err := m.OutShape(sa, sb); err != nil {
		return nil, fmt.Errorf("%s adjoint for %v and %v: %w", m, sa, sb, err)
	}
	return G.ApplyOp(&bilinearOp{m: m, sa: sa, sb: sb.Clone(), kind: bilinearAdjointB}, a, c)
}

// PotentialValue returns the scalar node Σ φ(z).
func PotentialValue(p Potential, z *G.Node) (*G.Node, error) {
	return G.ApplyOp(&potentialOp{p: p, shape: z.Shape().Clone(), order: 0}, z)
}

// PotentialDerivative returns the node φ'(z).
func PotentialDerivative(p Potential, z *G.Node) (*G.Node, error) {
	return G.ApplyOp(&potentialOp{p: p, shape: z.Shape().Clone(), order: 1}, z)
}

// PotentialHessVec returns the node φ”(z) u.
func PotentialHessVec(p Potential, z, u *G.Node) (*G.Node, error) {
	if !z.Shape().Eq(u.Shape()) {
		return nil, fmt.Errorf("%s Hessian-vector product: shapes %v and %v differ", p, z.Shape(), u.Shape())
	}
	return G.ApplyOp(&potentialOp{p: p, shape: z.Shape().Clone(), order: 2}, z, u)
}

// ---- shared op plumbing ----

func tensorType(dims int) hm.Type {
	if dims == 0 {
		return hm.TypeVariable('a')
	}
	return &G.TensorType{Dims: dims, Of: hm.TypeVariable('a')}
}

func hashOf(s fmt.Stringer) uint32 {
	h := fnv.New32a()
	fmt.Fprint(h, s.String())
	return h.Sum32()
}

func float64Data(v G.Value, what string) ([]float64, error) {
	d, ok := v.Data().([]float64)
	if !ok {
		if f, ok := v.Data().(float64); ok {
			return []float64{f}, nil
		}
		return nil, fmt.Errorf("%s: expected float64 data, got %T", what, v.Data())
	}
	return d, nil
}

func newValue(shape tensor.Shape) G.Value {
	if shape.IsScalar() {
		return G.NewF64(0)
	}
	return tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(shape.Clone()...))
}

// outputCache keeps an op's output tensor between runs of a graph, so that
// re-running a built graph does not allocate. Every op value belongs to one
// node of one graph, and its kernel overwrites the whole output.
type outputCache struct {
	v G.Value
}

func (c *outputCache) get(shape tensor.Shape) G.Value {
	if shape.IsScalar() {
		return G.NewF64(0)
	}
	if c.v == nil {
		c.v = newValue(shape)
	}
	return c.v
}

func valueData(v G.Value) []float64 {
	switch x := v.(type) {
	case *G.F64:
		return nil
	default:
		return x.Data().([]float64)
	}
}

// ---- linear ----

type linearOp struct {
	m       LinearMap
	in      tensor.Shape
	adjoint bool
	out     outputCache
}

func (op *linearOp) outShape() tensor.Shape {
	s, _ := op.m.OutShape(op.in)
	return s
}

func (op *linearOp) resultShape() tensor.Shape {
	if op.adjoint {
		return op.in
	}
	return op.outShape()
}

func (op *linearOp) argShape() tensor.Shape {
	if op.adjoint {
		return op.outShape()
	}
	return op.in
}

func (op *linearOp) Arity() int { return 1 }
func (op *linearOp) Type() hm.Type {
	return hm.NewFnType(tensorType(op.argShape().Dims()), tensorType(op.resultShape().Dims()))
}
func (op *linearOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.resultShape().Clone(), nil
}
func (op *linearOp) Do(vals ...G.Value) (G.Value, error) {
	src, err := float64Data(vals[0], op.String())
	if err != nil {
		return nil, err
	}
	out := op.out.get(op.resultShape())
	dst := valueData(out)
	if op.adjoint {
		err = op.m.Adjoint(dst, src, op.in)
	} else {
		err = op.m.Apply(dst, src, op.in)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return out, nil
}
func (op *linearOp) ReturnsPtr() bool      { return false }
func (op *linearOp) CallsExtern() bool     { return false }
func (op *linearOp) OverwritesInput() int  { return -1 }
func (op *linearOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *linearOp) Hashcode() uint32      { return hashOf(op) }
func (op *linearOp) String() string {
	if op.adjoint {
		return fmt.Sprintf("(%s)ᵀ@%v", op.m, op.in)
	}
	return fmt.Sprintf("%s@%v", op.m, op.in)
}
func (op *linearOp) DiffWRT(int) []bool { return []bool{true} }
func (op *linearOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	var d *G.Node
	var err error
	if op.adjoint {
		d, err = G.ApplyOp(&linearOp{m: op.m, in: op.in}, grad)
	} else {
		d, err = G.ApplyOp(&linearOp{m: op.m, in: op.in, adjoint: true}, grad)
	}
	return G.Nodes{d}, err
}

// ---- bilinear ----

type bilinearKind int

const (
	bilinearApply    bilinearKind = iota // B(a, b)
	bilinearAdjointA                     // B₁ᵀ(c, b), shaped like a
	bilinearAdjointB                     // B₂ᵀ(a, c), shaped like b
)

type bilinearOp struct {
	m      BilinearMap
	sa, sb tensor.Shape
	kind   bilinearKind
	out    outputCache
}

func (op *bilinearOp) sc() tensor.Shape {
	s, _ := op.m.OutShape(op.sa, op.sb)
	return s
}

func (op *bilinearOp) shapes() (in0, in1, out tensor.Shape) {
	switch op.kind {
	case bilinearAdjointA:
		return op.sc(), op.sb, op.sa
	case bilinearAdjointB:
		return op.sa, op.sc(), op.sb
	}
	return op.sa, op.sb, op.sc()
}

func (op *bilinearOp) Arity() int { return 2 }
func (op *bilinearOp) Type() hm.Type {
	a, b, c := op.shapes()
	return hm.NewFnType(tensorType(a.Dims()), tensorType(b.Dims()), tensorType(c.Dims()))
}
func (op *bilinearOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	_, _, out := op.shapes()
	return out.Clone(), nil
}
func (op *bilinearOp) Do(vals ...G.Value) (G.Value, error) {
	x, err := float64Data(vals[0], op.String())
	if err != nil {
		return nil, err
	}
	y, err := float64Data(vals[1], op.String())
	if err != nil {
		return nil, err
	}
	_, _, outShape := op.shapes()
	out := op.out.get(outShape)
	dst := valueData(out)
	scalarOut := dst == nil
	if scalarOut {
		dst = make([]float64, 1)
	}
	switch op.kind {
	case bilinearApply:
		err = op.m.Apply(dst, x, y, op.sa, op.sb)
	case bilinearAdjointA:
		err = op.m.AdjointA(dst, x, y, op.sa, op.sb)
	case bilinearAdjointB:
		err = op.m.AdjointB(dst, x, y, op.sa, op.sb)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if scalarOut {
		return G.NewF64(dst[0]), nil
	}
	return out, nil
}
func (op *bilinearOp) ReturnsPtr() bool      { return false }
func (op *bilinearOp) CallsExtern() bool     { return false }
func (op *bilinearOp) OverwritesInput() int  { return -1 }
func (op *bilinearOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *bilinearOp) Hashcode() uint32      { return hashOf(op) }
func (op *bilinearOp) String() string {
	return fmt.Sprintf("%s[%d]@%v,%v", op.m, op.kind, op.sa, op.sb)
}
func (op *bilinearOp) DiffWRT(int) []bool { return []bool{true, true} }
func (op *bilinearOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	mk := func(kind bilinearKind, x, y *G.Node) (*G.Node, error) {
		return G.ApplyOp(&bilinearOp{m: op.m, sa: op.sa, sb: op.sb, kind: kind}, x, y)
	}
	x, y := inputs[0], inputs[1]
	var d0, d1 *G.Node
	var err error
	switch op.kind {
	case bilinearApply: // c = B(a,b): ∂a = B₁ᵀ(u, b), ∂b = B₂ᵀ(a, u)
		if d0, err = mk(bilinearAdjointA, grad, y); err == nil {
			d1, err = mk(bilinearAdjointB, x, grad)
		}
	case bilinearAdjointA: // a' = B₁ᵀ(c, b): ∂c = B(u, b), ∂b = B₂ᵀ(u, c)
		if d0, err = mk(bilinearApply, grad, y); err == nil {
			d1, err = mk(bilinearAdjointB, grad, x)
		}
	case bilinearAdjointB: // b' = B₂ᵀ(a, c): ∂a = B₁ᵀ(c, u), ∂c = B(a, u)
		if d0, err = mk(bilinearAdjointA, y, grad); err == nil {
			d1, err = mk(bilinearApply, x, grad)
		}
	}
	if err != nil {
		return nil, err
	}
	return G.Nodes{d0, d1}, nil
}

// ---- potentials ----

type potentialOp struct {
	p     Potential
	shape tensor.Shape
	order int // 0: value, 1: derivative, 2: Hessian-vector product
	out   outputCache
}

func (op *potentialOp) Arity() int {
	if op.order == 2 {
		return 2
	}
	return 1
}
func (op *potentialOp) Type() hm.Type {
	t := tensorType(op.shape.Dims())
	switch op.order {
	case 0:
		return hm.NewFnType(t, hm.TypeVariable('a'))
	case 1:
		return hm.NewFnType(t, t)
	}
	return hm.NewFnType(t, t, t)
}
func (op *potentialOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	if op.order == 0 {
		return tensor.ScalarShape(), nil
	}
	return op.shape.Clone(), nil
}
func (op *potentialOp) Do(vals ...G.Value) (G.Value, error) {
	z, err := float64Data(vals[0], op.String())
	if err != nil {
		return nil, err
	}
	switch op.order {
	case 0:
		v, err := op.p.Value(z, op.shape)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		return G.NewF64(v), nil
	case 1:
		out := op.out.get(op.shape)
		if err := op.p.Derivative(valueData(out), z, op.shape); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		return out, nil
	}
	u, err := float64Data(vals[1], op.String())
	if err != nil {
		return nil, err
	}
	out := op.out.get(op.shape)
	if err := op.p.HessVec(valueData(out), z, u, op.shape); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return out, nil
}
func (op *potentialOp) ReturnsPtr() bool      { return false }
func (op *potentialOp) CallsExtern() bool     { return false }
func (op *potentialOp) OverwritesInput() int  { return -1 }
func (op *potentialOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *potentialOp) Hashcode() uint32      { return hashOf(op) }
func (op *potentialOp) String() string {
	return fmt.Sprintf("%s^(%d)@%v", op.p, op.order, op.shape)
}
func (op *potentialOp) DiffWRT(int) []bool {
	if op.order == 2 {
		return []bool{true, true}
	}
	return []bool{true}
}
func (op *potentialOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	z := inputs[0]
	switch op.order {
	case 0: // d/dz Σφ(z) · s = s φ'(z)
		d, err := G.ApplyOp(&potentialOp{p: op.p, shape: op.shape, order: 1}, z)
		if err != nil {
			return nil, err
		}
		scaled, err := G.Mul(d, grad)
		if err != nil {
			return nil, err
		}
		return G.Nodes{scaled}, nil
	case 1: // φ'' is symmetric: ∂z = φ''(z) u
		d, err := G.ApplyOp(&potentialOp{p: op.p, shape: op.shape, order: 2}, z, grad)
		return G.Nodes{d}, err
	}
	// φ''(z)v: ∂v = φ''(z) u; ∂z = φ'''(z)[u, v], zero when φ'' is piecewise constant.
	if !op.p.PiecewiseQuadratic() {
		return nil, fmt.Errorf("%s: third derivatives of this potential are not available; differentiate at most twice", op.p)
	}
	dv, err := G.ApplyOp(&potentialOp{p: op.p, shape: op.shape, order: 2}, z, grad)
	if err != nil {
		return nil, err
	}
	dz, err := G.Sub(z, z)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dz, dv}, nil
}
