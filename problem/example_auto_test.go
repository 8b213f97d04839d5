package problem_test

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/graph"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	G "gorgonia.org/gorgonia"
)

// cauchy is the weakly convex Cauchy penalty S(x) = Σ_ij log(1 + |(Dx)_ij|²/ν²)
// written as a value expression: no gradient code anywhere.
func cauchy(nu float64) func(x *G.Node) (*G.Node, error) {
	return func(x *G.Node) (*G.Node, error) {
		d, err := graph.Linear(graph.Diff{}, x) // [N,2,H,W] forward differences
		if err != nil {
			return nil, err
		}
		r2, err := G.Sum(G.Must(G.Square(d)), 1) // |Dx|² per pixel
		if err != nil {
			return nil, err
		}
		return G.Sum(G.Must(G.Log1p(G.Must(G.Mul(r2, G.NewConstant(1/(nu*nu)))))))
	}
}

// deblurCauchy is Problem 1 with the Cauchy penalty (ν = 0.1, α = 2e-4)
// instead of Huber-TV; its Lipschitz constant is estimated.
func deblurCauchy(opt problem.Options) (*problem.Problem, error) {
	p, err := problem.Deblur(opt)
	if err != nil {
		return nil, err
	}
	reg, err := problem.NewAutoRegularizer("cauchy(nu=0.1)", cauchy(0.1), p.H, p.W, 0)
	if err != nil {
		return nil, err
	}
	p.Name, p.Reg = "deblur-cauchy", reg
	return p, nil
}

// ExampleNewAutoRegularizer defines a regularizer that is not in the tool
// by its value alone (cauchy, above), registers a deblurring problem built
// on it (so `l2o train greedy --problem deblur-cauchy`, eval, apply and
// certify can use it in a program that registers it), checks its gradient
// against finite differences, trains greedy M-PC on it and compares the
// learned optimizer with NAG and L-BFGS on functions it did not see.
func ExampleNewAutoRegularizer() {
	problem.Register("deblur-cauchy", "Problem 1 with the Cauchy penalty log(1+|Dx|²/ν²), ν = 0.1", deblurCauchy)
	p, err := problem.Lookup("deblur-cauchy", problem.Options{H: 24})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("L = 1 + α·Lip(∇S) = %.3f (Lip(∇S) estimated, closed form at 0: 2·8/ν² = 1600)\n", p.L())

	_, _, _, pix, _ := data.Stack(data.Synthetic(16, 24, 24, 3))
	train, _ := p.Instantiate(pix[:10*576], 10, 0)
	test, _ := p.Instantiate(pix[10*576:], 6, 1)
	fmt.Println("gradient matches finite differences:", gradientCheck(test) < 1e-6)

	method, _ := models.ParseMethod("m-pc")
	res, err := greedy.Train(train, greedy.Config{
		Method: greedy.Method{Param: method},
		Solver: greedy.Solver{Inner: greedy.NAG{Iters: 20, Rounds: 10}},
		Stop:   greedy.Stop{MaxSteps: 30},
		Store:  greedy.Store{KeepParams: true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	learned, _ := learned.New("greedy m-pc", method, 24, 24, res.Theta, res.Phi)
	// Algorithm 2 keeps the last step beyond T; the safeguard replaces a
	// learned step that raises f by a gradient step.
	safe := *learned
	safe.Label, safe.Safeguard = "+ safeguard", 1/test.L
	fstar, _ := baselines.Optimum(test, 2000, "")
	curves, err := eval.Run(test, fstar, []baselines.Method{learned, &safe, baselines.NAG{}, baselines.LBFGS{}}, eval.Options{Iters: 30})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("mean optimality     @10      @30")
	for _, c := range curves {
		fmt.Printf("%-14s %8.1e %8.1e\n", c.Method, c.Mean[10], c.Mean[30])
	}
	fmt.Println("learned ahead of NAG at iteration 10:", curves[0].Mean[10] < curves[2].Mean[10])
	// Output:
	// L = 1 + α·Lip(∇S) = 1.350 (Lip(∇S) estimated, closed form at 0: 2·8/ν² = 1600)
	// gradient matches finite differences: true
	// mean optimality     @10      @30
	// greedy m-pc     1.1e-03  3.2e-03
	// + safeguard     1.1e-03  7.2e-05
	// nag             1.7e-02  1.4e-03
	// lbfgs           4.6e-03  3.4e-04
	// learned ahead of NAG at iteration 10: true
}

// gradientCheck returns the relative difference between the directional
// derivative of Σk f_k along a fixed direction and central differences.
func gradientCheck(o *problem.Objective) float64 {
	g := make([]float64, len(o.X0))
	_ = o.Eval(nil, g, o.X0, nil)
	d := make([]float64, len(g))
	for i := range d {
		d[i] = float64((i*7919)%13) - 6
	}
	sum := func(step float64) float64 {
		x := append([]float64(nil), o.X0...)
		for i := range x {
			x[i] += step * d[i]
		}
		v := make([]float64, o.N)
		_ = o.Eval(v, nil, x, nil)
		var s float64
		for _, f := range v {
			s += f
		}
		return s
	}
	const h = 1e-6
	fd := (sum(h) - sum(-h)) / (2 * h)
	var an float64
	for i := range g {
		an += g[i] * d[i]
	}
	return abs(an-fd) / max(abs(an), abs(fd))
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
