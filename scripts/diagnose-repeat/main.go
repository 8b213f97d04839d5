// Command diagnose-repeat measures which trained steps of a greedy
// checkpoint are stable when Algorithm 2 repeats them: for each T' it runs
// the learned steps 0…T' and then repeats step T', on held-out STL-10 test
// functions at the blur widths given, without a safeguard, and prints the
// root-mean-square ‖∇f‖ at a few iterations (docs/operator-families.md).
//
//	go run ./scripts/diagnose-repeat -params DIR -T 20,30,40,43 -sigma 1,2
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/problem"
)

var reportAt = []int{50, 100, 150, 200, 300, 400}

func main() {
	dir := flag.String("params", "", "greedy checkpoint directory")
	src := flag.String("data", "datasets/stl10", "--data of the training run (test images: its held-out split, seed 1)")
	sigmas := flag.String("sigma", "1,2", "blur widths to test at")
	cuts := flag.String("T", "", "last steps T' to try, comma-separated (default: the checkpoint's last)")
	iters := flag.Int("iters", 300, "iterations")
	n := flag.Int("n", 20, "test functions")
	flag.Parse()
	opt, man, err := learned.Load(*dir)
	check(err)
	sel, err := data.Select(*src, data.Request{NTrain: man.NTrain, NTest: *n, Seed: 1})
	check(err)
	nn, h, w, pix, err := data.Stack(sel.Test)
	check(err)
	ts := []int{opt.Steps - 1}
	if *cuts != "" {
		ts = nil
		for _, s := range strings.Split(*cuts, ",") {
			t, err := strconv.Atoi(s)
			check(err)
			ts = append(ts, min(t, opt.Steps-1))
		}
	}
	for _, s := range strings.Split(*sigmas, ",") {
		sg, err := strconv.ParseFloat(s, 64)
		check(err)
		p, err := problem.Lookup(man.Problem, problem.Options{H: h, W: w, BlurSigma: sg, Seed: 1})
		check(err)
		o, err := p.Instantiate(pix, nn, 1_000_003)
		check(err)
		for _, T := range ts {
			fmt.Printf("σ=%s T'=%3d:%s\n", s, T, repeated(opt, o, T, *iters))
		}
	}
}

// repeated runs steps 0…T of opt on o, then step T, for iters iterations and
// returns the RMS ‖∇f‖ at the reportAt iterations.
func repeated(opt *learned.Optimizer, o *problem.Objective, T, iters int) string {
	thetas, phis := make([][]float64, T+1), make([][]float64, T+1)
	for t := range thetas {
		var err error
		thetas[t], phis[t], err = opt.Params(t)
		check(err)
	}
	l, err := learned.New("cut", opt.Method, o.H, o.W, thetas, phis)
	check(err)
	it, err := l.Start(o)
	check(err)
	if c, ok := it.(interface{ Close() error }); ok {
		defer c.Close()
	}
	g, out := make([]float64, len(o.X0)), ""
	for i := 1; i <= iters; i++ {
		check(it.Next())
		for _, a := range reportAt {
			if a == i {
				check(o.Eval(nil, g, it.X(), nil))
				ss := 0.0
				for _, v := range g {
					ss += v * v
				}
				out += fmt.Sprintf("  %d: %.2e", i, math.Sqrt(ss/float64(o.N)))
			}
		}
	}
	return out
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
