package eval_test

import (
	"fmt"
	"log"
	"os"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Compare gradient descent and NAG on a tiny synthetic deblurring problem.
func Example() {
	p, err := problem.Deblur(problem.Options{H: 16})
	if err != nil {
		log.Fatal(err)
	}
	_, _, _, truth, err := data.Stack(data.Synthetic(3, 16, 16, 1))
	if err != nil {
		log.Fatal(err)
	}
	test, err := p.Instantiate(truth, 3, 1)
	if err != nil {
		log.Fatal(err)
	}
	fstar, err := baselines.Optimum(test, 2000, "") // pass a directory to cache
	if err != nil {
		log.Fatal(err)
	}
	methods := []baselines.Method{baselines.GradientDescent{}, baselines.NAG{}}
	curves, err := eval.Run(test, fstar, methods, eval.Options{Iters: 200})
	if err != nil {
		log.Fatal(err)
	}
	gd, nag := curves[0], curves[1]
	fmt.Println("NAG reaches 1e-2 first:", nag.ItersTo(1e-2) >= 0 && (gd.ItersTo(1e-2) < 0 || nag.ItersTo(1e-2) < gd.ItersTo(1e-2)))
	fmt.Println("PSNR improves:", nag.PSNR[200][0] > nag.PSNR[0][0])
	if err := eval.WriteCSV(os.Stdout, nil); err != nil { // header only
		log.Fatal(err)
	}
	// Output:
	// NAG reaches 1e-2 first: true
	// PSNR improves: true
	// method,iter,seconds,mean,min,max,setting,status
}
