package baselines_test

import (
	"fmt"
	"log"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Run NAG with backtracking on a small deblurring problem and compare its
// mean objective after 100 iterations with the estimated optimum.
func Example() {
	p, err := problem.Deblur(problem.Options{H: 16})
	if err != nil {
		log.Fatal(err)
	}
	_, _, _, truth, err := data.Stack(data.Synthetic(2, 16, 16, 1))
	if err != nil {
		log.Fatal(err)
	}
	o, err := p.Instantiate(truth, 2, 0)
	if err != nil {
		log.Fatal(err)
	}
	method, err := baselines.ParseMethod("nag")
	if err != nil {
		log.Fatal(err)
	}
	it, err := method.Start(o)
	if err != nil {
		log.Fatal(err)
	}
	for t := 0; t < 100; t++ {
		if err := it.Next(); err != nil {
			log.Fatal(err)
		}
	}
	fstar, err := baselines.Optimum(o, 1000, "") // no cache directory
	if err != nil {
		log.Fatal(err)
	}
	f0, _ := o.Mean(o.X0)
	f100, _ := o.Mean(it.X())
	mstar := (fstar[0] + fstar[1]) / 2
	fmt.Printf("%s: relative optimality gap after 100 iterations below 1e-2: %v\n", method.Name(), (f100-mstar)/(f0-mstar) < 1e-2)
	// Output:
	// nag: relative optimality gap after 100 iterations below 1e-2: true
}
