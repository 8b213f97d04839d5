package bench_test

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/bench"
)

// Held bytes of greedy and unrolled training at two horizons, measured in
// this process on two 16×16 deblurring functions.
func ExampleMeasure() {
	cfg := bench.Config{Size: 16, NTrain: 2, GreedyEvals: 2, Epochs: 1}
	held := map[string][2]int64{}
	for _, tr := range []string{bench.Greedy, bench.Unrolled} {
		var h [2]int64
		for i, T := range []int{5, 10} {
			row, err := bench.Measure(tr, T, cfg)
			if err != nil {
				fmt.Println(err)
				return
			}
			h[i] = row.HeldBytes
		}
		held[tr] = h
	}
	fmt.Println("greedy memory independent of T:", held[bench.Greedy][0] == held[bench.Greedy][1])
	fmt.Println("unrolled memory doubles from T=5 to T=10:", float64(held[bench.Unrolled][1])/float64(held[bench.Unrolled][0]) > 1.9)
	// Output:
	// greedy memory independent of T: true
	// unrolled memory doubles from T=5 to T=10: true
}
