package bench_test

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/bench"
)

// Memory of greedy and unrolled M-PP training on two 16×16 deblurring
// functions, in float64 arrays of the training batch (N·H·W·8 bytes): the
// greedy step loss holds x, g, p, x⁺ and ∇f(x⁺) whatever the number of steps
// T, while the unrolled graph keeps the values and gradients of every
// iteration.
func ExampleMeasure() {
	cfg := bench.Config{Size: 16, NTrain: 2, GreedyEvals: 2, Epochs: 1, Param: "m-pp"}
	held := map[string]map[int]float64{}
	for _, tr := range []string{bench.Greedy, bench.Unrolled} {
		held[tr] = map[int]float64{}
		for _, T := range []int{2, 8} {
			row, err := bench.Measure(tr, T, cfg)
			if err != nil {
				fmt.Println(err)
				return
			}
			held[tr][T] = float64(row.HeldBytes) / float64(row.Batch*row.Size*row.Size*8)
		}
	}
	g, u := held[bench.Greedy], held[bench.Unrolled]
	fmt.Printf("greedy: %.0f arrays at T = 2, %.0f at T = 8\n", g[2], g[8])
	fmt.Printf("unrolled: %.0f arrays at T = 2, %.0f at T = 8, %.0f per iteration\n", u[2], u[8], (u[8]-u[2])/6)
	// Output:
	// greedy: 5 arrays at T = 2, 5 at T = 8
	// unrolled: 102 arrays at T = 2, 450 at T = 8, 58 per iteration
}
