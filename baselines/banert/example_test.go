package banert_test

import (
	"fmt"
	"log"

	"github.com/greedyl2o/greedyl2o/baselines/banert"
	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Train the Banert baseline on two tiny deblurring problems by unrolling
// three iterations, then run it beyond the unrolled horizon.
func Example() {
	prob, err := problem.Deblur(problem.Options{H: 8})
	if err != nil {
		log.Fatal(err)
	}
	n, _, _, pix, err := data.Stack(data.Synthetic(2, 8, 8, 1))
	if err != nil {
		log.Fatal(err)
	}
	o, err := prob.Instantiate(pix, n, 0)
	if err != nil {
		log.Fatal(err)
	}
	res, err := banert.Train(o, banert.Config{
		Problem: banert.Problem{Seed: 1},
		Method:  banert.MethodConfig{T: 3},
		Solver:  banert.Solver{Epochs: 5},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Method.Name(), len(res.Method.Net.Theta), "parameters")
	before, _ := o.Mean(o.X0)
	it, err := res.Method.Start(o)
	if err != nil {
		log.Fatal(err)
	}
	for t := 0; t < 20; t++ {
		if err := it.Next(); err != nil {
			log.Fatal(err)
		}
	}
	after, _ := o.Mean(it.X())
	fmt.Println("objective decreased:", after < before)
	// Output:
	// banert-T3 10567 parameters
	// objective decreased: true
}
