package ondevice

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/models"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// DeviceTerm is a parametrized operator G_θ of a learned update whose
// operands live on a device (models.DeviceTerm): a family's own, bound on
// the device (models.DeviceBinder: PS, PP, PC-k, PC, PF), or a GraphTerm
// (any parametrization, by its gorgonia forward expression on the host).
type DeviceTerm = models.DeviceTerm

var _ DeviceTerm = (*GraphTerm)(nil)

// NewDeviceTerm returns the term of p for batches of shape s on mem's
// device: the family's own when it binds on a device (models.DeviceBinder),
// a GraphTerm otherwise. What it holds belongs to mem.
func NewDeviceTerm(mem *gpu.Arena, p models.Parametrization, s gpu.Batch) (DeviceTerm, error) {
	if b, ok := p.(models.DeviceBinder); ok {
		return b.BindOn(mem, s)
	}
	t, err := NewGraphTerm(mem, p, s)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// GraphTerm is a term known only by its forward expression
// (models.Parametrization.Apply: PF, user parametrizations): its products
// run in a small gorgonia graph on the host, whose vector–Jacobian
// products give G_θᵀ b and ∇_θ⟨r, G_θ v⟩ (no hand-written adjoint); each
// call copies its operands from the device and its result back. G_θ v must
// be linear in v, as every parametrization of the update is.
type GraphTerm struct {
	ops          gpu.Ops
	s            gpu.Batch
	n            int
	theta, v, r  *G.Node
	vjp          *graph.VJP
	vHost, rHost []float64
	thetaSet     bool
	tmp          gpu.Buffer
}

// NewGraphTerm builds p's graph for batches of shape s; its device buffer
// and its graph belong to mem (mem.Close releases them).
func NewGraphTerm(mem *gpu.Arena, p models.Parametrization, s gpu.Batch) (*GraphTerm, error) {
	if s.N < 1 || s.H < 1 || s.W < 1 {
		return nil, fmt.Errorf("ondevice: term on a batch %d×%d×%d", s.N, s.H, s.W)
	}
	g := G.NewGraph()
	ops := mem.Ops()
	t := &GraphTerm{ops: ops, s: s, vHost: make([]float64, s.Len()), rHost: make([]float64, s.Len())}
	t.theta = graph.Input(g, "theta", p.ParamShape(s.H, s.W)...)
	t.v = graph.Input(g, "v", s.N, s.H, s.W)
	t.r = graph.Input(g, "r", s.N, s.H, s.W)
	t.n = tensor.Shape(t.theta.Shape()).TotalSize()
	out, err := p.Apply(t.theta, t.v)
	if err != nil {
		return nil, fmt.Errorf("ondevice: %s: %w", p.Name(), err)
	}
	if want := (tensor.Shape{s.N, s.H, s.W}); !out.Shape().Eq(want) {
		return nil, fmt.Errorf("ondevice: %s gives shape %v for a batch %v", p.Name(), out.Shape(), want)
	}
	if t.vjp, err = graph.NewVJP(g, G.Nodes{out}, G.Nodes{t.r}, G.Nodes{t.theta, t.v}); err != nil {
		return nil, fmt.Errorf("ondevice: differentiating %s: %w", p.Name(), err)
	}
	vjp := t.vjp
	mem.OnClose(func() { _ = vjp.Close() })
	if t.tmp, err = mem.Alloc(s.Len()); err != nil {
		return nil, fmt.Errorf("ondevice: %w", err)
	}
	return t, nil
}

// ParamLen implements DeviceTerm.
func (t *GraphTerm) ParamLen() int { return t.n }

// SetParams implements DeviceTerm.
func (t *GraphTerm) SetParams(theta []float64) error {
	if len(theta) != t.n {
		return fmt.Errorf("ondevice: %d parameters, want %d", len(theta), t.n)
	}
	t.thetaSet = true
	return graph.Set(t.theta, theta)
}

// load copies the device buffer b into host and sets node to it.
func (t *GraphTerm) load(node *G.Node, host []float64, b gpu.Buffer) error {
	if err := t.ops.CopyOut(host, b); err != nil {
		return fmt.Errorf("ondevice: copy an operand from %s: %w", t.ops.Name(), err)
	}
	return graph.Set(node, host)
}

// Apply implements DeviceTerm.
func (t *GraphTerm) Apply(dst, v gpu.Buffer, c float64) error {
	if !t.thetaSet {
		return fmt.Errorf("ondevice: graph term applied before SetParams")
	}
	if err := t.load(t.v, t.vHost, v); err != nil {
		return err
	}
	if err := t.vjp.Forward(); err != nil {
		return fmt.Errorf("ondevice: graph term: %w", err)
	}
	out, err := t.vjp.Output(0)
	if err != nil {
		return err
	}
	if err := t.ops.CopyIn(t.tmp, out); err != nil {
		return fmt.Errorf("ondevice: copy a product to %s: %w", t.ops.Name(), err)
	}
	return t.ops.Axpby(dst, c, t.tmp, 1)
}

// backward sets r and runs the products; v must be set.
func (t *GraphTerm) backward(r gpu.Buffer) error {
	if !t.thetaSet {
		return fmt.Errorf("ondevice: graph term differentiated before SetParams")
	}
	if err := t.load(t.r, t.rHost, r); err != nil {
		return err
	}
	if err := t.vjp.Forward(); err != nil {
		return fmt.Errorf("ondevice: graph term: %w", err)
	}
	if err := t.vjp.Backward(); err != nil {
		return fmt.Errorf("ondevice: graph term: %w", err)
	}
	return nil
}

// Transpose implements DeviceTerm: the product's gradient in v, J_vᵀ b =
// G_θᵀ b for an operator linear in v (taken at v = 0).
func (t *GraphTerm) Transpose(dst, b gpu.Buffer) error {
	clear(t.vHost)
	if err := graph.Set(t.v, t.vHost); err != nil {
		return err
	}
	if err := t.backward(b); err != nil {
		return err
	}
	gv, err := t.vjp.Grad(1)
	if err != nil {
		return err
	}
	return t.ops.CopyIn(dst, gv)
}

// AddParamGrad implements DeviceTerm.
func (t *GraphTerm) AddParamGrad(grad []float64, v, r gpu.Buffer, c float64) error {
	if len(grad) != t.n {
		return fmt.Errorf("ondevice: parameter gradient of %d values, want %d", len(grad), t.n)
	}
	if err := t.load(t.v, t.vHost, v); err != nil {
		return err
	}
	if err := t.backward(r); err != nil {
		return err
	}
	gt, err := t.vjp.Grad(0)
	if err != nil {
		return err
	}
	for j, x := range gt {
		grad[j] += c * x
	}
	return nil
}
