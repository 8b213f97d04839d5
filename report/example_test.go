package report_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/report"
)

// Compare gradient descent and NAG on a tiny deblurring problem and write
// the report.
func Example() {
	p, err := problem.Deblur(problem.Options{H: 16})
	if err != nil {
		log.Fatal(err)
	}
	_, _, _, truth, err := data.Stack(data.Synthetic(2, 16, 16, 1))
	if err != nil {
		log.Fatal(err)
	}
	test, err := p.Instantiate(truth, 2, 1)
	if err != nil {
		log.Fatal(err)
	}
	fstar, err := baselines.Optimum(test, 500, "")
	if err != nil {
		log.Fatal(err)
	}
	curves, err := eval.Run(test, fstar, []baselines.Method{baselines.GradientDescent{}, baselines.NAG{}},
		eval.Options{Iters: 30, PSNRAt: []int{15}})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "report-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	r := &report.Report{Title: "GD against NAG", Curves: curves}
	index, err := r.Write(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(filepath.Base(index))
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		fmt.Println(filepath.Base(f))
	}
	// Output:
	// index.html
	// curves.csv
	// curves.json
	// index.html
	// optimality_iter.png
	// optimality_iter.svg
	// optimality_seconds.png
	// optimality_seconds.svg
}
