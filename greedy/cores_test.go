package greedy

import (
	"runtime"
	"testing"

	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
)

// TestLongParametersBitwiseAcrossCores trains PF on 16×16 images on the
// host device, where θ has 256² = kernels.LargeLen values and NAG's updates,
// the step loss's memo, the scaling, the copies and the gradient's sum are
// split across cores: on 1 and on 4 goroutines every parameter of every step
// must be bitwise the same.
func TestLongParametersBitwiseAcrossCores(t *testing.T) {
	o := deblurSet(t, 2, 16, 1)
	run := func(procs int) *Result {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res, err := Train(o, Config{Method: Method{Param: method(t, "pf")}, Target: execution.OnDevice(gpu.CPU()),
			Solver: Solver{Inner: NAG{Iters: 5, Rounds: 1}}, Stop: Stop{MaxSteps: 2}, Store: Store{KeepParams: true}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	one, four := run(1), run(4)
	if n := len(one.Theta[0]); n < kernels.LargeLen {
		t.Fatalf("θ has %d values, below kernels.LargeLen (%d): the split is not exercised", n, kernels.LargeLen)
	}
	for s := range one.Theta {
		for i, v := range one.Theta[s] {
			if v != four.Theta[s][i] {
				t.Fatalf("step %d: θ[%d] = %v on 1 goroutine, %v on 4", s, i, v, four.Theta[s][i])
			}
		}
	}
	if one.Steps[1].Loss != four.Steps[1].Loss {
		t.Errorf("step 1's loss: %v on 1 goroutine, %v on 4", one.Steps[1].Loss, four.Steps[1].Loss)
	}
}
