package greedy_test

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Example_newParametrization trains a new parametrization greedily and compares
// the learned optimizer with gradient descent on the training functions.
func Example_newParametrization() {
	prob, _ := problem.Deblur(problem.Options{H: 16})
	_, _, _, pix, _ := data.Stack(data.Synthetic(6, 16, 16, 7))
	train, _ := prob.Instantiate(pix, 6, 0)

	const steps = 6
	res, err := greedy.Train(train, greedy.Config{
		Method: greedy.Method{Param: models.Method{G: Separable{}, H: models.Scalar{}}},
		Stop:   greedy.Stop{MaxSteps: steps},
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
	fmt.Println("beats gradient descent after", steps, "iterations:", learned < gd)
	// Output:
	// parameters per step: 33
	// beats gradient descent after 6 iterations: true
}
