package unroll_test

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/param"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/unroll"
)

// Unrolled training of M-PS (scalar step and momentum per iteration) for
// T = 5 iterations on 8 small deblurring problems.
func ExampleTrain() {
	prob, _ := problem.Deblur(problem.Options{H: 16})
	n, _, _, pix, _ := data.Stack(data.Synthetic(8, 16, 16, 1))
	train, _ := prob.Instantiate(pix, n, 0)
	method, _ := param.ParseMethod("m-ps")
	res, err := unroll.Train(train, unroll.Config{Method: method, T: 5, Batch: 4, Epochs: 20, LearningRate: 1e-2})
	if err != nil {
		fmt.Println(err)
		return
	}
	first, last := res.Epochs[0], res.Epochs[len(res.Epochs)-1]
	fmt.Println("Adam steps:", res.AdamSteps)
	fmt.Println("steps learned:", len(res.Theta))
	fmt.Println("loss decreased:", last.MeanLoss < first.MeanLoss)
	// Output:
	// Adam steps: 40
	// steps learned: 5
	// loss decreased: true
}
