package greedy_test

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/param"
	"github.com/greedyl2o/greedyl2o/problem"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Separable is a parametrization that is not in the paper: a pointwise
// operator whose weights are the outer product of a column profile a (H values)
// and a row profile b (W values), (G_θ v)[i,j] = a_i b_j v[i,j], so it has only
// H + W parameters. Only its forward expression is written; gorgonia derives
// every gradient.
type Separable struct{}

func (Separable) Name() string { return "separable" }

func (Separable) ParamShape(h, w int) tensor.Shape { return tensor.Shape{h + w} }

func (Separable) Apply(theta, v *G.Node) (*G.Node, error) {
	h, w := v.Shape()[1], v.Shape()[2]
	a, err := G.Slice(theta, G.S(0, h))
	if err != nil {
		return nil, err
	}
	b, err := G.Slice(theta, G.S(h, h+w))
	if err != nil {
		return nil, err
	}
	weights, err := G.OuterProd(a, b)
	if err != nil {
		return nil, err
	}
	return graph.Bilinear(graph.Pointwise{}, weights, v)
}

// Reference gives G = τI: a_i = b_j = √τ (τ = 0 gives G = 0).
func (Separable) Reference(tau float64, h, w int) []float64 {
	p := make([]float64, h+w)
	for i := range p {
		if tau > 0 {
			p[i] = math.Sqrt(tau)
		}
	}
	return p
}

// Example_newParametrization trains a new parametrization greedily and compares
// the learned optimizer with gradient descent on the training functions.
func Example_newParametrization() {
	prob, _ := problem.Deblur(problem.Options{H: 16})
	_, _, _, pix, _ := data.Stack(data.Synthetic(6, 16, 16, 7))
	train, _ := prob.Instantiate(pix, 6, 0)

	const steps = 6
	res, err := greedy.Train(train, greedy.Config{
		Method:   param.Method{G: Separable{}, H: param.Scalar{}},
		MaxSteps: steps,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Gradient descent with step 1/L for the same number of iterations.
	x := append([]float64(nil), train.X0...)
	g := make([]float64, len(x))
	for t := 0; t < steps; t++ {
		_ = train.Eval(nil, g, x, nil)
		for i := range x {
			x[i] -= g[i] / train.L
		}
	}
	gd, _ := train.Mean(x)
	learned := res.Steps[steps-1].MeanF
	fmt.Println("parameters per step:", res.Manifest.ThetaLen+res.Manifest.PhiLen)
	fmt.Println("better than gradient descent at every step:", allBetter(res.Steps))
	fmt.Println("beats gradient descent after", steps, "iterations:", learned < gd)
	// Output:
	// parameters per step: 33
	// better than gradient descent at every step: true
	// beats gradient descent after 6 iterations: true
}

func allBetter(s []greedy.StepInfo) bool {
	for _, st := range s {
		if st.Loss > st.RefLoss {
			return false
		}
	}
	return true
}
