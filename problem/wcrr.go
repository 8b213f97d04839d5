package problem

import (
	"errors"
	"fmt"

	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/wcrr"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// WCRR is the weakly convex ridge regularizer S(x) = Σ_c Σ_ij ψ_c((Wx)_c[i,j]) of
// Goujon, Neumayer and Unser (2024), with W three stacked 5×5 convolution layers
// and ψ_c'(z) = (μ+1)·clip(z, ±h_c) − clip(z, ±T_c). Lip(∇S) ≤ μ‖W‖² (= μ for the
// pretrained weights, normalised so ‖W‖ = 1).
type WCRR struct {
	Model *wcrr.Model
	// Name identifies the weights in graph hashes (e.g. the file they came from).
	Name string
}

func (r *WCRR) String() string { return fmt.Sprintf("wcrr(%s)", r.Name) }

// ValueGrad implements Regularizer.
func (r *WCRR) ValueGrad(vals, grad, x []float64, n, h, w int) error {
	switch {
	case grad != nil:
		v, err := r.Model.ValueGrad(grad, x, n, h, w)
		if err != nil {
			return err
		}
		copy(vals, v)
	case vals != nil:
		v, err := r.Model.Value(x, n, h, w)
		if err != nil {
			return err
		}
		copy(vals, v)
	}
	return nil
}

// GraphValue implements Regularizer.
func (r *WCRR) GraphValue(x *G.Node) (*G.Node, error) {
	wx, err := graph.Linear(wcrrOperator{r}, x)
	if err != nil {
		return nil, err
	}
	return graph.PotentialValue(ridgePotential{r}, wx)
}

// GraphGrad implements Regularizer: Wᵀψ'(Wx) from forward operations.
func (r *WCRR) GraphGrad(x *G.Node) (*G.Node, error) {
	wx, err := graph.Linear(wcrrOperator{r}, x)
	if err != nil {
		return nil, err
	}
	d, err := graph.PotentialDerivative(ridgePotential{r}, wx)
	if err != nil {
		return nil, err
	}
	return graph.LinearAdjoint(wcrrOperator{r}, d, tensor.Shape(x.Shape()).Clone())
}

// Lipschitz implements Regularizer: max(μ, 1), the bound of the pretrained model.
func (r *WCRR) Lipschitz() float64 { return r.Model.LipschitzBound() }

// Zero implements Regularizer.
func (*WCRR) Zero() bool { return false }

// AnalysisLen implements Analysis: one response per channel and pixel.
func (r *WCRR) AnalysisLen(h, w int) int { return r.Model.Channels() * h * w }

// Analyze implements Analysis: W x, [N,C,H,W].
func (r *WCRR) Analyze(dst, x []float64, n, h, w int) error { return r.Model.Apply(dst, x, n, h, w) }

// Potential implements Analysis: Σ ψ_c of the responses.
func (r *WCRR) Potential(vals, deriv, z []float64, n, h, w int) error {
	return r.Model.PotentialPrime(vals, deriv, z, n, h, w)
}

// wcrrOperator is W: [N,H,W] → [N,C,H,W] as a graph.LinearMap.
type wcrrOperator struct{ r *WCRR }

func (o wcrrOperator) String() string { return "W" + o.r.String() }

func (o wcrrOperator) OutShape(in tensor.Shape) (tensor.Shape, error) {
	n, h, w, err := batchDims(in)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{n, o.r.Model.Channels(), h, w}, nil
}

func (o wcrrOperator) Apply(dst, src []float64, in tensor.Shape) error {
	n, h, w, err := batchDims(in)
	if err != nil {
		return err
	}
	return o.r.Model.Apply(dst, src, n, h, w)
}

func (o wcrrOperator) Adjoint(dst, src []float64, in tensor.Shape) error {
	n, h, w, err := batchDims(in)
	if err != nil {
		return err
	}
	return o.r.Model.Adjoint(dst, src, n, h, w)
}

// ridgePotential is Σ ψ_c(z) over [N,C,H,W] responses.
type ridgePotential struct{ r *WCRR }

func (p ridgePotential) String() string { return "psi" + p.r.String() }

func (p ridgePotential) dims(s tensor.Shape) (n, h, w int, err error) {
	if s.Dims() != 4 || s[1] != p.r.Model.Channels() {
		return 0, 0, 0, fmt.Errorf("ridge responses must be [N,%d,H,W], got %v", p.r.Model.Channels(), s)
	}
	return s[0], s[2], s[3], nil
}

func (p ridgePotential) Value(z []float64, s tensor.Shape) (float64, error) {
	n, h, w, err := p.dims(s)
	if err != nil {
		return 0, err
	}
	buf := make([]float64, len(z))
	if err := p.r.Model.Psi(buf, z, n, h, w); err != nil {
		return 0, err
	}
	var sum float64
	for _, v := range buf {
		sum += v
	}
	return sum, nil
}

func (p ridgePotential) Derivative(dst, z []float64, s tensor.Shape) error {
	n, h, w, err := p.dims(s)
	if err != nil {
		return err
	}
	return p.r.Model.PsiPrime(dst, z, n, h, w)
}

func (p ridgePotential) HessVec(dst, z, u []float64, s tensor.Shape) error {
	n, h, w, err := p.dims(s)
	if err != nil {
		return err
	}
	if err := p.r.Model.PsiSecond(dst, z, n, h, w); err != nil {
		return err
	}
	for i := range dst {
		dst[i] *= u[i]
	}
	return nil
}

func (ridgePotential) PiecewiseQuadratic() bool { return true }

func init() {
	Register("deblur-wcrr", "Problem 3: deblurring as Problem 1 with the weakly convex ridge regularizer, α=3e-3 (needs --wcrr-weights)", DeblurWCRR)
}

// ErrNoWCRRWeights is returned when a WCRR problem is built without weights.
var ErrNoWCRRWeights = errors.New("problem deblur-wcrr needs the regularizer's weights: pass --wcrr-weights FILE " +
	"(the pretrained σ=18 model is datasets/wcrr/wcrr_sigma18.json after `l2o data fetch wcrr`; the format is described in package wcrr)")

// DeblurWCRR is Problem 3: Problem 1's blur, data, noise and x⁰ = y with
// α = 3e-3 and S the weakly convex ridge regularizer loaded from
// opt.WCRRWeights (L ≤ 1 + 3e-3·48.032 ≈ 1.1441).
func DeblurWCRR(opt Options) (*Problem, error) {
	if opt.WCRRWeights == "" {
		return nil, ErrNoWCRRWeights
	}
	m, err := wcrr.Load(opt.WCRRWeights)
	if err != nil {
		return nil, fmt.Errorf("problem deblur-wcrr: %w", err)
	}
	return deblurWithWCRR(opt, m, opt.WCRRWeights)
}

// deblurWithWCRR builds Problem 3 with the given model (tests use random weights).
func deblurWithWCRR(opt Options, m *wcrr.Model, name string) (*Problem, error) {
	p, err := Deblur(opt)
	if err != nil {
		return nil, err
	}
	p.Name = "deblur-wcrr"
	p.Reg = &WCRR{Model: m, Name: name}
	p.Alpha = 3e-3
	p.Describe = append(p.Describe, fmt.Sprintf("regularizer: WCRR with %d channels, μ = %.6g, weights %s", m.Channels(), m.Mu, name))
	return p, nil
}
