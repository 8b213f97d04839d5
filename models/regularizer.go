package models

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/kernels"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Regularizer is the term S(x) of an objective, evaluated per image of a batch.
type Regularizer interface {
	String() string
	// ValueGrad writes S(x_k) into vals[k] (if vals is not nil) and ∇S(x_k)
	// into grad (if grad is not nil) for the batch x of n images of h×w.
	ValueGrad(vals, grad, x []float64, n, h, w int) error
	// GraphValue returns the scalar node Σ_k S(x_k) for a batch node x [N,H,W].
	GraphValue(x *G.Node) (*G.Node, error)
	// GraphGrad returns ∇S(x) written as forward operations (no gorgonia.Grad),
	// so that it can be differentiated once more.
	GraphGrad(x *G.Node) (*G.Node, error)
	// Lipschitz is a Lipschitz constant of ∇S.
	Lipschitz() float64
	// Zero reports whether S ≡ 0 (least-squares objectives).
	Zero() bool
}

// NoRegularizer is S = 0.
type NoRegularizer struct{}

func (NoRegularizer) String() string { return "none" }

// ValueGrad implements Regularizer.
func (NoRegularizer) ValueGrad(vals, grad, _ []float64, _, _, _ int) error {
	clear(vals)
	clear(grad)
	return nil
}

// GraphValue implements Regularizer.
func (NoRegularizer) GraphValue(x *G.Node) (*G.Node, error) { return G.Sum(G.Must(G.Sub(x, x))) }

// GraphGrad implements Regularizer.
func (NoRegularizer) GraphGrad(x *G.Node) (*G.Node, error) { return G.Sub(x, x) }

// Lipschitz implements Regularizer.
func (NoRegularizer) Lipschitz() float64 { return 0 }

// Zero implements Regularizer.
func (NoRegularizer) Zero() bool { return true }

// HuberTV is the isotropic Huber total variation S(x) = Σ_ij h_ε(|(Dx)_ij|) with
// forward differences D (Neumann boundary). Lip(∇S) = ‖D‖²/ε ≤ 8/ε.
type HuberTV struct {
	Eps float64
}

func (r HuberTV) String() string { return fmt.Sprintf("huber-tv(eps=%g)", r.Eps) }

// ValueGrad implements Regularizer.
func (r HuberTV) ValueGrad(vals, grad, x []float64, n, h, w int) error {
	d := make([]float64, 2*n*h*w)
	if err := kernels.Grad(d, x, n, h, w); err != nil {
		return err
	}
	hb := kernels.Huber{Eps: r.Eps}
	if vals != nil {
		if err := hb.Value(vals, d, n, h*w); err != nil {
			return err
		}
	}
	if grad != nil {
		if err := hb.Derivative(d, d, n, h*w); err != nil {
			return err
		}
		return kernels.GradAdjoint(grad, d, n, h, w)
	}
	return nil
}

// GraphValue implements Regularizer.
func (r HuberTV) GraphValue(x *G.Node) (*G.Node, error) {
	d, err := graph.Linear(graph.Diff{}, x)
	if err != nil {
		return nil, err
	}
	return graph.PotentialValue(graph.HuberTV{Eps: r.Eps}, d)
}

// GraphGrad implements Regularizer.
func (r HuberTV) GraphGrad(x *G.Node) (*G.Node, error) {
	d, err := graph.Linear(graph.Diff{}, x)
	if err != nil {
		return nil, err
	}
	psi, err := graph.PotentialDerivative(graph.HuberTV{Eps: r.Eps}, d)
	if err != nil {
		return nil, err
	}
	return graph.LinearAdjoint(graph.Diff{}, psi, tensor.Shape(x.Shape()).Clone())
}

// Lipschitz implements Regularizer: 8/ε.
func (r HuberTV) Lipschitz() float64 { return 8 / r.Eps }

// Zero implements Regularizer.
func (HuberTV) Zero() bool { return false }
