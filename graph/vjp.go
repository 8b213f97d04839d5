package graph

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// VJP runs a forward expression y_i = F_i(w) and its vector–Jacobian
// products Σ_i J_iᵀ c_i (J_i = ∂y_i/∂w) as two separate machines over one
// graph, so that the cotangents c_i can be computed outside the graph from
// the forward values in between (for example c = ∇f(y) by direct kernels).
// The products come from one gorgonia.Backpropagate with the cotangent
// nodes as the outputs' gradients: no adjoint is written by hand, and the
// forward expression may be nonlinear in w.
//
// Use: set the inputs (Set), Forward, read Output; set the cotangent nodes,
// Backward, read Grad. Backward recomputes only the forward nodes that the
// products need (none for an expression linear in w, such as a bilinear map
// of w and a fixed operand). A VJP is not safe for concurrent use.
type VJP struct {
	Graph    *G.ExprGraph
	outputs  G.Nodes
	grads    G.Nodes
	fwd, bwd *Machine
}

// NewVJP differentiates the outputs of g with respect to the input nodes
// wrt, with the gradient of output i taken as the node cotangents[i] (an
// input node of the output's shape; one node may serve several outputs).
// It calls Backpropagate on g, so g must not be differentiated again.
func NewVJP(g *G.ExprGraph, outputs, cotangents, wrt G.Nodes) (*VJP, error) {
	if len(outputs) == 0 || len(outputs) != len(cotangents) {
		return nil, fmt.Errorf("vector–Jacobian product: %d outputs and %d cotangents", len(outputs), len(cotangents))
	}
	for i, o := range outputs {
		c := cotangents[i]
		if c.Op() != nil {
			return nil, fmt.Errorf("vector–Jacobian product: cotangent %s of %s is not an input node", c.Name(), o.Name())
		}
		if !o.Shape().Eq(c.Shape()) {
			return nil, fmt.Errorf("vector–Jacobian product: output %s has shape %v, its cotangent %s %v", o.Name(), o.Shape(), c.Name(), c.Shape())
		}
	}
	for _, w := range wrt {
		if w.Op() != nil {
			return nil, fmt.Errorf("vector–Jacobian product: %s is not an input node", w.Name())
		}
	}
	grads, err := G.Backpropagate(outputs, cotangents, wrt)
	if err != nil {
		return nil, fmt.Errorf("vector–Jacobian product: %w", err)
	}
	return &VJP{
		Graph:   g,
		outputs: outputs,
		grads:   grads,
		fwd:     NewMachine(g.SubgraphRoots(outputs...)),
		bwd:     NewMachine(g.SubgraphRoots(grads...)),
	}, nil
}

// Forward evaluates the outputs for the inputs set.
func (v *VJP) Forward() error { return v.fwd.Run() }

// Output returns the value of output i after Forward: a view, not a copy.
func (v *VJP) Output(i int) ([]float64, error) { return Value(v.outputs[i]) }

// Backward evaluates the products for the inputs and cotangents set.
func (v *VJP) Backward() error { return v.bwd.Run() }

// Grad returns Σ_i J_iᵀ c_i for the wrt node j after Backward: a view, not a
// copy.
func (v *VJP) Grad(j int) ([]float64, error) {
	return Value(v.grads[j])
}

// Close releases both machines.
func (v *VJP) Close() error {
	err := v.fwd.Close()
	if e := v.bwd.Close(); err == nil {
		err = e
	}
	return err
}
