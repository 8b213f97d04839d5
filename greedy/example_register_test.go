package greedy_test

import (
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Separable is a parametrization that is not in the paper: a pointwise
// operator whose weights are the outer product of a column profile a (H values)
// and a row profile b (W values), (G_θ v)[i,j] = a_i b_j v[i,j], so it has only
// H + W parameters. Only its forward expression is written; gorgonia derives
// every gradient, and no adjoint or norm is written by hand.
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
	weights, err := graph.Bilinear(graph.Outer{}, a, b) // a_i b_j
	if err != nil {
		return nil, err
	}
	return graph.Bilinear(graph.Pointwise{}, weights, v)
}

// Reference gives G = τI: a_i = b_j = √τ (τ = 0 gives G = 0).
func (Separable) Reference(tau float64, h, w int) []float64 {
	p := make([]float64, h+w)
	for i := range p {
		p[i] = math.Sqrt(math.Max(tau, 0))
	}
	return p
}

// registerSeparable registers Separable under its name. Registering a name
// twice fails with models.ErrNameTaken (examples may run more than once).
func registerSeparable() error {
	err := models.Register(models.Registration{Name: "separable", Version: 1,
		Summary: "outer-product pointwise weights a_i b_j (H+W parameters)",
		New:     func(string) (models.Parametrization, error) { return Separable{}, nil }})
	if errors.Is(err, models.ErrNameTaken) {
		return nil
	}
	return err
}

// ExampleRegister defines a new parametrization (Separable, above: a forward
// expression and its reference τI, nothing else), registers it, trains a
// learned optimizer that uses it for G with a scalar momentum H, saves the
// run, loads it back with the standard loader, applies it to functions it
// was not trained on and certifies its last step (‖G_θ − τI‖ by power
// iteration, since Separable has no closed-form norm).
func ExampleRegister() {
	if err := registerSeparable(); err != nil {
		fmt.Println(err)
		return
	}
	method, _ := models.ParseMethod("separable:ps") // G separable, H = φ·I
	prob, _ := problem.Deblur(problem.Options{H: 16})
	_, _, _, pix, _ := data.Stack(data.Synthetic(10, 16, 16, 7))
	train, _ := prob.Instantiate(pix[:6*256], 6, 0)
	test, _ := prob.Instantiate(pix[6*256:], 4, 1)

	dir, _ := os.MkdirTemp("", "separable")
	defer os.RemoveAll(dir)
	if _, err := greedy.Train(train, greedy.Config{
		Problem: greedy.Problem{Name: "deblur"},
		Method:  greedy.Method{Param: method, Lambda: greedy.Constant(1e-3), Mu: greedy.Constant(1e-3)},
		Stop:    greedy.Stop{MaxSteps: 6},
		Store:   greedy.Store{Dir: dir},
	}); err != nil {
		fmt.Println(err)
		return
	}
	opt, man, err := learned.Load(dir) // any registered type loads
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("loaded:", opt.Name(), "with", man.ThetaLen+man.PhiLen, "parameters a step, versions", man.ParamVersions)

	// Apply it for 10 iterations to the test functions, against gradient descent.
	it, _ := opt.Start(test)
	for range 10 {
		_ = it.Next()
	}
	f, _ := test.Mean(it.X())
	x, g := append([]float64(nil), test.X0...), make([]float64, len(test.X0))
	for range 10 {
		_ = test.Eval(nil, g, x, nil)
		for i := range x {
			x[i] -= g[i] / test.L
		}
	}
	gd, _ := test.Mean(x)
	fmt.Printf("test functions after 10 iterations: learned below gradient descent: %v\n", f < gd)

	theta, phi, _ := opt.Params(opt.Steps - 1)
	c, _ := learned.CertifyParams(method, theta, phi, man.Tau, man.L, man.H, man.W)
	fmt.Printf("last step: ε1 = %.3f, ε2 = %.3f, certified for L = %.2f: %v\n", c.Eps1, c.Eps2, man.L, c.P < 0)
	// Output:
	// loaded: greedy separable:ps with 33 parameters a step, versions map[ps:1 separable:1]
	// test functions after 10 iterations: learned below gradient descent: true
	// last step: ε1 = 0.005, ε2 = 0.519, certified for L = 1.32: false
}
