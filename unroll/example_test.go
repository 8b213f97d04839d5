package unroll_test

import (
	"fmt"
	"github.com/greedyl2o/greedyl2o/execution"
	"math"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/unroll"
)

// Unrolled training of M-PS (scalar step and momentum per iteration) for
// T = 5 iterations on 8 small deblurring problems.
func ExampleTrain() {
	prob, _ := problem.Deblur(problem.Options{H: 16})
	n, _, _, pix, _ := data.Stack(data.Synthetic(8, 16, 16, 1))
	train, _ := prob.Instantiate(pix, n, 0)
	method, _ := models.ParseMethod("m-ps")
	res, err := unroll.Train(train, unroll.Config{
		Method: unroll.Method{Param: method, T: 5},
		Solver: unroll.Solver{LearningRate: 1e-2, Batch: 4, Epochs: 20},
	})
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

// Unrolled training with the loss on a device: the reverse pass on the
// device's array operations (here the CPU's, gpu.CPU(); gpu.Open("cuda") in
// a binary built with -tags l2ocuda) instead of the gorgonia graph. The
// learned parameters are the graph's, the memory a small fraction.
func ExampleNewLossFor() {
	prob, _ := problem.Deblur(problem.Options{H: 16})
	n, _, _, pix, _ := data.Stack(data.Synthetic(4, 16, 16, 1))
	train, _ := prob.Instantiate(pix, n, 0)
	method, _ := models.ParseMethod("m-pc")
	graphLoss, _ := unroll.NewLoss(method, train, 10, 4, 0, nil)
	devLoss, err := unroll.NewLossFor(method, train, 10, 4, 0, nil, execution.OnDevice(gpu.CPU()))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer graphLoss.Close()
	defer devLoss.Close()
	u := graphLoss.Reference()
	g1, g2 := make([]float64, len(u)), make([]float64, len(u))
	v1, _ := graphLoss.Eval(u, g1)
	v2, _ := devLoss.Eval(u, g2)
	var d, s float64
	for i := range g1 {
		d += (g1[i] - g2[i]) * (g1[i] - g2[i])
		s += g1[i] * g1[i]
	}
	fmt.Printf("same loss: %v, same gradient: %v\n", math.Abs(v1-v2) < 1e-12*v1, d < 1e-24*s)
	fmt.Printf("memory: device %.0f%% of the graph's\n", 100*float64(devLoss.HeldBytes())/float64(graphLoss.HeldBytes()))
	// Output:
	// same loss: true, same gradient: true
	// memory: device 9% of the graph's
}
