package graph

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Machine runs a built graph again and again without rebuilding it: set the
// inputs with Set, call Run, read results with Value and Grad.
type Machine struct {
	Graph *G.ExprGraph
	vm    G.VM
	bound []*G.Node
}

// NewMachine compiles g into a tape machine. bind lists the nodes whose
// gradients will be read (the arguments of the single gorgonia.Grad call).
func NewMachine(g *G.ExprGraph, bind ...*G.Node) *Machine {
	var opts []G.VMOpt
	if len(bind) > 0 {
		opts = append(opts, G.BindDualValues(bind...))
	}
	return &Machine{Graph: g, vm: G.NewTapeMachine(g, opts...), bound: bind}
}

// Run evaluates the graph (and the gradients, if it contains them).
//
// Gorgonia accumulates gradients into bound nodes across runs; Run zeroes
// them first, so each run's gradients stand alone.
func (m *Machine) Run() error {
	m.vm.Reset()
	for _, n := range m.bound {
		gr, err := n.Grad()
		if err != nil || gr == nil {
			continue
		}
		switch v := gr.(type) {
		case tensor.Tensor:
			v.Zero()
		case *G.F64:
			*v = 0
		}
	}
	if err := m.vm.RunAll(); err != nil {
		return fmt.Errorf("evaluating graph: %w", err)
	}
	return nil
}

// Close releases the machine's resources.
func (m *Machine) Close() error { return m.vm.Close() }

// Input creates a float64 input node of the given shape, initialised to zeros.
func Input(g *G.ExprGraph, name string, shape ...int) *G.Node {
	if len(shape) == 0 {
		return G.NewScalar(g, tensor.Float64, G.WithName(name), G.WithValue(0.0))
	}
	t := tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(shape...))
	return G.NewTensor(g, tensor.Float64, len(shape), G.WithName(name), G.WithValue(t))
}

// InputOn creates a float64 input node of the given shape (at least one
// dimension) whose value is backed by data, which must have the shape's
// size: writes to data are the node's new value, and several graphs' inputs
// can share one buffer. The name must be new to g: gorgonia would return an
// existing input of the same name and shape, with its own value (InputOn
// panics then).
func InputOn(g *G.ExprGraph, name string, data []float64, shape ...int) *G.Node {
	t := tensor.New(tensor.WithBacking(data), tensor.WithShape(shape...))
	n := G.NewTensor(g, tensor.Float64, len(shape), G.WithName(name), G.WithValue(t))
	if v, err := Value(n); err != nil || len(v) == 0 || &v[0] != &data[0] {
		panic(fmt.Sprintf("graph: InputOn(%s): the node's value is not data (is the name %q already an input of the graph?)", name, name))
	}
	return n
}

// Set copies data into the value of the input node n. The length must match.
func Set(n *G.Node, data []float64) error {
	if n.Shape().IsScalar() {
		if len(data) != 1 {
			return fmt.Errorf("input %s is a scalar, got %d values", n.Name(), len(data))
		}
		return G.Let(n, data[0])
	}
	dst, ok := n.Value().Data().([]float64)
	if !ok {
		return fmt.Errorf("input %s does not hold float64 data", n.Name())
	}
	if len(dst) != len(data) {
		return fmt.Errorf("input %s has %d values (shape %v), got %d", n.Name(), len(dst), n.Shape(), len(data))
	}
	copy(dst, data)
	return nil
}

// Value returns the data of n's value after Run: a view, not a copy.
func Value(n *G.Node) ([]float64, error) {
	v := n.Value()
	if v == nil {
		return nil, fmt.Errorf("node %s has no value: was the graph run?", n.Name())
	}
	return float64Data(v, n.Name())
}

// Scalar returns the value of a scalar node after Run.
func Scalar(n *G.Node) (float64, error) {
	d, err := Value(n)
	if err != nil {
		return math.NaN(), err
	}
	if len(d) != 1 {
		return math.NaN(), fmt.Errorf("node %s has %d values, want a scalar", n.Name(), len(d))
	}
	return d[0], nil
}

// Grad returns the gradient stored on n after Run: a view, not a copy.
func Grad(n *G.Node) ([]float64, error) {
	g, err := n.Grad()
	if err != nil {
		return nil, fmt.Errorf("gradient of %s: %w", n.Name(), err)
	}
	return float64Data(g, n.Name())
}

// GradMap returns the map that sets x to its argument, runs m and
// overwrites the argument with the gradient with respect to x. For a graph
// computing a quadratic form q(x) = ½xᵀMx that is the linear map x ← Mx,
// which is what a power iteration applies.
func GradMap(m *Machine, x *G.Node) func([]float64) error {
	return func(v []float64) error {
		if err := Set(x, v); err != nil {
			return err
		}
		if err := m.Run(); err != nil {
			return err
		}
		g, err := Grad(x)
		if err != nil {
			return err
		}
		copy(v, g)
		return nil
	}
}

// HeldBytes is the number of bytes of all values and gradients held by the
// nodes of g after a run: the memory a tape machine keeps for one evaluation.
func HeldBytes(g *G.ExprGraph) int64 {
	var total int64
	for _, n := range g.AllNodes() {
		if v := n.Value(); v != nil {
			total += int64(v.MemSize())
		}
		if gr, err := n.Grad(); err == nil && gr != nil {
			total += int64(gr.MemSize())
		}
	}
	return total
}
