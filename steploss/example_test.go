package steploss_test

import (
	"fmt"
	"sync"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// The greedy step loss of M-PC on 5 deblurring functions, once in one
// step loss and once divided into two blocks of functions held by two
// goroutines (processes, under MPI) joined by Links (steploss.Pipes): each block does its
// own functions' work, then the running sums pass from block to block in
// function order, so that both blocks get the one step loss's value and
// gradient bit for bit.
func ExampleNewStepLossBlock() {
	const n, size = 5, 16
	p, err := problem.Deblur(problem.Options{H: size})
	if err != nil {
		panic(err)
	}
	_, _, _, pix, err := data.Stack(data.Synthetic(n, size, size, 1))
	if err != nil {
		panic(err)
	}
	o, err := p.Instantiate(pix, n, 1)
	if err != nil {
		panic(err)
	}
	m, err := models.ParseMethod("m-pc")
	if err != nil {
		panic(err)
	}
	x := o.X0
	g := make([]float64, len(x))
	if err := o.Eval(nil, g, x, nil); err != nil {
		panic(err)
	}
	mom := make([]float64, len(x)) // x − x⁻ = 0 at the first step

	// One step loss on every function.
	whole, err := steploss.NewStepLoss(m, o, 1/o.L)
	if err != nil {
		panic(err)
	}
	defer whole.Close()
	if err := whole.SetStep(x, g, mom, 0, 0); err != nil {
		panic(err)
	}
	u := whole.Reference()
	grad := make([]float64, len(u))
	want, err := whole.Eval(u, grad)
	if err != nil {
		panic(err)
	}

	// Two blocks, functions [0, 3) and [3, 5).
	blocks := steploss.Blocks(n, 2)
	links := steploss.Pipes(len(blocks)) // an MPI chain's ranks in a program under mpirun
	got := make([]float64, len(blocks))
	same := make([]bool, len(blocks))
	var wg sync.WaitGroup
	for b, blk := range blocks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sub, err := o.Block(blk[0], blk[1])
			if err != nil {
				panic(err)
			}
			s, err := steploss.NewStepLossBlock(m, sub, n, 1/o.L, steploss.Float64, links[b])
			if err != nil {
				panic(err)
			}
			defer s.Close()
			hw := o.ImageLen()
			part := func(v []float64) []float64 { return v[blk[0]*hw : blk[1]*hw] }
			if err := s.SetStep(part(x), part(g), part(mom), 0, 0); err != nil {
				panic(err)
			}
			gb := make([]float64, len(u))
			if got[b], err = s.Eval(u, gb); err != nil {
				panic(err)
			}
			same[b] = fmt.Sprint(gb) == fmt.Sprint(grad)
		}()
	}
	wg.Wait()
	fmt.Printf("blocks %v\n", blocks)
	fmt.Printf("value: one loss %.6f, block 0 %.6f, block 1 %.6f, bitwise equal: %v\n", want, got[0], got[1], got[0] == want && got[1] == want)
	fmt.Printf("gradients equal: %v %v\n", same[0], same[1])
	// Output:
	// blocks [[0 3] [3 5]]
	// value: one loss 0.166979, block 0 0.166979, block 1 0.166979, bitwise equal: true
	// gradients equal: true true
}
