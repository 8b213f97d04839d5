package problem

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

// Analysis is implemented by regularizers of the form S(x) = Σ ψ(K x): a
// linear analysis operator K (finite differences for Huber-TV, the filters W
// of WCRR) and a potential ψ summed image by image. Then S(x − θg + φp) needs
// K only at x, g and p: the greedy step loss of scalar parametrizations
// applies K once per step instead of at every evaluation.
type Analysis interface {
	// AnalysisLen is the length of K x for one h×w image.
	AnalysisLen(h, w int) int
	// Analyze writes K x into dst for a batch x of n images of h×w.
	Analyze(dst, x []float64, n, h, w int) error
	// Potential writes Σ ψ(z_k) into vals[k] and, if deriv is not nil,
	// ψ'(z) into deriv (which may be z), for the responses z = K x of n
	// images. It is safe for concurrent use.
	Potential(vals, deriv, z []float64, n, h, w int) error
}

// AnalysisLen implements Analysis: the two finite differences per pixel.
func (HuberTV) AnalysisLen(h, w int) int { return 2 * h * w }

// Analyze implements Analysis: D x, [N,2,H,W].
func (HuberTV) Analyze(dst, x []float64, n, h, w int) error { return kernels.Grad(dst, x, n, h, w) }

// Potential implements Analysis: the isotropic Huber function of D x.
func (r HuberTV) Potential(vals, deriv, z []float64, n, h, w int) error {
	hb := kernels.Huber{Eps: r.Eps}
	if err := hb.Value(vals, z, n, h*w); err != nil {
		return err
	}
	if deriv == nil {
		return nil
	}
	return hb.Derivative(deriv, z, n, h*w)
}
