package greedy_test

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// ExampleTrain trains M-PC (a learned image-sized convolution for G and for
// the momentum H) greedily on eight synthetic deblurring functions of
// Problem 1, with the NAG inner solver, and runs the learned optimizer
// (Algorithm 2) on four functions it did not see, beyond the trained steps.
func ExampleTrain() {
	prob, _ := problem.Deblur(problem.Options{H: 24})
	_, _, _, pix, _ := data.Stack(data.Synthetic(12, 24, 24, 5))
	train, _ := prob.Instantiate(pix[:8*24*24], 8, 0)
	test, _ := prob.Instantiate(pix[8*24*24:], 4, 1)

	method, _ := models.ParseMethod("m-pc")
	res, err := greedy.Train(train, greedy.Config{
		Method: greedy.Method{Param: method},
		Solver: greedy.Solver{Inner: greedy.NAG{Iters: 20, Rounds: 10}},
		Stop:   greedy.Stop{MaxSteps: 10},
		Store:  greedy.Store{KeepParams: true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d steps (%s), %d parameters a step\n", len(res.Steps), res.StopCause, res.Manifest.ThetaLen+res.Manifest.PhiLen)

	learned, _ := learned.New("m-pc", method, 24, 24, res.Theta, res.Phi)
	it, _ := learned.Start(test)
	for range 20 {
		_ = it.Next()
	}
	f, _ := test.Mean(it.X())
	x, g := append([]float64(nil), test.X0...), make([]float64, len(test.X0))
	for range 20 {
		_ = test.Eval(nil, g, x, nil)
		for i := range x {
			x[i] -= g[i] / test.L
		}
	}
	gd, _ := test.Mean(x)
	fmt.Printf("unseen functions after 20 iterations: learned %.4f, gradient descent %.4f\n", f, gd)
	// Output:
	// 10 steps (step cap reached), 1152 parameters a step
	// unseen functions after 20 iterations: learned 0.0274, gradient descent 0.0354
}

// ExampleConfig_precision trains the same M-PC in float32 and in float64
// (Config.Target) and compares the mean training objective after each
// run's last step: the step losses, iterates and gradients of the float32 run
// are float32, its parameters and inner solver float64.
func ExampleConfig_precision() {
	prob, _ := problem.Deblur(problem.Options{H: 24})
	_, _, _, pix, _ := data.Stack(data.Synthetic(6, 24, 24, 5))
	train, _ := prob.Instantiate(pix, 6, 0)
	method, _ := models.ParseMethod("m-pc")
	meanF := map[steploss.Precision]float64{}
	for _, prec := range []steploss.Precision{steploss.Float32, steploss.Float64} {
		res, err := greedy.Train(train, greedy.Config{
			Method: greedy.Method{Param: method},
			Target: execution.CPU(prec),
			Solver: greedy.Solver{Inner: greedy.NAG{Iters: 20, Rounds: 2}},
			Stop:   greedy.Stop{MaxSteps: 5},
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		meanF[prec] = res.Steps[len(res.Steps)-1].MeanF
	}
	fmt.Printf("mean f after 5 steps: float32 %.6f, float64 %.6f\n", meanF[steploss.Float32], meanF[steploss.Float64])
	// Output:
	// mean f after 5 steps: float32 0.031137, float64 0.031137
}

// ExampleConfig_target trains M-PC on the target a command line's
// --device and --precision name (execution.Resolve, as l2o does): "cpu32"
// (or its alias "host32") is the CPU in float32; "cuda", in a binary built
// with -tags l2ocuda, runs the step losses on a GPU. The manifest records
// the target: its precision, and a device's kind.
func ExampleConfig_target() {
	prob, _ := problem.Deblur(problem.Options{H: 24})
	_, _, _, pix, _ := data.Stack(data.Synthetic(6, 24, 24, 5))
	train, _ := prob.Instantiate(pix, 6, 0)
	method, _ := models.ParseMethod("m-pc")
	on, err := execution.Resolve("host32", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := greedy.Train(train, greedy.Config{
		Method: greedy.Method{Param: method},
		Target: on,
		Solver: greedy.Solver{Inner: greedy.NAG{Iters: 20, Rounds: 2}},
		Stop:   greedy.Stop{MaxSteps: 5},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("target %s, precision %s, mean f after 5 steps %.6f\n", on, res.Manifest.Precision, res.Steps[len(res.Steps)-1].MeanF)
	// Output:
	// target cpu32, precision float32, mean f after 5 steps 0.031137
}
